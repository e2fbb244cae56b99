# tests/fuzz.mk — hardening (included from tests/tests.mk):
#
#   make check       also runs tests/test_fuzz_replay (every input of the fuzz
#                    corpus tests/fuzz/corpus/ through its target: the
#                    regression tests of what the fuzzers found),
#                    tests/cli_badinput.sh (one test per bad-input class and
#                    subcommand) and tests/cli_determinism.sh (byte-identical
#                    output across runs and thread counts)
#   make fuzz-build  builds the libFuzzer targets with clang into tests/fuzz/
#                    of the build directory (independent of the gcc build)
#   make fuzz-smoke  builds them and runs each for FUZZ_SECONDS (default 30)
#   make fuzz        builds them and runs each for FUZZ_SECONDS (default 600)
#   make memcheck    the check suites (CK_FORK=no) and the CLI tests under
#                    valgrind memcheck: zero errors, no definite leaks (slow,
#                    not part of `make check`; needs a build without
#                    --enable-sanitizers)
#
# Fuzz targets (tests/fuzz/): fuzz-npy (skit_npy_parse), fuzz-tsv
# (skit_tsv_parse), fuzz-wisdom (skit_fft_wisdom_import_file), fuzz-cli (the command line of each subcommand,
# SKIT_FUZZ_COMMAND=<name>; tests/fuzz/fuzz_cli.c explains its sandbox and
# size caps), fuzz-checkpoint (a checkpoint directory read as `skit train
# --resume` reads it). New corpus entries go to tests/fuzz/work/<target>/ of the build
# directory, crashes to tests/fuzz/crashes/; copy a crash input into
# tests/fuzz/corpus/<target>/ to make it a regression test.

# ---- corpus replay (gcc build, part of make check) ------------------------
check_PROGRAMS += tests/test_fuzz_replay
tests_test_fuzz_replay_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_io.c tests/fuzz/fuzz_wisdom.c tests/fuzz/fuzz_cli.c \
	tests/fuzz/fuzz.h tests/fuzz/tool_main.h $(fuzz_skit_sources)
# every command of skit in one process: tools/skit.c brings cli_commands[]
# and its main(), renamed here; `train` and `bench` call skit-train's and
# skit-bench's code directly instead of running those programs
fuzz_skit_sources = $(tools_skit_SOURCES) $(cli_libskitcli_la_SOURCES) $(SKIT_TRAIN_SOURCES) $(SKIT_BENCH_SOURCES)
tests_test_fuzz_replay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -Dmain=skit_tool_main \
	-DSKIT_ALIASES_IN_PROCESS -include $(top_srcdir)/tests/fuzz/tool_main.h
tests_test_fuzz_replay_CFLAGS = $(AM_CFLAGS)
tests_test_fuzz_replay_LDADD = libskit.la $(SKIT_DEP_LIBS)
TESTS += tests/test_fuzz_replay tests/cli_badinput.sh tests/cli_determinism.sh
# (tests/fuzz file by file: a build directory's tests/fuzz/ holds objects
# that `make dist` would copy along with the directory)
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/hooks.c tests/fuzz/libfuzzer_cli.c \
	tests/fuzz/libfuzzer_npy.c tests/fuzz/libfuzzer_tsv.c tests/fuzz/libfuzzer_wisdom.c \
	tests/fuzz/libfuzzer_checkpoint.c tests/fuzz/make-corpus.py tests/fuzz/make-checkpoint-corpus.sh \
	tests/fuzz/run-fuzzers.sh tests/cli_badinput.sh tests/cli_determinism.sh tests/lsan.supp \
	tests/valgrind.supp

# ---- libFuzzer targets (clang) --------------------------------------------
FUZZ_CC = clang
FUZZ_SANITIZE = address,undefined
# memory requests above this many bytes are refused inside fuzz-cli
FUZZ_MEMORY_CAP = 134217728
FUZZ_DEFS = -I$(top_srcdir)/lib -I$(top_srcdir) -I$(top_srcdir)/tools -I$(top_srcdir)/tests/fuzz -I$(top_builddir) \
	-DSKIT_SOURCE_DIR='"$(abs_top_srcdir)"' -DSKIT_BUILD_DIR='"$(abs_top_builddir)"' \
	-DSKIT_PKGDATADIR='"$(pkgdatadir)"' -DSKIT_FUZZ_MEMORY_CAP=$(FUZZ_MEMORY_CAP) -DSKIT_FUZZ_HOOKS \
	$(FFTW_CFLAGS) $(OPENBLAS_CFLAGS) $(LAPACKE_CFLAGS)
