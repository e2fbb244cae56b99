# tnn_theorem21.gp — experiment 01 (TNN Theorem 2.1). Left: normwise error
# of the FFT matvec against the dense product vs n, with the tolerance
# 10 eps log2 L. Right: seconds per channel vs n (log-log) for the dense and
# FFT products and the bare FFTW r2c of the same length, with the fitted
# slopes. Variables: datafile (timing TSV), errfile (accuracy TSV),
# slope_fft, slope_dense (strings).
set multiplot layout 1,2 title "TNN Theorem 2.1: Toeplitz matvec by circulant embedding + FFT"
set grid
set logscale x 2
set format x "2^{%L}"
set logscale y
set format y "10^{%L}"
set xlabel "n"
set ylabel "max|fft - dense| / (||h||_2 ||x||_2)"
set title "FFT = dense to rounding"
set key right bottom
set yrange [1e-18:1e-12]
plot errfile using "n":"err_bidirectional" with points pt 7 ps 0.5 title "bidirectional", \
     errfile using "n":"err_causal" with points pt 6 ps 0.5 title "causal", \
     errfile using "n":"err_transpose" with points pt 4 ps 0.5 title "transposed", \
     errfile using "n":"tolerance" with lines lw 2 title "tolerance 10 eps log_2 L"
set yrange [*:*]
set key left top
set ylabel "seconds per channel (one thread)"
set title "time vs n"
plot datafile using "n":"dense_s" with linespoints pt 5 title sprintf("dense (slope %s)", slope_dense), \
     datafile using "n":"fft_s" with linespoints pt 7 lw 2 title sprintf("FFT matvec (slope %s)", slope_fft), \
     datafile using "n":"floor_s" with linespoints pt 6 dt 2 title "bare FFTW r2c"
unset multiplot
