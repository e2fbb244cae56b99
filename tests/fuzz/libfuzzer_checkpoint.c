/* libfuzzer_checkpoint.c — libFuzzer entry point for the checkpoint reader
 * of `skit train --resume` (make fuzz). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return skit_fuzz_checkpoint(data, size); }
