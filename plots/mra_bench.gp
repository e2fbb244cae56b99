# plots/mra_bench.gp — `skit bench mra`: time per call against n (log-log)
# for exact attention, MRA-2 and MRA-2-s (style.gp's colour, point type and
# dash per method).
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
@log2x
@logy
set xlabel "n"
set ylabel "seconds per call"
set grid
pick(m) = strcol("method") eq m
lab(m) = m eq "exact" ? "exact (blocked)" : mlabel(m)
methods = "exact mra2 mra2s"
@probe
plot for [m in methods] datafile using (pick(m) ? column("n") : NaN):(pick(m) ? column("time_s") : NaN) \
     with linespoints lw 2 pt mpt(m) ps mps(m) dt mdt(m) lc rgb mcolor(m) title lab(m)
@fit
