# bench/bench.mk — `make bench`: every `skit bench` target (tools/bench/),
# results (TSV, JSON where offered, PNG) into bench/results/ of the source
# tree. Never part of `make check`. BENCH_FLAGS=--quick for a fast smoke run.
# FFTW wisdom for the benches' lengths is planned once (MEASURE, no time
# limit) into $(BENCH_WISDOM) and read and extended by every target, so the
# rows run on fully measured plans and planning is paid once per machine.
BENCH_TARGETS = toeplitz ski tno mra
BENCH_RESULTS = $(abs_top_srcdir)/bench/results
BENCH_WISDOM = $(abs_top_builddir)/bench.wisdom
BENCH_FLAGS =
BENCH_PY = /usr/bin/python3

$(BENCH_WISDOM): | tools/skit
	$(abs_top_builddir)/tools/skit wisdom -o $@ --sizes 2^11..2^21 --planner measure

bench: tools/skit $(BENCH_WISDOM)
	@mkdir -p $(BENCH_RESULTS)
	@for t in $(BENCH_TARGETS); do \
	  echo "== skit bench $$t" >&2; \
	  case $$t in mra) w= ;; *) w="--wisdom $(BENCH_WISDOM)" ;; esac; \
	  $(abs_top_builddir)/tools/skit bench $$t $(BENCH_FLAGS) $$w -o $(BENCH_RESULTS)/$$t.tsv \
	    --plot $(BENCH_RESULTS)/$$t.png || exit $$?; \
	done
	@if $(BENCH_PY) -c 'import torch' 2>/dev/null; then \
	  echo "== PyTorch peer of skit bench tno (bench/peers/tno_torch.py)" >&2; \
	  $(BENCH_PY) $(abs_top_srcdir)/bench/peers/tno_torch.py -o $(BENCH_RESULTS)/tno_torch.tsv; \
	else echo "PyTorch peer skipped: $(BENCH_PY) cannot import torch (apt-get install python3-torch)" >&2; fi
	@echo "results in $(BENCH_RESULTS)" >&2
