# ski_chain.gp — where Theorem 1's bound becomes loose: the measured
# ||E_SKI||_2 and each level of the Appendix D proof's chain of inequalities
# against r for one series (a skit ski-bound TSV filtered to one kernel and
# interpolation scheme). Each level its own colour, point type and dash.
# Variables: datafile, title_text.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("title_text")) title_text = "Theorem 1: the proof's chain of inequalities"
@log2x
set format x "%g"
@logy
set xlabel "inducing points r"
set ylabel "spectral norm"
set title title_text
set key font ",9"
set grid
set style data linespoints
@probe
plot datafile using "r":"e_ski" lw 3 lc rgb "black" pt 7 dt 1 title "measured ||E_{SKI}||", \
     datafile using "r":"chain1_triangle" lc 1 pt spt(2) ps sps(2) dt sdt(2) title "1 triangle: ||WAW^T-FA^{-1}B|| + ||E_{nyst}||", \
     datafile using "r":"chain2_eq12" lc 2 pt spt(3) ps sps(3) dt sdt(3) title "2 eqs (1)/(2)", \
     datafile using "r":"chain3_sigma" lc 3 pt spt(4) ps sps(4) dt sdt(4) title "3 ||FA^{-1}|| -> {/Symbol s}_1(F)/{/Symbol s}_r(A)", \
     datafile using "r":"chain4_frobenius" lc 4 pt spt(5) ps sps(5) dt sdt(5) title "4 spectral -> Frobenius", \
     datafile using "r":"chain5_interp" lc 5 pt spt(6) ps sps(6) dt sdt(6) title "5 Frobenius -> sqrt(nr) {/Symbol y} L", \
     datafile using "r":"chain6_w_inf" lc 6 pt spt(7) ps sps(7) dt sdt(7) title "6 ||W||_2 -> sqrt(n) ||W||_{/Symbol \245}", \
     datafile using "r":"chain7_rhs" lc 7 pt spt(8) ps sps(8) dt sdt(8) lw 2 title "7 = Theorem 1 right-hand side", \
     datafile using "r":"e_nyst" with lines lw 1.5 dt "__  " lc rgb "gray40" title "||E_{nyst}||", \
     datafile using "r":"sigma_next" with lines lw 1.5 dt 3 lc rgb "gray40" title "{/Symbol s}_{r+1}(T)"
@fit
