# plots/style.gp — what every figure shares, loaded first by every script in
# plots/ that draws series (the image panels of mra_haar_matrix, mra_refine
# and mra_supports have none); the caller may set plotdir, else it is the
# script's own directory:
#     if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
#     load plotdir."/style.gp"
#
# The rules (a figure has to show its data):
#  * every series has its own colour, point type AND dash type, so series
#    that coincide stay visible: open markers drawn larger around filled
#    smaller ones, different dashes on top of solid lines (mpt/mps/mdt per
#    method, spt/sps/sdt per series index);
#  * the legend sits outside the data area: right of it (the default set
#    here) or below it (`set key below`, for panels side by side);
#  * a log axis is labelled at decades (10^{k}; powers of two for sizes) and
#    shows at least two labelled ticks; every decade has a tick (minor
#    ticks between labels);
#  * no point on the frame: @probe/@fit pad the data range (see below).
#
# Colours: the Tableau 10 palette (distinct in print and for most colour
# vision deficiencies); exact references are black.

# ---- shared settings --------------------------------------------------------
set key outside right top vertical Left reverse samplen 2.5 spacing 1.1 noopaque nobox
set pointsize 1
set mxtics default
set mytics default
# a row that is NaN for a series (another method's row, a "nan" cell) is
# missing, not a break: a series' line joins its points across other rows
set datafile missing NaN

# ---- one style per method (attention approximations, token mixers, activations)
mcolor(m) = m eq "exact" ? 0x000000 : m eq "mra2" ? 0xd62728 : m eq "mra2s" ? 0xff7f0e : \
    m eq "nystrom" ? 0x1f77b4 : m eq "linformer" ? 0x2ca02c : m eq "performer" ? 0x9467bd : \
    m eq "linformer-fit" ? 0x006d2c : m eq "window" ? 0x8c564b : m eq "bigbird" ? 0xe377c2 : m eq "lowrank" ? 0x17becf : \
    m eq "topk" ? 0xbcbd22 : m eq "haar" ? 0x7f7f7f : \
    m eq "tno" ? 0x000000 : m eq "fd" ? 0x1f77b4 : m eq "ski" ? 0x2ca02c : \
    m eq "ski-blocked" ? 0x98df8a : m eq "ski-lowrank" ? 0x006d2c : m eq "matvec" ? 0x7f7f7f : m eq "dense" ? 0x8c564b : \
    m eq "gelu" ? 0x1f77b4 : m eq "silu" ? 0xff7f0e : m eq "relu" ? 0x2ca02c : 0x444444
# point types: 4/6/8/10/12/14 open square/circle/triangle/down-triangle/
# diamond/pentagon, one more than each the filled one; open markers are
# drawn larger (mps), so that a filled marker at the same place shows inside
# (MRA-2's ring around MRA-2-s's square, BigBird's around window's pentagon)
mpt(m) = m eq "exact" ? 1 : m eq "mra2" ? 6 : m eq "mra2s" ? 5 : m eq "nystrom" ? 9 : \
    m eq "linformer" ? 11 : m eq "performer" ? 13 : m eq "window" ? 15 : m eq "bigbird" ? 4 : \
    m eq "linformer-fit" ? 10 : m eq "lowrank" ? 12 : m eq "topk" ? 8 : m eq "haar" ? 10 : \
    m eq "tno" ? 5 : m eq "fd" ? 9 : m eq "ski" ? 13 : m eq "ski-blocked" ? 11 : m eq "ski-lowrank" ? 12 : \
    m eq "matvec" ? 7 : m eq "dense" ? 4 : m eq "gelu" ? 7 : m eq "silu" ? 9 : m eq "relu" ? 5 : 14
mps(m) = m eq "mra2" || m eq "bigbird" ? 1.8 : m eq "mra2s" || m eq "window" ? 0.8 : \
    m eq "exact" ? 1.4 : (mpt(m) % 2 == 0 ? 1.3 : 1.0)
# dash types: 1 solid, 2 dashed, 3 dotted, 4 dash-dot, 5 dash-dot-dot, and
# strings of - (dash), _ (long dash), . (dot), space
mdt(m) = m eq "exact" ? 1 : m eq "mra2" ? 1 : m eq "mra2s" ? 2 : m eq "nystrom" ? 4 : \
    m eq "linformer" ? 5 : m eq "performer" ? "_ " : m eq "window" ? "__  " : m eq "bigbird" ? 3 : \
    m eq "linformer-fit" ? "-.." : m eq "lowrank" ? "_." : m eq "topk" ? "- " : m eq "haar" ? "_.." : \
    m eq "tno" ? 1 : m eq "fd" ? 2 : m eq "ski" ? 4 : m eq "ski-blocked" ? 5 : m eq "ski-lowrank" ? "_." : \
    m eq "matvec" ? "__  " : m eq "dense" ? "_.." : m eq "gelu" ? 1 : m eq "silu" ? 2 : m eq "relu" ? 4 : 1
# the open and the filled variant of a point type (1-3 have none)
popen(p) = p >= 4 && p % 2 == 1 ? p - 1 : p
pfilled(p) = p >= 4 && p % 2 == 0 ? p + 1 : p
mlabel(m) = m eq "mra2" ? "MRA-2" : m eq "mra2s" ? "MRA-2-s" : m eq "nystrom" ? "Nyströmformer" : \
    m eq "linformer" ? "Linformer" : m eq "linformer-fit" ? "Linformer, F fitted (oracle)" : \
    m eq "performer" ? "Performer" : m eq "window" ? "window" : \
    m eq "bigbird" ? "BigBird" : m eq "lowrank" ? "best low rank (SVD)" : \
    m eq "topk" ? "best sparse (top entries)" : m eq "haar" ? "Haar top-k" : \
    m eq "exact" ? "exact attention" : m

