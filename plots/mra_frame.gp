# plots/mra_frame.gp — `skit mra frame`: Observation A.1, the largest
# difference between forms (3) and (5) per random subset, against n.
# An exact 0 has no logarithm: drawn as an open triangle at the axis's foot
# (below the data), the key says so.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set datafile columnheaders
@log2x
set format x "%g"
@logy
set xlabel "n"
set ylabel "max |form (3) - form (5)| / max |A|"
set grid
nz(v) = v > 0 ? v : NaN
@probe
plot datafile using "n":(nz(column("max_difference"))) with points
unset table
if (GPVAL_DATA_Y_MIN > GPVAL_DATA_Y_MAX) { ylo = 1e-17; yhi = 1e-15 } else { ylo = GPVAL_DATA_Y_MIN; yhi = GPVAL_DATA_Y_MAX }
ok = fit_range(GPVAL_DATA_X_MIN, GPVAL_DATA_X_MAX, fit_xlog)
set xrange [fit_lo:fit_hi]
ok = fit_range(ylo, yhi, fit_ylog)
# a row below the data for the exact zeros
lo = log10(fit_lo) - 0.08 * (log10(fit_hi) - log10(fit_lo))
set yrange [10 ** lo:fit_hi]
foot = 10 ** (lo + 0.04 * (log10(fit_hi) - lo))
plot datafile using "n":(nz(column("max_difference"))) with points pt 7 lc 1 title "one random subset", \
     datafile using "n":(column("max_difference") == 0 ? foot : NaN) with points pt 10 ps 1.3 lc 2 title "one subset, exactly 0 (at the foot)"
