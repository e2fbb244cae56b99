# plots/mra_sweep.gp — `skit mra` (sweep): relative error against the budget
# (fraction of the n^2 attention entries) for each method, at one n and one
# temperature. Variables: datafile; methods (space-separated names);
# nsel (n to show); tsel (temperature to show, as written in the table).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("methods")) methods = "mra2 mra2s"
if (!exists("nsel")) nsel = 1024
if (!exists("tsel")) tsel = "1"
set title sprintf("relative error ||Y_{approx} - Y||_F / ||Y||_F, n = %d, temperature %s", nsel, tsel)
@logy
set xlabel "budget (fraction of the n^2 attention entries)"
set ylabel "relative error"
set grid
# the budget is a fraction: its axis stays inside 0..1
fit_xunit = 1
pick(m) = (strcol("method") eq m && column("n") == nsel && strcol("temperature") eq tsel)
# style.gp's colour, point type, size, dash and label per method; smooth unique joins a
# method's points across the other rows (undefined for it)
@probe
plot for [m in methods] datafile using (pick(m) ? column("budget") : NaN):(pick(m) ? column("rel_error") : NaN) \
     smooth unique with linespoints lw 2 pt mpt(m) ps mps(m) dt mdt(m) lc rgb mcolor(m) title mlabel(m)
@fit
