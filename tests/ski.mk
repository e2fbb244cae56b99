# tests/ski.mk — tests of this area (included from tests/tests.mk)
