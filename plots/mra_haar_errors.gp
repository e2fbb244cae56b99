# plots/mra_haar_errors.gp — `skit mra haar`: ||Ahat - A||_F / ||A||_F of the
# softmax matrix at equal budgets: Haar top coefficients, best low rank, best
# sparse, MRA-2 and MRA-2-s (the paper's Figure 1 comparison).
set datafile columnheaders
set logscale y
set format y "10^{%L}"
set xlabel "budget (fraction of coefficients / ranks / entries / blocks)"
set ylabel "||A_{approx} - A||_F / ||A||_F"
set grid
set key outside right top
plot datafile using "keep":"haar_rel" with linespoints lw 2 pt 7 title "Haar top-k", \
     datafile using "keep":"lowrank_rel" with linespoints lw 2 pt 5 title "low rank (SVD)", \
     datafile using "keep":"topk_rel" with linespoints lw 2 pt 9 title "sparse (top entries)", \
     datafile using "keep":"mra2_rel" with linespoints lw 2 pt 11 title "MRA-2", \
     datafile using "keep":"mra2s_rel" with linespoints lw 2 pt 13 title "MRA-2-s"
