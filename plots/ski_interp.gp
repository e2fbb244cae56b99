# ski_interp.gp — SKI error ||T - W A W^T||_2 / ||T||_2 against r for each
# interpolation scheme and kernel (one colour per series), log-log.
# Variables: datafile (skit ski-bound TSV), nseries, titles.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
if (!exists("nseries")) nseries = 1
if (!exists("titles")) titles = ''
label(s) = (words(titles) > s) ? word(titles, s + 1) : sprintf("series %d", s)
@log2x
set format x "%g"
@logy
set xlabel "inducing points r"
set ylabel "||T - W A W^T||_2 / ||T||_2"
set title "SKI error by interpolation scheme (dotted: {/Symbol s}_{r+1}(T)/||T||, the best rank-r error)"
set key font ",9"
set grid
set style data linespoints
# each series its own colour, point type and dash; dotted (the same colour):
# its best rank-r error
@probe
plot for [s=0:nseries-1] datafile using "r":(column("series") == s ? column("ski_error") / column("t_norm") : NaN) \
        lw 1.5 lc s + 1 pt spt(s + 1) ps sps(s + 1) dt sdt(s % 2 + 1) title label(s), \
     for [s=0:nseries-1] datafile using "r":(column("series") == s ? column("sigma_next") / column("t_norm") : NaN) \
        with lines lc s + 1 dt 3 notitle
@fit
