#include "tessera/io/fault_injection.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace tessera::io {

void CrashPoint(std::string_view point) {
  static const std::string requested = [] {
    const char* value = std::getenv("TESSERA_CRASH_AT");
    return std::string(value == nullptr ? "" : value);
  }();
  if (!requested.empty() && requested == point) std::raise(SIGKILL);
}

}  // namespace tessera::io
