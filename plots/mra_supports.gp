# plots/mra_supports.gp — the MRA paper's Figure 8: sparse supports at 80%
# sparsity for three attention patterns; rows: the optimal scattered
# support (the largest entries of A), the optimal squares (largest mu'),
# MRA-2's squares (largest mu^2). Data: `skit mra-appendix sparse-lowrank
# --supports PREFIX_<pattern>` (columns i, j, support).
# Variables: prefix (the files are prefix_<pattern>.{entry,optimal,proxy}.tsv).
set datafile columnheaders
set palette defined (0 "white", 1 "#d62728")
set cbrange [0:1]
unset colorbox
unset key
set size ratio -1
set yrange [*:*] reverse noextend
set xrange [*:*] noextend
unset xtics
unset ytics
set multiplot layout 3,3 margins 0.12, 0.98, 0.02, 0.94 spacing 0.02, 0.05
patterns = "diagonal vertical block"
kinds = "entry optimal proxy"
klabel(k) = k eq "entry" ? "optimal entries" : k eq "optimal" ? "optimal squares (mu')" : "MRA-2 squares (mu^2)"
do for [k in kinds] {
    do for [p in patterns] {
        set title (k eq "entry" ? p : "")
        if (p eq "diagonal") { set ylabel klabel(k) font ",9" } else { unset ylabel }
        plot sprintf("%s_%s.%s.tsv", prefix, p, k) using "j":"i":"support" with image
    }
}
unset multiplot
