#include "tessera/status.h"

#include <cstdint>

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
    case ErrorKind::kPermissionDenied:
      return "PermissionDenied";
    case ErrorKind::kUnavailable:
      return "Unavailable";
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
    case ErrorKind::kPermissionDenied:
    case ErrorKind::kUnavailable:
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

// The length of the UTF-8 sequence starting at text[at] (2 to 4), or 0 when it is not one.
size_t Utf8SequenceLength(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  size_t length = 0;
  uint32_t code_point = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code_point = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code_point = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(at + i) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  const bool overlong =
      (length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000);
  if (overlong || (code_point >= 0xD800 && code_point <= 0xDFFF) || code_point > 0x10FFFF) {
    return 0;
  }
  return length;
}

}  // namespace

std::string EscapeControlCharacters(std::string_view text, bool keep_newlines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string escaped;
  escaped.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c >= 0x20 && c < 0x7F) {
      escaped.push_back(static_cast<char>(c));
      ++at;
    } else if (c == '\n') {
      escaped += keep_newlines ? "\n" : "\\n";
      ++at;
    } else if (c == '\t') {
      escaped += "\\t";
      ++at;
    } else if (c == '\r') {
      escaped += "\\r";
      ++at;
    } else if (c < 0x80) {  // other C0 controls and DEL
      escaped += "\\x";
      escaped.push_back(kHex[c >> 4]);
      escaped.push_back(kHex[c & 0xF]);
      ++at;
    } else if (const size_t length = Utf8SequenceLength(text, at); length == 0) {
      escaped += "\\x";
      escaped.push_back(kHex[c >> 4]);
      escaped.push_back(kHex[c & 0xF]);
      ++at;
    } else if (c == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0) {
      // U+0080..U+009F: C1 controls (0x9B is CSI, as ESC [ is).
      const auto low = static_cast<unsigned char>(text[at + 1]);
      escaped += "\\u00";
      escaped.push_back(kHex[low >> 4]);
      escaped.push_back(kHex[low & 0xF]);
      at += 2;
    } else {
      escaped.append(text.substr(at, length));
      at += length;
    }
  }
  return escaped;
}

arrow::Status MakeError(ErrorKind kind, std::string message, bool retryable) {
  return arrow::Status(CodeFor(kind), EscapeControlCharacters(message, /*keep_newlines=*/true),
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

bool HasErrorDetail(const arrow::Status& status) { return DetailOf(status) != nullptr; }

bool IsStorageOrProcessFailure(const arrow::Status& status) {
  switch (KindOf(status)) {
    case ErrorKind::kIOError:
    case ErrorKind::kPermissionDenied:
    case ErrorKind::kUnavailable:
    case ErrorKind::kResourceExhausted:
    case ErrorKind::kCancelled:
      return true;
    default:
      return false;
  }
}

arrow::Status WithContext(const arrow::Status& status, std::string_view context) {
  if (status.ok()) return status;
  return status.WithMessage(EscapeControlCharacters(context), ": ", status.message());
}

}  // namespace tessera
