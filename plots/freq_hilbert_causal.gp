# freq_hilbert_causal.gp — `skit hilbert causal`: impulse response of x and
# of the causal spectrum x - i H{x} by both methods; left k[lag], right
# |k[lag]| on a log axis, where the (near) zeros at negative lags show.
# One key for both panels, right of them. Variables: datafile.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set xlabel "lag (samples)"
set grid
set multiplot layout 1, 2 title 'Causal kernel from the real part: k of x - iH\{x\}' \
    margins 0.1, 0.72, 0.12, 0.86 spacing 0.1, 0.1
unset key
set title "k[lag]"
@probe
plot datafile using "lag":"k_even" with linespoints lw 1 dt 1 pt 6 ps 1.1 lc 1 title "k of x (even)", \
     '' using "lag":"k_fft" with linespoints lw 2 dt 2 pt 7 ps 0.5 lc 2 title "causal, Hilbert by FFT", \
     '' using "lag":"k_definition" with linespoints lw 1 dt 4 pt 4 ps 0.9 lc 3 title "causal, Hilbert by definition"
@fit
set title "|k[lag]| (log scale; 0 not drawn)"
@logy
set key at screen 0.74, graph 1 left top font ",10"
nz(v) = abs(v) > 0 ? abs(v) : NaN
@probe
plot datafile using "lag":(nz(column("k_even"))) with linespoints lw 1 dt 1 pt 6 ps 1.1 lc 1 title "k of x (even)", \
     '' using "lag":(nz(column("k_fft"))) with linespoints lw 2 dt 2 pt 7 ps 0.5 lc 2 title "causal, Hilbert by FFT", \
     '' using "lag":(nz(column("k_definition"))) with linespoints lw 1 dt 4 pt 4 ps 0.9 lc 3 title "causal, Hilbert by definition"
@fit
unset multiplot
