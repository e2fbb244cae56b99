# plots/mra_bounds.gp — `skit mra bounds`: Proposition 4.5's measured error
# and bound against the budget, and Lemma 4.1's largest ratio
# (mu* - mu) / (C_r mu) (<= 1 where the lemma holds).
set datafile columnheaders
set datafile missing "nan"
set logscale y
set format y "10^{%L}"
set xlabel "fraction of squares computed exactly (m_1 / (n/b)^2)"
set grid
set offsets graph 0.05, graph 0.05, 0, 0
set key top right
set xtics format "%.2g"
set multiplot layout 1,2
set title "Proposition 4.5"
set ylabel "relative error"
plot datafile using "budget":"prop_measured" with points pt 7 title "measured", \
     datafile using "budget":"prop_bound" with points pt 6 title "bound"
set title "Lemma 4.1"
set ylabel "max (mu* - mu) / (C_r mu)"
set xlabel "square side"
set logscale x 2
set xtics format "%g"
plot datafile using "block":(column("lemma_max_ratio") > 0 ? column("lemma_max_ratio") : NaN) with points pt 7 title "r measured", \
     datafile using "block":(column("lemma_max_ratio_holder") > 0 ? column("lemma_max_ratio_holder") : NaN) with points pt 6 title "r = 2 {/Symbol b}_1{/Symbol b}_2", \
     1 with lines dt 2 lc rgb "red" title "bound"
unset multiplot
