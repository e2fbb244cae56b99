# plots/mra_haar_matrix.gp — the softmax matrix A, its Haar reconstructions
# at two budgets and their errors (the paper's Figure 1); data from
# `skit mra haar --matrix-out` (columns i, j, A, hat1, err1, hat2, err2).
# Variables: datafile; k1, k2 (labels of the two budgets).
set datafile columnheaders
if (!exists("k1")) k1 = "5%"
if (!exists("k2")) k2 = "10%"
set palette defined (0 "white", 1 "#9ecae1", 2 "#2171b5", 3 "#08306b")
unset key
set size ratio -1
set yrange [*:*] reverse
set xrange [*:*] noextend
unset xtics
unset ytics
# one scale per panel (white = 0), each with its colour bar
set colorbox vertical default
set cbtics font ",7"
set multiplot layout 2,3 margins 0.02, 0.90, 0.03, 0.93 spacing 0.1, 0.1
set title "A"
set cbrange [0:*]
plot datafile using "j":"i":"A" with image
set title "reconstruction, top ".k1
plot datafile using "j":"i":"hat1" with image
set title "|error|, top ".k1
set cbrange [*:*]
plot datafile using "j":"i":"err1" with image
set title "log_{10} A"
plot datafile using "j":"i":(log10(column("A") > 1e-12 ? column("A") : 1e-12)) with image
set title "reconstruction, top ".k2
set cbrange [0:*]
plot datafile using "j":"i":"hat2" with image
set title "|error|, top ".k2
set cbrange [*:*]
plot datafile using "j":"i":"err2" with image
unset multiplot
