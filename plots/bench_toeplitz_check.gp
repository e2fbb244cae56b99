# bench_toeplitz_check.gp — `skit bench toeplitz --check`: normwise error of
# the FFT product against the dense one, max|fft - dense| / (||h|| ||x||),
# for the bidirectional, causal and transposed products, and the tolerance
# 10 eps log2(L), against n (log-log). Variable: datafile.
set logscale xy
set logscale x 2
set format x "2^{%L}"
set format y "10^{%L}"
set xlabel "n"
set ylabel "max |fft - dense| / (||h||_2 ||x||_2)"
set title "Toeplitz FFT matvec against the dense product"
set key left top
set grid
plot datafile using "n":"err_bidirectional" with points pt 7 ps 0.6 title "bidirectional", \
     datafile using "n":"err_causal" with points pt 6 ps 0.6 title "causal", \
     datafile using "n":"err_transpose" with points pt 4 ps 0.6 title "transposed", \
     datafile using "n":"tolerance" with lines lw 2 title "tolerance 10 eps log_2 L"
