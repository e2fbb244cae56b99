#!/bin/bash
# interleaved old/new SKI-TNO forward, min of 3 runs of best-of-50
for sh in "512 512 4" "2048 512 1" "8192 128 1" "32768 64 1"; do
 set -- $sh
 for c in 0 1; do for f in 0 1; do
  for v in old new; do best=9; for rep in 1 2 3; do
    t=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 LD_LIBRARY_PATH=/tmp/t/$v /tmp/t/fwdb $1 $2 $f $c 2 50 $3 | sed 's/.*forward //'); best=$(awk -v a=$best -v b=$t 'BEGIN{print (b<a)?b:a}'); done; eval "t_$v=$best"; done
  echo "n=$1 d=$2 batch=$3 $([ $c = 1 ] && echo causal || echo bidir) $([ $f = 1 ] && echo f32 || echo f64) old $t_old new $t_new speedup $(awk -v a=$t_old -v b=$t_new 'BEGIN{printf "%.2f", a/b}')"
 done; done
done
