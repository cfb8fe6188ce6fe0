// A translation unit that must not compile: tests/layering/CMakeLists.txt builds it as part of a
// layer with TESSERA_PROBE_HEADER naming a header of a layer above (or of the testing library),
// and the test passes when the compiler cannot find that header (docs/development.md, Layers).
#include TESSERA_PROBE_HEADER
