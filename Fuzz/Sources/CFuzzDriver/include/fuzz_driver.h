#ifndef GROUPIE_FUZZ_DRIVER_H
#define GROUPIE_FUZZ_DRIVER_H

/* Runs libFuzzer's driver on the executable's LLVMFuzzerTestOneInput. SwiftPM links every
 * executable with its own `main` (the module's top-level code), which replaces the `main` that
 * -sanitize=fuzzer brings; each fuzz target's top-level code calls this instead. */
int groupie_fuzz_main(int argc, char **argv);

#endif