# ---- one style per series index i = 1, 2, ... (scripts that colour by lc i)
# spt: shapes and fills alternate, all twelve distinct; sshape: the filled
# shape alone, for scripts that draw a second quantity per series with its
# open variant (popen); sps: open markers larger
spt(i) = word("7 4 9 10 13 14 5 6 11 8 15 12", (i - 1) % 12 + 1) + 0
sshape(i) = word("7 5 9 11 13 15", (i - 1) % 6 + 1) + 0
sps(i) = spt(i) % 2 == 0 ? 1.3 : 0.9
sdt_(j) = j == 0 ? 1 : j == 1 ? 2 : j == 2 ? 4 : j == 3 ? 5 : j == 4 ? 3 : \
    j == 5 ? "_." : j == 6 ? "__  " : j == 7 ? "-.." : "_.."
sdt(i) = sdt_((i - 1) % 9)

# ---- log axes ---------------------------------------------------------------
# @logx / @logy: a decade axis labelled 10^{k}; @log2x: sizes, labelled at
# powers of two. Each records its base for @fit.
logx = 'set logscale x 10; set format x "10^{%L}"; fit_xlog = 10'
logy = 'set logscale y 10; set format y "10^{%L}"; fit_ylog = 10'
log2x = 'set logscale x 2; set format x "2^{%L}"; fit_xlog = 2'
linx = 'unset logscale x; set format x "% h"; fit_xlog = 0'
liny = 'unset logscale y; set format y "% h"; fit_ylog = 0'
fit_xlog = 0
fit_ylog = 0

# ---- ranges that fit the data -----------------------------------------------
# gnuplot's autoscale either ends an axis exactly at the data (`fix`: points
# cut by the frame, and a log axis inside one decade without a label) or
# extends it to the next tick (with offsets: a tick further still, e.g. a
# fraction axis from -0.1). Instead a script plots twice:
#     @probe
#     plot ...      (into a table: only the data ranges, GPVAL_DATA_*, result)
#     @fit          (pad each axis in fit_axes by fit_pad of its span; widen
#                    a log axis to whole decades (powers of the base) only as
#                    far as two labelled ticks need; replot)
# Axes not in fit_axes keep the script's range (e.g. a fraction axis [0:1]).
fit_axes = "xy"
fit_pad = 0.05
# a base-2 x axis labels at most about fit_x2max powers of two (every
# second, fourth, ... power beyond); narrow panels set fewer
fit_x2max = 10
# [fit_lo, fit_hi] for data [a, b] on an axis of log base lb (0: linear);
# a single value on a log axis gets half a decade (power) each side
fit_lin(a, b) = (fit_s = b > a ? b - a : (a != 0 ? 0.2 * abs(a) : 1), \
    fit_lo = a - fit_pad * fit_s, fit_hi = b + fit_pad * fit_s, 0)
fit_log(la, lb, base) = (fit_s = lb > la ? fit_pad * (lb - la) : 0.5, \
    fit_l = la - fit_s, fit_h = lb + fit_s, \
    fit_n = floor(fit_h) - ceil(fit_l) + 1, fit_el = 0, fit_eh = 0, \
    fit_n >= 2 ? 0 : fit_n == 1 ? \
        (fit_l - floor(fit_l) < ceil(fit_h) - fit_h ? (fit_el = 1) : (fit_eh = 1)) : (fit_el = 1, fit_eh = 1), \
    fit_el ? (fit_l = floor(fit_l)) : 0, fit_eh ? (fit_h = ceil(fit_h)) : 0, \
    fit_S = fit_h - fit_l, \
    fit_el && la - fit_l < fit_pad / 2 * fit_S ? (fit_l = fit_l - 1) : 0, \
    fit_eh && fit_h - lb < fit_pad / 2 * fit_S ? (fit_h = fit_h + 1) : 0, \
    fit_lo = base ** fit_l, fit_hi = base ** fit_h, 0)
# a fraction axis (fit_xunit, fit_yunit = 1) stays inside [0, 1]
fit_xunit = 0
fit_yunit = 0
fit_clamp(unit) = unit ? (fit_lo = fit_lo < 0 ? 0 : fit_lo, fit_hi = fit_hi > 1 ? 1 : fit_hi, 0) : 0
fit_range(a, b, lb) = lb > 0 ? fit_log(log(a) / log(lb), log(b) / log(lb), lb) : fit_lin(a, b)
probe = 'if (strstrt(fit_axes, "x")) { set autoscale x }; if (strstrt(fit_axes, "y")) { set autoscale y }; set table $fit_probe'
fit = 'unset table; \
    if (strstrt(fit_axes, "x") && GPVAL_DATA_X_MIN <= GPVAL_DATA_X_MAX) { fit_ok = fit_range(GPVAL_DATA_X_MIN, GPVAL_DATA_X_MAX, fit_xlog) + fit_clamp(fit_xunit); set xrange [fit_lo:fit_hi]; \
        if (fit_xlog == 2) { fit_k = ceil((fit_h - fit_l) / fit_x2max); \
            if (fit_k > 1) { set xtics 2 ** (fit_k * ceil(fit_l / fit_k)), 2 ** fit_k } else { set xtics autofreq } } }; \
    if (strstrt(fit_axes, "y") && GPVAL_DATA_Y_MIN <= GPVAL_DATA_Y_MAX) { fit_ok = fit_range(GPVAL_DATA_Y_MIN, GPVAL_DATA_Y_MAX, fit_ylog) + fit_clamp(fit_yunit); set yrange [fit_lo:fit_hi] }; \
    replot'
