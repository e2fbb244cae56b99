/* libfuzzer_npy.c — libFuzzer entry point for skit_npy_parse (make fuzz). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return skit_fuzz_npy(data, size); }
