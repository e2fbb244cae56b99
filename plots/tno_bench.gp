# plots/tno_bench.gp — `skit bench tno`: forward time (kernels recomputed from
# the parameters, then applied; seconds per call) against n for the sweep
# rows, log-log, bidirectional and causal side by side, with the bare
# Toeplitz FFT matvec (coefficients precomputed) as the floor. Colours,
# point types and dashes: style.gp's per operator; forward: filled points
# and the operator's dash; dotted with small open points: apply with cached
# kernels. Causal
# SKI: Appendix B's running sums and the bracket-blocked sums. One key for
# both panels, right of them.
# The caller sets terminal, output and `datafile` (tab-separated skit TSV).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
@log2x
@logy
set xlabel "n (tokens)"
set ylabel "seconds per call"
set grid
is(op, cz) = (strcol("section") eq "sweep" && strcol("operator") eq op && strcol("causality") eq cz)
at(op, cz, col) = is(op, cz) ? column(col) : NaN
fwd(op, cz) = sprintf('datafile using (at("%s", "%s", "n")):(at("%s", "%s", "forward_s")) with linespoints lw 2 pt mpt("%s") ps mps("%s") dt mdt("%s") lc rgb mcolor("%s")', op, cz, op, cz, op, op, op, op)
app(op, cz) = sprintf('datafile using (at("%s", "%s", "n")):(at("%s", "%s", "apply_s")) with linespoints lw 1.5 dt 3 pt popen(mpt("%s")) ps 0.8 lc rgb mcolor("%s")', op, cz, op, cz, op, op)
set multiplot layout 1,2 margins 0.08, 0.66, 0.12, 0.9 spacing 0.1, 0.1
unset key
set title "bidirectional"
@probe
eval 'plot '.fwd("matvec", "bidirectional").' notitle, '.fwd("tno", "bidirectional").' notitle, '. \
     fwd("fd", "bidirectional").' notitle, '.fwd("ski", "bidirectional").' notitle, '. \
     app("tno", "bidirectional").' notitle, '.app("fd", "bidirectional").' notitle, '.app("ski", "bidirectional").' notitle'
@fit
set title "causal"
set key at screen 0.68, graph 1 left top font ",9"
@probe
eval 'plot '.fwd("matvec", "causal").' title "bare FFT matvec", '.fwd("tno", "causal").' title "TNO forward", '. \
     fwd("fd", "causal").' title "FD-TNO forward (causal: Hilbert)", '. \
     fwd("ski", "causal").' title "SKI-TNO forward (causal: App. B sums)", '. \
     fwd("ski-blocked", "causal").' title "SKI, bracket-blocked sums (causal)", '. \
     app("tno", "causal").' title "TNO apply (cached kernels)", '.app("fd", "causal").' title "FD-TNO apply", '. \
     'NaN with linespoints lw 1.5 dt 3 pt popen(mpt("ski")) ps 0.8 lc rgb mcolor("ski") title "SKI-TNO apply (bidirectional)"'
@fit
unset multiplot
