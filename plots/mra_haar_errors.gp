# plots/mra_haar_errors.gp — `skit mra haar`: ||Ahat - A||_F / ||A||_F of the
# softmax matrix at equal budgets: Haar top coefficients, best low rank, best
# sparse, MRA-2 and MRA-2-s (the paper's Figure 1 comparison).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set logscale y
set format y "10^{%L}"
set xlabel "budget (fraction of coefficients / ranks / entries / blocks)"
set ylabel "||A_{approx} - A||_F / ||A||_F"
set grid
set key outside right top
plot datafile using "keep":"haar_rel" with linespoints lw 2 lc rgb mcolor("haar") pt mpt("haar") title mlabel("haar"), \
     datafile using "keep":"lowrank_rel" with linespoints lw 2 pt mpt("lowrank") lc rgb mcolor("lowrank") title mlabel("lowrank"), \
     datafile using "keep":"topk_rel" with linespoints lw 2 pt mpt("topk") lc rgb mcolor("topk") title mlabel("topk"), \
     datafile using "keep":"mra2_rel" with linespoints lw 2 pt mpt("mra2") lc rgb mcolor("mra2") title mlabel("mra2"), \
     datafile using "keep":"mra2s_rel" with linespoints lw 2 pt mpt("mra2s") lc rgb mcolor("mra2s") title mlabel("mra2s")
