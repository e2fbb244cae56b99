# freq_hilbert_sweep.gp — `skit hilbert sweep`: agreement of the truncated
# definition with the FFT, and causality residuals, against n.
# Variables: datafile; periods (space-separated list, default "1 8 64").
# A lag window keeps its colour, point type and dash in both panels; the
# FFT is black; one key for both panels, right of them.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("periods")) periods = "1 8 64"
set grid
@log2x
@logy
set xlabel "n (samples per period)"
np = words(periods)
set multiplot layout 1,2 margins 0.08, 0.74, 0.12, 0.9 spacing 0.1, 0.1
unset key
set title "definition vs FFT: max|difference| / max|H|" font ",10"
# rows are ordered by n, then by the lag window: every np-th row is one window
@probe
plot for [j=1:np] datafile every np::(j-1) using "n":"agreement" \
     with linespoints lw 1.5 lc j + 1 pt spt(j + 1) ps sps(j + 1) dt sdt(j + 1) title sprintf("L = %s n/2", word(periods, j))
@fit
set title "causality residual (energy at negative lags)" font ",10"
set key at screen 0.76, graph 1 left top
@probe
plot datafile every np using "n":"residual_fft" with linespoints pt 5 lw 2 lc rgb "black" title "FFT", \
     for [j=1:np] datafile every np::(j-1) using "n":"residual_definition" \
     with linespoints lw 1.5 lc j + 1 pt spt(j + 1) ps sps(j + 1) dt sdt(j + 1) title sprintf("definition, L = %s n/2", word(periods, j))
@fit
unset multiplot
