# freq_hilbert_transform.gp — `skit hilbert transform`: x, H{x} by FFT and by
# the truncated definition (and the exact transform when known).
# Variables: datafile; has_exact (0/1).
if (!exists("has_exact")) has_exact = 0
set title "Discrete Hilbert transform of one period (H{cos} = sin)"
set xlabel "omega (rad)"
set ylabel "value"
set key outside right top
set grid
plot datafile using "omega":"x" with lines lw 2 title "x", \
     '' using "omega":"H_fft" with lines lw 2 title "H{x} by FFT", \
     '' using "omega":"H_definition" with points pt 7 ps 0.5 title "H{x} by definition (truncated)", \
     for [i=1:has_exact] '' using "omega":"H_exact" with lines dt 2 lc rgb "black" title "exact"
