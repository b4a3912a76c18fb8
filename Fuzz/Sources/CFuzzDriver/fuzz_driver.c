#include "fuzz_driver.h"

#include <stddef.h>
#include <stdint.h>

/* Defined by each fuzz target, in Swift, with @_cdecl. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* libFuzzer's driver (compiler-rt, LLVM 11 and later), linked in by -sanitize=fuzzer. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

int groupie_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
