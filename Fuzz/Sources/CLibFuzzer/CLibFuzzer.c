// Nothing to define: the header declares a function of the fuzzer runtime.
#include "CLibFuzzer.h"
