# tools/cuda.mk — the CUDA backend's part of the CLI: `skit bench device`
# (CPU vs GPU), built in every configuration (without a device it times the
# CPU side only).
tools_skit_SOURCES += tools/bench_device.c
