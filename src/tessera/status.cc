#include "tessera/status.h"

namespace tessera {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return "InvalidArgument";
    case ErrorKind::kNotFound:
      return "NotFound";
    case ErrorKind::kAlreadyExists:
      return "AlreadyExists";
    case ErrorKind::kDefinitionMismatch:
      return "DefinitionMismatch";
    case ErrorKind::kAmbiguous:
      return "Ambiguous";
    case ErrorKind::kCommitConflict:
      return "CommitConflict";
    case ErrorKind::kCorrupt:
      return "Corrupt";
    case ErrorKind::kUnsupported:
      return "Unsupported";
    case ErrorKind::kStale:
      return "Stale";
    case ErrorKind::kBusy:
      return "Busy";
    case ErrorKind::kResourceExhausted:
      return "ResourceExhausted";
    case ErrorKind::kCancelled:
      return "Cancelled";
    case ErrorKind::kIndeterminate:
      return "Indeterminate";
    case ErrorKind::kIOError:
      return "IOError";
    case ErrorKind::kInternal:
      return "Internal";
  }
  return "Internal";
}

std::string ErrorDetail::ToString() const {
  std::string text(ErrorKindName(kind_));
  if (kind_ == ErrorKind::kCommitConflict) text += retryable_ ? " (retryable)" : " (not retryable)";
  return text;
}

namespace {

arrow::StatusCode CodeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
    case ErrorKind::kDefinitionMismatch:
    case ErrorKind::kAmbiguous:
      return arrow::StatusCode::Invalid;
    case ErrorKind::kNotFound:
      return arrow::StatusCode::KeyError;
    case ErrorKind::kAlreadyExists:
      return arrow::StatusCode::AlreadyExists;
    case ErrorKind::kUnsupported:
      return arrow::StatusCode::NotImplemented;
    case ErrorKind::kResourceExhausted:
      return arrow::StatusCode::OutOfMemory;
    case ErrorKind::kCancelled:
      return arrow::StatusCode::Cancelled;
    case ErrorKind::kIOError:
    case ErrorKind::kCorrupt:
      return arrow::StatusCode::IOError;
    default:
      return arrow::StatusCode::UnknownError;
  }
}

const ErrorDetail* DetailOf(const arrow::Status& status) {
  const auto& detail = status.detail();
  if (detail == nullptr || std::string_view(detail->type_id()) != ErrorDetail::kTypeId) {
    return nullptr;
  }
  return static_cast<const ErrorDetail*>(detail.get());
}

}  // namespace

arrow::Status MakeError(ErrorKind kind, std::string message, bool retryable) {
  return arrow::Status(CodeFor(kind), std::move(message),
                       std::make_shared<ErrorDetail>(kind, retryable));
}

ErrorKind KindOf(const arrow::Status& status) {
  if (const ErrorDetail* detail = DetailOf(status)) return detail->kind();
  switch (status.code()) {
    case arrow::StatusCode::Invalid:
    case arrow::StatusCode::TypeError:
    case arrow::StatusCode::IndexError:
      return ErrorKind::kInvalidArgument;
    case arrow::StatusCode::KeyError:
      return ErrorKind::kNotFound;
    case arrow::StatusCode::AlreadyExists:
      return ErrorKind::kAlreadyExists;
    case arrow::StatusCode::NotImplemented:
      return ErrorKind::kUnsupported;
    case arrow::StatusCode::OutOfMemory:
      return ErrorKind::kResourceExhausted;
    case arrow::StatusCode::Cancelled:
      return ErrorKind::kCancelled;
    case arrow::StatusCode::IOError:
      return ErrorKind::kIOError;
    default:
      return ErrorKind::kInternal;
  }
}

bool IsRetryable(const arrow::Status& status) {
  const ErrorDetail* detail = DetailOf(status);
  return detail != nullptr && detail->kind() == ErrorKind::kCommitConflict && detail->retryable();
}

arrow::Status WithContext(const arrow::Status& status, std::string_view context) {
  if (status.ok()) return status;
  return status.WithMessage(std::string(context), ": ", status.message());
}

}  // namespace tessera
