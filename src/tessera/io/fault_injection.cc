#include "tessera/io/fault_injection.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <string>

namespace tessera::io {

namespace {

struct InjectedError {
  std::atomic<bool> active{false};
  std::mutex mutex;
  std::string path_part;  // guarded by `mutex`
  int error = 0;          // guarded by `mutex`
};

InjectedError& Injected() {
  static InjectedError* injected = new InjectedError();
  return *injected;
}

}  // namespace

void CrashPoint(std::string_view point) {
  static const std::string requested = [] {
    const char* value = std::getenv("TESSERA_CRASH_AT");
    return std::string(value == nullptr ? "" : value);
  }();
  if (!requested.empty() && requested == point) std::raise(SIGKILL);
}

InjectedWriteError::InjectedWriteError(std::string path_part, int error) {
  InjectedError& injected = Injected();
  std::lock_guard<std::mutex> lock(injected.mutex);
  injected.path_part = std::move(path_part);
  injected.error = error;
  injected.active.store(true, std::memory_order_release);
}

InjectedWriteError::~InjectedWriteError() {
  InjectedError& injected = Injected();
  std::lock_guard<std::mutex> lock(injected.mutex);
  injected.active.store(false, std::memory_order_release);
  injected.path_part.clear();
  injected.error = 0;
}

int InjectedWriteErrorFor(std::string_view relative_path) {
  InjectedError& injected = Injected();
  if (!injected.active.load(std::memory_order_acquire)) return 0;
  std::lock_guard<std::mutex> lock(injected.mutex);
  if (relative_path.find(injected.path_part) == std::string_view::npos) return 0;
  return injected.error;
}

}  // namespace tessera::io
