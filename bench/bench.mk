# bench/bench.mk — skit-bench (also `skit bench <target>`): the dispatcher,
# one file per benchmark target and their shared timing / peer / floor
# helpers (common.c); the Python peers in bench/peers/. `skit bench device`
# (CPU vs GPU) is built in every configuration: without a device it times
# the CPU side only.
bin_PROGRAMS += bench/skit-bench
# (without main.c: the fuzz harness links these into its in-process skit)
SKIT_BENCH_SOURCES = bench/cmd_bench.c bench/common.c bench/common.h \
	bench/bench_toeplitz.c bench/bench_ski.c bench/bench_tno.c bench/bench_tno_peer.c \
	bench/bench_mra.c bench/bench_device.c bench/bench_precision.c
bench_skit_bench_SOURCES = bench/main.c $(SKIT_BENCH_SOURCES)
# the floors call FFTW (bare r2c / c2r) and BLAS (GEMM) directly, the
# Toeplitz solve comparison LAPACKE (dgesv): SKIT_PROGRAM_LDADD has them
bench_skit_bench_LDADD = $(SKIT_PROGRAM_LDADD)
bench_skit_bench_LDFLAGS = $(SKIT_PROGRAM_LDFLAGS)

# `make bench`: every `skit bench` target, each into its own folder
# bench/results/<target>/ of the source tree (TSV and PNG; the folder's
# README says what the run shows), replacing the committed run: history is
# `git log -- bench/results`. Paths in the tables' headers are relative to
# the source tree. Never part of `make check`. BENCH_FLAGS=--quick for a
# fast smoke run.
# FFTW wisdom for the benches' lengths is planned once (MEASURE, no time
# limit) into $(BENCH_WISDOM) and read and extended by every target, so the
# rows run on fully measured plans and planning is paid once per machine.
BENCH_TARGETS = toeplitz ski tno mra
BENCH_WISDOM = $(abs_top_builddir)/bench.wisdom
BENCH_FLAGS =
BENCH_PY = /usr/bin/python3

$(BENCH_WISDOM): | tools/skit
	$(abs_top_builddir)/tools/skit wisdom -o $@ --sizes 2^11..2^21 --planner measure

bench: tools/skit bench/skit-bench $(BENCH_WISDOM)
	@cd $(abs_top_srcdir) && for t in $(BENCH_TARGETS); do \
	  echo "== skit bench $$t" >&2; \
	  case $$t in mra) w= ;; *) w="--wisdom $(BENCH_WISDOM)" ;; esac; \
	  mkdir -p bench/results/$$t && \
	  $(abs_top_builddir)/tools/skit bench $$t $(BENCH_FLAGS) $$w -o bench/results/$$t/$$t.tsv \
	    --plot bench/results/$$t/$$t.png || exit $$?; \
	done
	@echo "results in $(abs_top_srcdir)/bench/results/<target>/" >&2
