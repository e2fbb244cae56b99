# interleaved A/B of the update: min of 3 runs of best-of-30, libraries $A and $B
for sh in "512 512 4" "2048 512 1" "8192 128 1" "32768 64 1"; do set -- $sh; for k in 0 1; do for f in 0 1; do
 ba=9; bb=9; for rep in 1 2 3; do
  t=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 LD_LIBRARY_PATH=$A /tmp/t/fwdb $1 $2 $f 0 $k 30 $3 | sed 's/.*update \([0-9.]*\) .*/\1/'); ba=$(awk -v a=$ba -v b=$t 'BEGIN{print (b<a)?b:a}')
  t=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 LD_LIBRARY_PATH=$B /tmp/t/fwdb $1 $2 $f 0 $k 30 $3 | sed 's/.*update \([0-9.]*\) .*/\1/'); bb=$(awk -v a=$bb -v b=$t 'BEGIN{print (b<a)?b:a}')
 done
 echo "$1:$2:$3 $([ $k = 0 ] && echo tno || echo fd) $([ $f = 1 ] && echo f32 || echo f64) bidirectional update before $ba after $bb speedup $(awk -v a=$ba -v b=$bb 'BEGIN{printf "%.3f", a/b}')"; done; done; done
