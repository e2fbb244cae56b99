# freq_summary.gp — `skit decay summary`: fitted polynomial exponent of
# every row (activation/norm/construction/seed/channel). Variables: datafile.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
set title 'Fitted decay: |k[n]| \~ n^{-p} (p large = faster than polynomial)'
set ylabel "fitted exponent p"
@logy
set format y "%g"
set grid ytics
set xtics rotate by 60 right font ",7" noenhanced
set key off
@probe
plot datafile using 0:"poly_exponent":xticlabels(sprintf("%s/%s/%s/%s", strcol(1), strcol(2), strcol(3), strcol(5))) \
     with points pt 7 lc 1
@fit
