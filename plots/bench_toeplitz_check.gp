# bench_toeplitz_check.gp — `skit bench toeplitz --check`: normwise error of
# the FFT product against the dense one, max|fft - dense| / (||h|| ||x||),
# for the bidirectional, causal and transposed products, and the tolerance
# 10 eps log2(L), against n (log-log). Variable: datafile.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
@log2x
@logy
set xlabel "n"
set ylabel "max |fft - dense| / (||h||_2 ||x||_2)"
set title "Toeplitz FFT matvec against the dense product"
set grid
# the three products share n: an open ring, a filled square and a cross, so
# that coinciding errors stay visible
@probe
plot datafile using "n":"err_bidirectional" with points pt 6 ps 1.3 lc 1 title "bidirectional", \
     datafile using "n":"err_causal" with points pt 5 ps 0.6 lc 2 title "causal", \
     datafile using "n":"err_transpose" with points pt 2 ps 0.9 lc 3 title "transposed", \
     datafile using "n":"tolerance" with lines lw 2 dt 2 lc rgb "black" title "tolerance 10 eps log_2 L"
@fit
