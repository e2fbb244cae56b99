# tests/cuda.mk — tests of the CUDA backend (included from tests/tests.mk).
# test_cuda_logic runs everywhere: the kernels' index logic on the CPU and
# every argument check of the API. test_cuda_device compares device results
# with the CPU path and exits 77 (skipped) without a device or a CUDA build.
check_PROGRAMS += tests/test_cuda_logic tests/test_cuda_device
tests_test_cuda_logic_SOURCES = tests/test_cuda_logic.c tests/check_util.h
tests_test_cuda_logic_CFLAGS = $(TEST_CFLAGS)
tests_test_cuda_logic_LDADD = $(TEST_LDADD)
tests_test_cuda_device_SOURCES = tests/test_cuda_device.c tests/check_util.h
tests_test_cuda_device_CFLAGS = $(TEST_CFLAGS)
tests_test_cuda_device_LDADD = $(TEST_LDADD)
TESTS += tests/test_cuda_logic tests/test_cuda_device
