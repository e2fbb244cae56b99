# tests/python.mk — the Python package (python/) and its pytest suite
TESTS += tests/python.sh
# pip install ./python in a venv, with the libskit it builds and bundles
TESTS += tests/python_install.sh
EXTRA_DIST += pyproject.toml setup.py python/pyproject.toml python/setup.py python/skit_build.py \
	python/MANIFEST.in python/README.md \
	python/skit/__init__.py python/skit/_array.py python/skit/_errors.py python/skit/_lib.py \
	python/skit/attention.py python/skit/freq.py python/skit/mlp.py python/skit/ski.py \
	python/skit/spectral.py python/skit/tno.py python/skit/toeplitz.py python/skit/torch.py \
	python/tests/conftest.py python/tests/test_attention.py python/tests/test_freq.py \
	python/tests/test_mlp.py python/tests/test_ski.py python/tests/test_spectral.py \
	python/tests/test_tno.py python/tests/test_toeplitz.py python/tests/test_torch.py \
	python/tests/test_layout.py python/tests/test_readme.py python/tests/test_declarations.py \
	python/tests/test_threads.py python/tests/test_validation.py python/tests/test_examples.py \
	python/tests/test_peer.py python/tests/test_seed.py \
	python/examples/causal_lm.py python/examples/torch_mixers.py python/bench_overhead.py \
	python/bench_torch.py python/bench_layers.py
# a sanitizer build's libskit cannot be loaded into a plain interpreter
AM_TESTS_ENVIRONMENT += SKIT_SAN_CFLAGS='$(SKIT_SAN_CFLAGS)'; export SKIT_SAN_CFLAGS;
