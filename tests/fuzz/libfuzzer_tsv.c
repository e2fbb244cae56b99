/* libfuzzer_tsv.c — libFuzzer entry point for skit_tsv_parse (make fuzz). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return skit_fuzz_tsv(data, size); }
