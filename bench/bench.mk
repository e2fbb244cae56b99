# bench/bench.mk — `make bench`: every `skit bench` target (tools/bench/),
# results (TSV, JSON where offered, PNG) into bench/results/ of the source
# tree. Never part of `make check`. BENCH_FLAGS=--quick for a fast smoke run.
BENCH_TARGETS = toeplitz ski tno mra
BENCH_RESULTS = $(abs_top_srcdir)/bench/results
BENCH_FLAGS =

bench: tools/skit
	@mkdir -p $(BENCH_RESULTS)
	@for t in $(BENCH_TARGETS); do \
	  echo "== skit bench $$t" >&2; \
	  $(abs_top_builddir)/tools/skit bench $$t $(BENCH_FLAGS) -o $(BENCH_RESULTS)/$$t.tsv \
	    --plot $(BENCH_RESULTS)/$$t.png || exit $$?; \
	done
	@echo "results in $(BENCH_RESULTS)" >&2
