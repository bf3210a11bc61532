#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver: parses libFuzzer's command line, then calls `callback` with each input.
/// Defined by the fuzzer runtime that `-sanitize=fuzzer` links in.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
