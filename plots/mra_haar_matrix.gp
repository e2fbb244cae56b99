# plots/mra_haar_matrix.gp — the softmax matrix A, its Haar reconstructions
# at two budgets and their errors (the paper's Figure 1); data from
# `skit mra haar --matrix-out` (columns i, j, A, hat1, err1, hat2, err2).
# Variables: datafile; k1, k2 (labels of the two budgets).
set datafile columnheaders
if (!exists("k1")) k1 = "5%"
if (!exists("k2")) k2 = "10%"
set palette defined (0 "white", 1 "#4575b4", 2 "#313695")
unset key
set size ratio -1
set yrange [*:*] reverse
unset xtics
unset ytics
set multiplot layout 1,5
set title "A"
plot datafile using "j":"i":"A" with image
set title "top ".k1
plot datafile using "j":"i":"hat1" with image
set title "error ".k1
plot datafile using "j":"i":"err1" with image
set title "top ".k2
plot datafile using "j":"i":"hat2" with image
set title "error ".k2
plot datafile using "j":"i":"err2" with image
unset multiplot
