# tests/cuda.mk — tests of this area (included from tests/tests.mk)
