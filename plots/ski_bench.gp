# ski_bench.gp — `skit bench ski`: time per call of the SKI action (sparse W,
# FFT for the r x r Toeplitz A), the dense-W SKI and the FFT Toeplitz matvec
# of the full n x n matrix, against n (log-log). Rows with part = 1 (the
# fixed-size comparison) are left out. The memory floor (y = x/2 on the same
# arrays: what any action that reads x and writes y pays) is drawn where the
# run measured it. Variable: datafile.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
@log2x
@logy
set xlabel "n"
set ylabel "seconds per call"
set title "SKI action W A W^T x vs the FFT Toeplitz matvec"
set grid
set style data linespoints
@probe
plot datafile using "n":(column("part") == 0 ? column("ski_s") : NaN) lw 2 lc rgb mcolor("ski") pt 7 dt 1 title "SKI (sparse W, FFT A)", \
     datafile using "n":(column("part") == 0 ? column("ski_dense_s") : NaN) lw 1.5 lc rgb mcolor("dense") pt 4 ps 1.3 dt 2 title "SKI (dense W, BLAS)", \
     datafile using "n":(column("part") == 0 ? column("fft_s") : NaN) lw 1.5 lc rgb mcolor("fd") pt 9 dt 4 title "FFT Toeplitz matvec (n x n)", \
     datafile using "n":(column("part") == 0 ? column("floor_s") : NaN) lw 1.5 lc rgb "gray40" pt 1 dt 3 title "memory floor (read x, write y)"
@fit
