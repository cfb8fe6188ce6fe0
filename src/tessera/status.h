// tessera's error model (docs/design.md, "Error model").
//
// Every public function returns arrow::Status / arrow::Result<T>. A tessera error carries an
// ErrorKind as an arrow::StatusDetail, so callers branch on the kind, never on message text.
// Messages name the object (dataset path, version, index, field, fragment) and say what to do.
// Statuses produced by Arrow itself carry no detail; KindOf() maps their codes to a kind.
#pragma once

#include <arrow/status.h>

#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace tessera {

enum class ErrorKind {
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kDefinitionMismatch,
  kAmbiguous,
  kCommitConflict,
  kCorrupt,
  kUnsupported,
  kStale,
  kBusy,
  kResourceExhausted,
  kCancelled,
  kIndeterminate,
  // Failures of the storage itself (a failed write or fsync), and bugs.
  kIOError,
  kInternal,
  // Object storage refused the credentials (wrong keys, no permission on the bucket or prefix).
  kPermissionDenied,
  // Object storage could not be reached, or kept answering "slow down" / "unavailable", until
  // the retry deadline passed.
  kUnavailable,
};

// "InvalidArgument", "CommitConflict", ...: the spelling the CLI prints.
std::string_view ErrorKindName(ErrorKind kind);

// The detail attached to every tessera error.
class ErrorDetail : public arrow::StatusDetail {
 public:
  static constexpr const char* kTypeId = "tessera::ErrorDetail";
  ErrorDetail(ErrorKind kind, bool retryable) : kind_(kind), retryable_(retryable) {}
  const char* type_id() const override { return kTypeId; }
  std::string ToString() const override;
  ErrorKind kind() const { return kind_; }
  // CommitConflict only: whether retrying the operation from fresh state can succeed.
  bool retryable() const { return retryable_; }

 private:
  ErrorKind kind_;
  bool retryable_;
};

// Concatenates the textual forms (operator<<) of `args`.
template <typename... Args>
std::string Concat(Args&&... args) {
  std::ostringstream stream;
  (stream << ... << std::forward<Args>(args));
  return stream.str();
}

// `text` with every control character shown as an escape — ESC as \x1b, a tab as \t, a newline
// as \n (kept as is with keep_newlines), C1 controls as \u0080..\u009f, bytes that are not
// UTF-8 as \xNN — so that a message quoting user input (a filter, a name, a path) cannot drive
// the terminal it is printed on. Printable text, UTF-8 included, and backslashes are unchanged,
// so escaping twice changes nothing more.
std::string EscapeControlCharacters(std::string_view text, bool keep_newlines = false);

// Builds a Status of the given kind; the Arrow status code is chosen to match the kind. The
// message is passed through EscapeControlCharacters (newlines kept: some messages embed
// multi-line text such as a schema), so no tessera error carries a raw control character.
arrow::Status MakeError(ErrorKind kind, std::string message, bool retryable = false);

// The kind of any status: its tessera detail, or a mapping of Arrow's own status code.
// Precondition: !status.ok().
ErrorKind KindOf(const arrow::Status& status);

// True for a CommitConflict marked retryable.
bool IsRetryable(const arrow::Status& status);

// Whether `status` is a failure of the storage or of the process (IOError, PermissionDenied,
// Unavailable, ResourceExhausted, Cancelled) rather than a finding about the bytes read:
// readers that report what they cannot parse as Corrupt pass these through unchanged, so that a
// throttled read of object storage never reads as damaged data.
bool IsStorageOrProcessFailure(const arrow::Status& status);

// Whether tessera attached the kind (an ErrorDetail), as opposed to a status of Arrow's own,
// whose kind KindOf infers from its code: Arrow's IPC reader reports a damaged file as IOError.
bool HasErrorDetail(const arrow::Status& status);

// Convenience builders: Error(ErrorKind::kNotFound, "dataset ", path, " has no version ", v).
template <typename... Args>
arrow::Status Error(ErrorKind kind, Args&&... args) {
  return MakeError(kind, Concat(std::forward<Args>(args)...));
}

template <typename... Args>
arrow::Status InvalidArgument(Args&&... args) {
  return Error(ErrorKind::kInvalidArgument, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status NotFound(Args&&... args) {
  return Error(ErrorKind::kNotFound, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status Corrupt(Args&&... args) {
  return Error(ErrorKind::kCorrupt, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status Unsupported(Args&&... args) {
  return Error(ErrorKind::kUnsupported, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status PermissionDenied(Args&&... args) {
  return Error(ErrorKind::kPermissionDenied, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status Unavailable(Args&&... args) {
  return Error(ErrorKind::kUnavailable, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status AlreadyExists(Args&&... args) {
  return Error(ErrorKind::kAlreadyExists, std::forward<Args>(args)...);
}
template <typename... Args>
arrow::Status CommitConflict(bool retryable, Args&&... args) {
  return MakeError(ErrorKind::kCommitConflict, Concat(std::forward<Args>(args)...), retryable);
}

// Keeps a status's kind but prefixes its message with context ("reading manifest X: ..."); the
// context is escaped like MakeError's messages.
arrow::Status WithContext(const arrow::Status& status, std::string_view context);

}  // namespace tessera
