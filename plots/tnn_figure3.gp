# plots/tnn_figure3.gp — TNN Figure 3: each block's Toeplitz matrix |T|_ij =
# a(i - j) (a: the mean over channels of |k_c|), scaled to 1 in each panel;
# rows the blocks (0, 1, ...), columns lambda = 0.99 and lambda = 1, untrained and
# trained. Data: experiments/56_tnn_figure3.sh (columns i, j and
# VARIANT_WHICH_LAYER, VARIANT decay or nodecay, WHICH init or trained).
# Variables: datafile; layers (the blocks); n (the size); w (the band
# |i - j| <= w whose share the experiment measures, marked by dashed lines).
set datafile columnheaders
if (!exists("layers")) layers = 2
if (!exists("n")) n = 128
if (!exists("w")) w = 8
set arrow 1 from first 0, w to first n - 1 - w, n - 1 nohead dt 2 lc rgb "#d62728" front
set arrow 2 from first w, 0 to first n - 1, n - 1 - w nohead dt 2 lc rgb "#d62728" front
set palette defined (0 "white", 1 "#9ecae1", 2 "#2171b5", 3 "#08306b")
set cbrange [0:1]
unset key
set size ratio -1
set yrange [*:*] reverse noextend
set xrange [*:*] noextend
unset xtics
unset ytics
set cbtics 0.25 font ",8"
set multiplot layout layers, 4 margins 0.06, 0.91, 0.03, 0.90 spacing 0.02, 0.06
set label 1 "|T| / max |T|" at screen 0.94, 0.9 center font ",9"
vlabel(v) = v eq "decay" ? "{/Symbol l} = 0.99" : "{/Symbol l} = 1"
wlabel(k) = k eq "init" ? "untrained" : "trained"
do for [l = 0:layers - 1] {
    do for [v in "decay nodecay"] {
        do for [k in "init trained"] {
            set title (l == 0 ? vlabel(v).", ".wlabel(k) : "") font ",10"
            if (v eq "decay" && k eq "init") { set ylabel sprintf("block %d", l) } else { unset ylabel }
            if (l == layers - 1 && v eq "nodecay" && k eq "trained") { set colorbox user origin screen 0.93, 0.15 size screen 0.02, 0.7 } else { unset colorbox }
            plot datafile using "j":"i":(column(v."_".k."_".l)) with image
            unset label 1
        }
    }
}
unset multiplot
