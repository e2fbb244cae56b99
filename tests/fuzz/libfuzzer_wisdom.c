/* libfuzzer_wisdom.c — libFuzzer entry point for the wisdom file reader
 * (make fuzz). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return skit_fuzz_wisdom(data, size); }