FUZZ_COMPILE_FLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=$(FUZZ_SANITIZE) -fno-sanitize-recover=all \
	-fsanitize=fuzzer-no-link -Wno-unknown-pragmas
FUZZ_LINK_FLAGS = -fsanitize=fuzzer,$(FUZZ_SANITIZE)
FUZZ_LIBS = $(FFTW_LIBS) $(LAPACKE_LIBS) $(OPENBLAS_LIBS) -lm
# serial build (no OpenMP) with the CUDA stub, whatever configure found
fuzz_lib_sources = $(sort $(filter-out lib/cuda/loader.c,$(filter %.c,$(libskit_la_SOURCES))) lib/cuda/stub.c)
fuzz_tool_sources = $(filter %.c,$(fuzz_skit_sources))
fuzz_lib_objects = $(patsubst %.c,tests/fuzz/obj/%.o,$(fuzz_lib_sources))
fuzz_tool_objects = $(patsubst %.c,tests/fuzz/obj/%.o,$(fuzz_tool_sources))
fuzz_headers = $(wildcard $(top_srcdir)/lib/*.h $(top_srcdir)/lib/*/*.h $(top_srcdir)/tools/*.h $(top_srcdir)/cli/*.h \
	$(top_srcdir)/train/*.h $(top_srcdir)/bench/*.h $(top_srcdir)/tests/fuzz/*.h) config.h
FUZZ_TARGETS = tests/fuzz/fuzz-npy tests/fuzz/fuzz-tsv tests/fuzz/fuzz-wisdom tests/fuzz/fuzz-cli tests/fuzz/fuzz-checkpoint

# memory.c: skit_memory_check and cli/cli.c: cli_apply_threads are replaced by
# the hooks in tests/fuzz/hooks.c
tests/fuzz/obj/lib/core/memory.o: $(top_srcdir)/lib/core/memory.c $(fuzz_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_DEFS) $(FUZZ_COMPILE_FLAGS) -Dskit_memory_check=skit_memory_check_uncapped -c -o $@ $<
tests/fuzz/obj/cli/cli.o: $(top_srcdir)/cli/cli.c $(fuzz_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_DEFS) $(FUZZ_COMPILE_FLAGS) -Dcli_apply_threads=cli_apply_threads_real -c -o $@ $<
tests/fuzz/obj/tools/skit.o: $(top_srcdir)/tools/skit.c $(fuzz_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_DEFS) $(FUZZ_COMPILE_FLAGS) -Dmain=skit_tool_main -DSKIT_ALIASES_IN_PROCESS \
	  -include $(top_srcdir)/tests/fuzz/tool_main.h -c -o $@ $<
tests/fuzz/obj/%.o: $(top_srcdir)/%.c $(fuzz_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_DEFS) $(FUZZ_COMPILE_FLAGS) -c -o $@ $<

tests/fuzz/fuzz-npy: tests/fuzz/obj/tests/fuzz/libfuzzer_npy.o tests/fuzz/obj/tests/fuzz/fuzz_io.o tests/fuzz/obj/tests/fuzz/hooks.o $(fuzz_lib_objects)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_LINK_FLAGS) -o $@ $^ $(FUZZ_LIBS)
tests/fuzz/fuzz-tsv: tests/fuzz/obj/tests/fuzz/libfuzzer_tsv.o tests/fuzz/obj/tests/fuzz/fuzz_io.o tests/fuzz/obj/tests/fuzz/hooks.o $(fuzz_lib_objects)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_LINK_FLAGS) -o $@ $^ $(FUZZ_LIBS)
tests/fuzz/fuzz-wisdom: tests/fuzz/obj/tests/fuzz/libfuzzer_wisdom.o tests/fuzz/obj/tests/fuzz/fuzz_wisdom.o \
		tests/fuzz/obj/tests/fuzz/fuzz_io.o tests/fuzz/obj/tests/fuzz/hooks.o $(fuzz_lib_objects)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_LINK_FLAGS) -o $@ $^ $(FUZZ_LIBS)
tests/fuzz/fuzz-cli: tests/fuzz/obj/tests/fuzz/libfuzzer_cli.o tests/fuzz/obj/tests/fuzz/fuzz_io.o tests/fuzz/obj/tests/fuzz/hooks.o \
		tests/fuzz/obj/tests/fuzz/fuzz_cli.o $(fuzz_tool_objects) $(fuzz_lib_objects)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_LINK_FLAGS) -o $@ $^ $(FUZZ_LIBS)
tests/fuzz/fuzz-checkpoint: tests/fuzz/obj/tests/fuzz/libfuzzer_checkpoint.o tests/fuzz/obj/tests/fuzz/fuzz_io.o \
		tests/fuzz/obj/tests/fuzz/hooks.o tests/fuzz/obj/tests/fuzz/fuzz_cli.o $(fuzz_tool_objects) $(fuzz_lib_objects)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_LINK_FLAGS) -o $@ $^ $(FUZZ_LIBS)

fuzz_seconds = $(if $(filter command line environment override,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),$(1))
fuzz_run = OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(SHELL) $(top_srcdir)/tests/fuzz/run-fuzzers.sh \
	$(abs_top_builddir)/tests/fuzz $(abs_top_srcdir)/tests/fuzz/corpus

fuzz-build: $(FUZZ_TARGETS)
fuzz-smoke: fuzz-build
	$(fuzz_run) $(call fuzz_seconds,30) $(FUZZ_ONLY)
fuzz: fuzz-build
	$(fuzz_run) $(call fuzz_seconds,600) $(FUZZ_ONLY)

clean-local: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/obj tests/fuzz/work tests/fuzz/crashes $(FUZZ_TARGETS)

# ---- valgrind memcheck ------------------------------------------------------
# Every check program (CK_FORK=no, so valgrind sees the tests themselves)
# and every CLI test ($SKIT is a wrapper that runs skit under valgrind, and
# `skit train` / `skit bench` run the wrappers of skit-train / skit-bench
# in $SKIT_PROGRAM_DIR).
# Each process writes its report to tests/memcheck/<pid>.log; the run fails
# on any error or definite leak in any of them.
MEMCHECK_FLAGS = --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --track-origins=yes --num-callers=30 \
	--suppressions=$(abs_top_srcdir)/tests/valgrind.supp
memcheck: all $(check_PROGRAMS)
	@if test -n "$(SKIT_SAN_CFLAGS)"; then \
	  echo "memcheck: this build uses --enable-sanitizers; valgrind needs a build without them" >&2; exit 2; fi
	rm -rf tests/memcheck && $(MKDIR_P) tests/memcheck
	for p in tools/skit train/skit-train bench/skit-bench; do \
	  printf '#!/bin/sh\nexec $(abs_top_builddir)/libtool --mode=execute valgrind $(MEMCHECK_FLAGS) --log-file=$(abs_top_builddir)/tests/memcheck/%%p.log $(abs_top_builddir)/%s "$$@"\n' $$p \
	    > tests/memcheck/$${p#*/} && chmod +x tests/memcheck/$${p#*/} || exit 1; \
	done
	start=$$(date +%s); \
	CK_FORK=no OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 SKIT_MEMCHECK=1 $(MAKE) $(AM_MAKEFLAGS) check \
	  TEST_SUITE_LOG=tests/memcheck/test-suite.log \
	  TESTS_ENVIRONMENT='SKIT=$(abs_top_builddir)/tests/memcheck/skit; export SKIT; SKIT_PROGRAM_DIR=$(abs_top_builddir)/tests/memcheck; export SKIT_PROGRAM_DIR;' \
	  LOG_COMPILER='$(abs_top_builddir)/libtool --mode=execute valgrind $(MEMCHECK_FLAGS) --log-file=$(abs_top_builddir)/tests/memcheck/%p.log'; \
	rc=$$?; \
	bad=$$(grep -l 'ERROR SUMMARY: [1-9]' tests/memcheck/*.log); \
	n=$$(ls tests/memcheck/*.log | grep -vc test-suite.log); \
	echo "memcheck: $$n processes checked in $$(( $$(date +%s) - start )) s"; \
	if test -n "$$bad"; then for f in $$bad; do echo "==== $$f"; cat "$$f"; done; exit 1; fi; \
	exit $$rc

.PHONY: fuzz fuzz-build fuzz-smoke clean-fuzz memcheck
