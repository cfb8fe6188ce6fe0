// The test side of tests/helpers/tessera_test_writer.cc: its exit codes and the events it prints
// on stdout, one per line ("committed op=append version=7 base=3 first_id=100 rows=10").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessera::testing {

inline constexpr int kWriterOk = 0;
inline constexpr int kWriterError = 1;
inline constexpr int kWriterUsage = 2;
inline constexpr int kWriterConflict = 3;           // CommitConflict, not retryable
inline constexpr int kWriterRetryableConflict = 4;  // CommitConflict, retryable

struct WriterEvent {
  std::string kind;  // "committed", "conflict", "result"
  std::map<std::string, std::string> fields;

  bool Has(const std::string& key) const { return fields.count(key) > 0; }
  const std::string& Text(const std::string& key) const;  // throws when absent
  int64_t Integer(const std::string& key) const;          // throws when absent
  std::string ToString() const;
};

// One event per non-empty line of the writer's stdout.
std::vector<WriterEvent> ParseWriterEvents(const std::string& output);

// The path of the tessera_test_writer executable.
std::string WriterProgram();

}  // namespace tessera::testing
