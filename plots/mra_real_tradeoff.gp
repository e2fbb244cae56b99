# plots/mra_real_tradeoff.gp — time against error on the heads of a real
# model (experiment 35, Figure 4 / Table 7): the median over heads of CPU
# time and relative error of each method at each budget.
# Columns: method, budget, cpu_s, rel_error (exact attention: error 0, not drawn).
set datafile columnheaders
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("methods")) methods = "mra2 mra2s nystrom linformer linformer-fit performer window bigbird lowrank topk"
@logx
@logy
set xlabel "median CPU seconds per head (one thread)"
set ylabel "median relative error"
set grid
pick(m) = (strcol("method") eq m)
# style.gp's colour, point type, size, dash and label per method; smooth
# unique joins a method's points in time order across the other methods'
# (undefined) rows; @fit pads both axes, so no point sits on the frame
@probe
plot for [m in methods] datafile \
     using (pick(m) ? column("cpu_s") : NaN):(pick(m) ? column("rel_error") : NaN) \
     smooth unique with linespoints lw 2 pt mpt(m) ps mps(m) dt mdt(m) lc rgb mcolor(m) title mlabel(m)
@fit
