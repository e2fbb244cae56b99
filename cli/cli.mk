# cli/cli.mk — the command-line kit shared by skit (tools/), skit-train
# (train/) and skit-bench (bench/): option parsing with range-checked
# values, one-line errors, outputs that commit together, tables and JSON,
# gnuplot figures, finite differences. A convenience library: not installed.
noinst_LTLIBRARIES += cli/libskitcli.la
cli_libskitcli_la_SOURCES = cli/cli.c cli/cli.h cli/table.c cli/table.h cli/fdiff.c cli/fdiff.h \
	cli/checkpoint.c cli/checkpoint.h
# Every program of the project links the kit, the library and what the
# library needs (Debian's libtool does not pass a library's dependencies on).
SKIT_PROGRAM_LDADD = cli/libskitcli.la libskit.la $(SKIT_DEP_LIBS)
# An installed program finds libskit next to it (bin/../lib) wherever the
# prefix is: `make install prefix=DIR` after configuring another prefix, or
# an installed tree moved elsewhere (scripts/check-install).
SKIT_PROGRAM_LDFLAGS = $(AM_LDFLAGS) -Wl,-rpath,'$$ORIGIN/../lib'
