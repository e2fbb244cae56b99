# lib/mlp.mk — the RPE MLP (skit/mlp.h): evaluation, Taylor-mode
# derivatives, the ReLU piecewise-linear locator, and the batched
# evaluation the token mixers use (mlp/batch.h)
skitinclude_HEADERS += lib/skit/mlp.h
noinst_HEADERS += lib/mlp/batch.h lib/mlp/taylor.h lib/mlp/mlp_internal.h lib/mlp/extended.h
libskit_la_SOURCES += lib/mlp/taylor.c lib/mlp/mlp.c lib/mlp/sweep.c lib/mlp/sweepf.c lib/mlp/pwl.c lib/mlp/backward.c lib/mlp/backward_sweep.c lib/mlp/complex.c lib/mlp/extended.c
