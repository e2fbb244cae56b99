# freq_hilbert_transform.gp — `skit hilbert transform`: x, H{x} by FFT and by
# the truncated definition (and the exact transform when known).
# Variables: datafile; has_exact (0/1).
# The exact transform, when known, is drawn last, dashed over the FFT's.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("has_exact")) has_exact = 0
set title 'Discrete Hilbert transform of one period (H\{cos\} = sin)'
set xlabel "omega (rad)"
set ylabel "value"
set grid
# the exact transform only where the table has it (an empty iteration
# would still read the missing column)
exact = has_exact ? ", datafile using \"omega\":\"H_exact\" with lines lw 1.5 dt 2 lc rgb \"black\" title \"exact\"" : ""
@probe
eval "plot datafile using \"omega\":\"x\" with lines lw 2 dt 1 lc 1 title \"x\", " . \
     "datafile using \"omega\":\"H_fft\" with lines lw 3 dt 1 lc 2 title 'H\\{x\\} by FFT', " . \
     "datafile using \"omega\":\"H_definition\" with points pt 6 ps 0.6 lc 3 title 'H\\{x\\} by definition (truncated)'" . exact
@fit
