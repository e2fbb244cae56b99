# bench_toeplitz_flops.gp — `skit bench toeplitz --flops`: operations per
# channel of the FFT matvec (FFTW's count of the plan's transforms plus the
# pointwise products) and of the dense product, against n (log-log).
# Variable: datafile.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
@log2x
@logy
set xlabel "n"
set ylabel "floating-point operations per channel"
set title "Toeplitz matvec: operation counts"
set grid
@probe
plot datafile using "n":"dense_flops" with linespoints lw 1.5 pt 5 lc 1 title "dense product", \
     datafile using "n":"flops" with linespoints lw 2 pt 7 lc 2 title "FFT matvec (FFTW count + products)"
@fit
