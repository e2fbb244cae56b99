# tests/layering.mk — the modules of lib/ only point down (tests/layering.sh)
TESTS += tests/layering.sh
EXTRA_DIST += tests/layering.sh
AM_TESTS_ENVIRONMENT += SKIT_LIBSKIT_OBJECTS='$(libskit_la_OBJECTS)'; export SKIT_LIBSKIT_OBJECTS;
