// Fuzz target: the query vector literal of `tessera search --vector` (tools/vector_literal.h,
// compiled into this target from tools/). A literal that parses holds at least one number.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_support.h"
#include "vector_literal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = tessera::cli::ParseVectorLiteral(tessera::fuzz::BytesOf(data, size));
  if (parsed.ok() && parsed->empty()) std::abort();
  return 0;
}
