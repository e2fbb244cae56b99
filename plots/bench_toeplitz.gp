# bench_toeplitz.gp — `skit bench toeplitz`: seconds per channel against n
# (log-log) for the dense O(n^2) product, the FFT matvec, the bare FFTW r2c
# of the same length (the floor) and scipy's matmul_toeplitz, as measured in
# one run. Columns that were not measured hold nan and are skipped.
# Variable: datafile.
if (!exists("plotdir")) plotdir = system("dirname '".ARG0."'")
load plotdir."/style.gp"
@log2x
@logy
set xlabel "n (n x n Toeplitz, FFT length = smallest 2^a3^b5^c7^d >= 2n-1)"
set ylabel "seconds per channel"
set title "Toeplitz matvec: skit vs the plain FFTW loop, numpy, scipy, dense"
set grid
set style data linespoints
@probe
plot datafile using "n":"dense_s" lw 1.5 lc 1 pt spt(1) ps sps(1) dt sdt(1) title "dense O(n^2)", \
     datafile using "n":"fft_s" lw 2 lc 2 pt spt(2) ps sps(2) dt sdt(2) title "skit FFT matvec", \
     datafile using "n":"loop_s" lw 1.5 lc 3 pt spt(3) ps sps(3) dt sdt(3) title "plain FFTW loop (floor)", \
     datafile using "n":"numpy_s" lw 1.5 lc 4 pt spt(4) ps sps(4) dt sdt(4) title "numpy FFT, cached spectra", \
     datafile using "n":"scipy_s" lw 1.5 lc 5 pt spt(5) ps sps(5) dt sdt(5) title "scipy matmul\\_toeplitz"
@fit
