# tnn_theorem21.gp — experiment 01 (TNN Theorem 2.1). Left: normwise error
# of the FFT matvec against the dense product vs n, with the tolerance
# 10 eps log2 L. Right: seconds per channel vs n (log-log) for the dense and
# FFT products and the bare FFTW r2c of the same length (bench toeplitz's
# floor_1t_s), with the fitted slopes. Keys below the panels, off the data.
# Variables: datafile (timing TSV), errfile (accuracy TSV), slope_fft,
# slope_dense (strings).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set multiplot layout 1,2 title "TNN Theorem 2.1: Toeplitz matvec by circulant embedding + FFT"
set grid
set key below font ",9"
set bmargin 9
@log2x
@logy
fit_x2max = 7
set xlabel "n"
set ylabel "max|fft - dense| / (||h||_2 ||x||_2)"
set title "FFT = dense to rounding"
# the three products share n: an open ring, a filled square and a cross
@probe
plot errfile using "n":"err_bidirectional" with points pt 6 ps 1.0 lc 1 title "bidirectional", \
     errfile using "n":"err_causal" with points pt 5 ps 0.5 lc 2 title "causal", \
     errfile using "n":"err_transpose" with points pt 2 ps 0.7 lc 3 title "transposed", \
     errfile using "n":"tolerance" with lines lw 2 dt 2 lc rgb "black" title "tolerance 10 eps log_2 L"
@fit
set ylabel "seconds per channel (one thread)"
set title "time vs n"
@probe
plot datafile using "n":"dense_s" with linespoints lw 1.5 pt 5 dt 1 lc rgb mcolor("dense") title sprintf("dense (slope %s)", slope_dense), \
     datafile using "n":"fft_s" with linespoints pt 7 lw 2 dt 2 lc rgb mcolor("fd") title sprintf("FFT matvec (slope %s)", slope_fft), \
     datafile using "n":"floor_1t_s" with linespoints pt 6 ps 1.3 lw 1.5 dt 3 lc rgb "gray40" title "bare FFTW r2c (one thread)"
@fit
unset multiplot
