#include "tessera/util/environment.h"

#include <cstdlib>

namespace tessera::util {

int64_t IntegerFromEnvironment(const char* variable, int64_t fallback, int64_t minimum) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  return (*end == '\0' && value >= minimum) ? value : fallback;
}

}  // namespace tessera::util
