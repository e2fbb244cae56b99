# bench_toeplitz.gp — `skit bench toeplitz`: seconds per channel against n
# (log-log) for the dense O(n^2) product, the FFT matvec, the bare FFTW r2c
# of the same length (the floor) and scipy's matmul_toeplitz, as measured in
# one run. Columns that were not measured hold nan and are skipped.
# Variable: datafile.
set logscale xy
set format x "2^{%L}"
set logscale x 2
set format y "10^{%L}"
set xlabel "n (n x n Toeplitz, FFT length = smallest 2^a3^b5^c7^d >= 2n-1)"
set ylabel "seconds per channel"
set title "Toeplitz matvec: skit vs the plain FFTW loop, numpy, scipy, dense"
set key left top opaque
set grid
set style data linespoints
plot datafile using "n":"dense_s" pt 5 title "dense O(n^2)", \
     datafile using "n":"fft_s" pt 7 lw 2 title "skit FFT matvec", \
     datafile using "n":"loop_s" pt 6 dt 2 title "plain FFTW loop, same planner (floor)", \
     datafile using "n":"numpy_s" pt 8 title "numpy FFT, cached spectra", \
     datafile using "n":"scipy_s" pt 9 title "scipy matmul\\_toeplitz"
