# freq_hilbert_sweep.gp — `skit hilbert sweep`: agreement of the truncated
# definition with the FFT, and causality residuals, against n.
# Variables: datafile; periods (space-separated list, default "1 8 64").
if (!exists("periods")) periods = "1 8 64"
set multiplot layout 1,2
set logscale xy
set format y "10^{%L}"
set grid
set key top right
set xlabel "n (samples per period)"
set title "definition vs FFT: max|difference| / max|H|"
np = words(periods)
# rows are ordered by n, then by the lag window: every np-th row is one window
plot for [j=1:np] datafile every np::(j-1) using "n":"agreement" \
     with linespoints pt 7 title sprintf("L = %s n/2", word(periods, j))
set title "causality residual (energy at negative lags)"
set yrange [1e-40:1]
plot datafile every np using "n":"residual_fft" with linespoints pt 5 lw 2 title "FFT", \
     for [j=1:np] datafile every np::(j-1) using "n":"residual_definition" \
     with linespoints pt 7 title sprintf("definition, L = %s n/2", word(periods, j))
unset multiplot
