// A shared library opened on first use (dlopen) instead of linked.
//
// Every library a program links costs every one of its processes at start (mapping, symbol
// relocations, static initializers: docs/benchmarks.md, "Process start"), also the many
// commands that never call it. Libraries that only some commands use (OpenBLAS for k-means,
// libcurl for object storage, libstemmer for stemming, libedit for the SQL prompt) are opened
// by the code that needs them, through this class, and then stay loaded for the life of the
// process (never dlclose'd: their functions may be referenced anywhere). Symbols are bound
// into typed function pointers declared with the library's own header, so a signature cannot
// drift from the one compiled against.
#pragma once

#include <arrow/result.h>

#include <string>
#include <string_view>
#include <vector>

#include "tessera/status.h"

namespace tessera::util {

class SharedLibrary {
 public:
  // The first of `paths` the dynamic loader opens (RTLD_NOW | RTLD_LOCAL). Error of `kind`:
  // "<what> cannot be loaded (<path>: <loader's message>; ...); <fix>".
  static arrow::Result<SharedLibrary> Open(const std::vector<std::string>& paths, ErrorKind kind,
                                           std::string_view what, std::string_view fix);

  // Points `*function` at the symbol `name`, or at nullptr (remembered for Complete) when the
  // library lacks it.
  template <typename Function>
  void Bind(Function** function, const char* name) {
    *function = reinterpret_cast<Function*>(Find(name));
  }

  // OK when every Bind found its symbol; else an error of Open's kind naming the library, its
  // file, the symbols it lacks and Open's fix.
  arrow::Status Complete() const;

  const std::string& path() const { return path_; }

 private:
  SharedLibrary(void* handle, std::string path, ErrorKind kind, std::string_view what,
                std::string_view fix)
      : handle_(handle), path_(std::move(path)), kind_(kind), what_(what), fix_(fix) {}
  void* Find(const char* name);

  void* handle_;
  std::string path_;
  ErrorKind kind_;
  std::string what_;  // Open's description of the library and who needs it
  std::string fix_;
  std::string missing_;  // names Bind did not find, comma-separated
};

}  // namespace tessera::util
