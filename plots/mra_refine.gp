# plots/mra_refine.gp — the MRA paper's Figures 3 and 6: Algorithm 1's
# refinement with R = {16, 4, 1} on A = exp(P), stage by stage, on a
# linear scale (top) and a log scale (bottom), each panel with its colour
# bar. Data: `skit mra-appendix refine` (columns i, j, A, stage1..3).
set datafile columnheaders
set palette defined (0 "white", 1 "#9ecae1", 2 "#2171b5", 3 "#08306b")
unset key
set size ratio -1
set yrange [*:*] reverse noextend
set xrange [*:*] noextend
unset xtics
unset ytics
set colorbox vertical default
set cbtics font ",7"
set multiplot layout 2,4 margins 0.02, 0.93, 0.03, 0.93 spacing 0.09, 0.1
cols = "A stage1 stage2 stage3"
ctitle(c) = c eq "A" ? "A = exp(P)" : c eq "stage1" ? "R = \\{16\\}: block means" : \
    c eq "stage2" ? "+ refined to 4" : "+ refined to 1"
set cbrange [0:*]
do for [c in cols] {
    set title ctitle(c) font ",9"
    plot datafile using "j":"i":c with image
}
set cbrange [*:*]
do for [c in cols] {
    set title "log_{10} ".ctitle(c) font ",9"
    plot datafile using "j":"i":(log10(column(c) > 1e-12 ? column(c) : 1e-12)) with image
}
unset multiplot
