# tests/figures.mk — figures that show their data: representative
# `skit ... --plot` figures drawn as SVG and read back (data inside the
# frame, two labelled ticks per axis, no point cut by the frame); skipped
# without gnuplot
TESTS += tests/figures.sh
