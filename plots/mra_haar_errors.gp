# plots/mra_haar_errors.gp — `skit mra haar`: ||Ahat - A||_F / ||A||_F of the
# softmax matrix at equal budgets: Haar top coefficients, best low rank, best
# sparse, MRA-2 and MRA-2-s (the paper's Figure 1 comparison). Methods that
# coincide (MRA-2 and MRA-2-s on a sharp head) stay visible: style.gp's open
# ring around the filled square, dashes over the solid line.
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
@logy
set xlabel "budget (fraction of coefficients / ranks / entries / blocks)"
set ylabel "||A_{approx} - A||_F / ||A||_F"
set grid
# the budget is a fraction: its axis stays inside 0..1
fit_xunit = 1
methods = "haar lowrank topk mra2 mra2s"
@probe
plot for [m in methods] datafile using "keep":m."_rel" with linespoints lw 2 \
     lc rgb mcolor(m) pt mpt(m) ps mps(m) dt mdt(m) title mlabel(m)
@fit
