# plots/style.gp — one colour, point type and label per method (attention
# approximations, token mixers, activations), loaded by every plot script
# that draws methods, so that a method looks the same in every figure.
# Colours: the Tableau 10 palette (distinct in print and for most colour
# vision deficiencies); exact references are black.
mcolor(m) = m eq "exact" ? 0x000000 : m eq "mra2" ? 0xd62728 : m eq "mra2s" ? 0xff7f0e : \
    m eq "nystrom" ? 0x1f77b4 : m eq "linformer" ? 0x2ca02c : m eq "performer" ? 0x9467bd : \
    m eq "window" ? 0x8c564b : m eq "bigbird" ? 0xe377c2 : m eq "lowrank" ? 0x17becf : \
    m eq "topk" ? 0xbcbd22 : m eq "haar" ? 0x7f7f7f : \
    m eq "tno" ? 0x000000 : m eq "fd" ? 0x1f77b4 : m eq "ski" ? 0x2ca02c : \
    m eq "ski-blocked" ? 0x98df8a : m eq "ski-lowrank" ? 0x006d2c : m eq "matvec" ? 0x7f7f7f : m eq "dense" ? 0x8c564b : \
    m eq "gelu" ? 0x1f77b4 : m eq "silu" ? 0xff7f0e : m eq "relu" ? 0x2ca02c : 0x444444
mpt(m) = m eq "exact" ? 1 : m eq "mra2" ? 7 : m eq "mra2s" ? 5 : m eq "nystrom" ? 9 : \
    m eq "linformer" ? 11 : m eq "performer" ? 13 : m eq "window" ? 15 : m eq "bigbird" ? 4 : \
    m eq "lowrank" ? 6 : m eq "topk" ? 8 : m eq "haar" ? 10 : 12
mlabel(m) = m eq "mra2" ? "MRA-2" : m eq "mra2s" ? "MRA-2-s" : m eq "nystrom" ? "Nyströmformer" : \
    m eq "linformer" ? "Linformer" : m eq "performer" ? "Performer" : m eq "window" ? "window" : \
    m eq "bigbird" ? "BigBird" : m eq "lowrank" ? "best low rank (SVD)" : \
    m eq "topk" ? "best sparse (top entries)" : m eq "haar" ? "Haar top-k" : \
    m eq "exact" ? "exact attention" : m
