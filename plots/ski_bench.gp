# ski_bench.gp — `skit bench ski`: time per call of the SKI action (sparse W,
# FFT for the r x r Toeplitz A), the dense-W SKI and the FFT Toeplitz matvec
# of the full n x n matrix, against n (log-log). Rows with part = 1 (the
# fixed-size comparison) are left out. The memory floor (y = x/2 on the same
# arrays: what any action that reads x and writes y pays) is drawn where the
# run measured it. Variable: datafile.
set logscale xy
set autoscale xfix
set format x "2^{%L}"
set logscale x 2
set format y "10^{%L}"
set xlabel "n"
set ylabel "seconds per call"
set title "SKI action W A W^T x vs the FFT Toeplitz matvec"
set key left top
set grid
set style data linespoints
plot datafile using "n":(column("part") == 0 ? column("ski_s") : NaN) pt 7 title "SKI (sparse W, FFT A)", \
     datafile using "n":(column("part") == 0 ? column("ski_dense_s") : NaN) pt 5 title "SKI (dense W, BLAS)", \
     datafile using "n":(column("part") == 0 ? column("fft_s") : NaN) pt 9 title "FFT Toeplitz matvec (n x n)", \
     datafile using "n":(column("part") == 0 ? column("floor_s") : NaN) pt 1 dt 2 title "memory floor (read x, write y)"
