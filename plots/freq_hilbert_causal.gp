# freq_hilbert_causal.gp — `skit hilbert causal`: impulse response of x and
# of the causal spectrum x - i H{x} by both methods. Variables: datafile.
set title "Causal kernel from the real part: k of x - iH{x}"
set xlabel "lag (samples)"
set ylabel "k[lag]"
set key outside right top
set grid
plot datafile using "lag":"k_even" with linespoints pt 6 ps 0.6 title "k of x (even)", \
     '' using "lag":"k_fft" with linespoints pt 7 ps 0.6 lw 2 title "causal, Hilbert by FFT", \
     '' using "lag":"k_definition" with linespoints pt 5 ps 0.5 title "causal, Hilbert by definition"
