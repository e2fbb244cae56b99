# plots/tno_bench.gp — `skit bench tno`: forward time (kernels recomputed from
# the parameters, then applied; seconds per call) against n for the sweep
# rows, log-log, bidirectional and causal side by side, with the bare
# Toeplitz FFT matvec (coefficients precomputed) as the floor. Colours: style.gp's. Solid: forward;
# dotted: apply with cached kernels. Causal SKI: Appendix B's running sums
# and the bracket-blocked sums.
# The caller sets terminal, output and `datafile` (tab-separated skit TSV).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
set datafile missing "nan"
set logscale x 2
set logscale y 10
set format x "2^{%L}"
set format y "10^{%L}"
set xlabel "n (tokens)"
set ylabel "seconds per call"
set grid
set key top left font ",9"
is(op, cz) = (strcol("section") eq "sweep" && strcol("operator") eq op && strcol("causality") eq cz)
at(op, cz, col) = is(op, cz) ? column(col) : NaN
set multiplot layout 1,2
set title "bidirectional"
cz = "bidirectional"
plot datafile using (at("matvec", cz, "n")):(at("matvec", cz, "forward_s")) with linespoints lw 2 pt 7 lc rgb mcolor("matvec") title "bare FFT matvec", \
     datafile using (at("tno", cz, "n")):(at("tno", cz, "forward_s")) with linespoints lw 2 pt 5 lc rgb mcolor("tno") title "TNO forward", \
     datafile using (at("fd", cz, "n")):(at("fd", cz, "forward_s")) with linespoints lw 2 pt 9 lc rgb mcolor("fd") title "FD-TNO forward", \
     datafile using (at("ski", cz, "n")):(at("ski", cz, "forward_s")) with linespoints lw 2 pt 13 lc rgb mcolor("ski") title "SKI-TNO forward", \
     datafile using (at("tno", cz, "n")):(at("tno", cz, "apply_s")) with lines lw 1.5 dt 3 lc rgb mcolor("tno") title "TNO apply (cached kernels)", \
     datafile using (at("fd", cz, "n")):(at("fd", cz, "apply_s")) with lines lw 1.5 dt 3 lc rgb mcolor("fd") title "FD-TNO apply", \
     datafile using (at("ski", cz, "n")):(at("ski", cz, "apply_s")) with lines lw 1.5 dt 3 lc rgb mcolor("ski") title "SKI-TNO apply"
set title "causal"
cz = "causal"
plot datafile using (at("matvec", cz, "n")):(at("matvec", cz, "forward_s")) with linespoints lw 2 pt 7 lc rgb mcolor("matvec") title "bare FFT matvec", \
     datafile using (at("tno", cz, "n")):(at("tno", cz, "forward_s")) with linespoints lw 2 pt 5 lc rgb mcolor("tno") title "TNO forward", \
     datafile using (at("fd", cz, "n")):(at("fd", cz, "forward_s")) with linespoints lw 2 pt 9 lc rgb mcolor("fd") title "FD-TNO forward (Hilbert)", \
     datafile using (at("ski", cz, "n")):(at("ski", cz, "forward_s")) with linespoints lw 2 pt 13 lc rgb mcolor("ski") title "SKI, cumulative sums (App. B)", \
     datafile using (at("ski-blocked", cz, "n")):(at("ski-blocked", cz, "forward_s")) with linespoints lw 2 pt 11 lc rgb mcolor("ski-blocked") title "SKI, bracket-blocked sums", \
     datafile using (at("tno", cz, "n")):(at("tno", cz, "apply_s")) with lines lw 1.5 dt 3 lc rgb mcolor("tno") title "TNO apply (cached kernels)", \
     datafile using (at("fd", cz, "n")):(at("fd", cz, "apply_s")) with lines lw 1.5 dt 3 lc rgb mcolor("fd") title "FD-TNO apply"
unset multiplot
