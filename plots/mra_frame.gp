# plots/mra_frame.gp — `skit mra frame`: Observation A.1, the largest
# difference between forms (3) and (5) per random subset, against n.
set datafile columnheaders
set logscale x 2
set logscale y
set format y "10^{%L}"
set xlabel "n"
set ylabel "max |form (3) - form (5)| / max |A|"
set grid
set key off
plot datafile using "n":(column("max_difference") > 0 ? column("max_difference") : 1e-17) with points pt 7
