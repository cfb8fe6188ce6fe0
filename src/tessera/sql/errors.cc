#include "tessera/sql/errors.h"

namespace tessera::sql {

std::string_view SqlStateOf(SqlCode code) {
  switch (code) {
    case SqlCode::kNoDatabaseSelected:
      return "3D000";
    case SqlCode::kTableExists:
      return "42S01";
    case SqlCode::kUnknownColumn:
      return "42S22";
    case SqlCode::kUnknownTable:
    case SqlCode::kUnknownInformationSchemaTable:
    case SqlCode::kUnknownTableInQuery:
      return "42S02";
    case SqlCode::kAmbiguousColumn:
      return "23000";
    case SqlCode::kUnknownDatabase:
    case SqlCode::kNonUniqueTable:
    case SqlCode::kDerivedTableAlias:
    case SqlCode::kNotGrouped:
    case SqlCode::kDuplicateKeyName:
    case SqlCode::kParseError:
    case SqlCode::kKeyColumnMissing:
    case SqlCode::kCantDropKey:
    case SqlCode::kNotSupportedYet:
    case SqlCode::kUnknownFunction:
    case SqlCode::kEmptyQuery:
    case SqlCode::kTooManyPreparedStatements:
    case SqlCode::kDatabaseAccessDenied:
    case SqlCode::kNonexistingGrant:
    case SqlCode::kTableAccessDenied:
    case SqlCode::kSpecificAccessDenied:
      return "42000";
    case SqlCode::kColumnCountMismatch:
      return "21S01";
    case SqlCode::kLockDeadlock:
      return "40001";
    case SqlCode::kQueryInterrupted:
      return "70100";
    case SqlCode::kTooComplex:
      return "54000";
    case SqlCode::kIndeterminate:
      return "40003";  // SQL's "statement completion unknown"
    case SqlCode::kMutationFailed:
      return "TS001";
    case SqlCode::kCommittedRefreshIncomplete:
      return "TS002";
    case SqlCode::kIsolationUnavailable:
      return "TS003";
    case SqlCode::kTooManyConnections:
      return "08004";
    case SqlCode::kBadHandshake:
    case SqlCode::kUnknownCommand:
    case SqlCode::kPacketTooLarge:
      return "08S01";
    case SqlCode::kAccessDenied:
      return "28000";
    default:
      return "HY000";
  }
}

arrow::Status MakeSqlError(SqlCode code, ErrorKind kind, std::string message) {
  return WithCode(MakeError(kind, std::move(message)), code);
}

namespace {

SqlCode CodeOfKind(ErrorKind kind, bool retryable) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return SqlCode::kWrongArguments;
    case ErrorKind::kNotFound:
      return SqlCode::kNotFound;
    case ErrorKind::kAlreadyExists:
      return SqlCode::kAlreadyExists;
    case ErrorKind::kDefinitionMismatch:
      return SqlCode::kDefinitionMismatch;
    case ErrorKind::kAmbiguous:
      return SqlCode::kAmbiguousColumn;
    case ErrorKind::kCommitConflict:
      return retryable ? SqlCode::kLockDeadlock : SqlCode::kCommitConflict;
    case ErrorKind::kCorrupt:
      return SqlCode::kCorrupt;
    case ErrorKind::kUnsupported:
      return SqlCode::kNotSupportedYet;
    case ErrorKind::kStale:
      return SqlCode::kStale;
    case ErrorKind::kBusy:
      return SqlCode::kBusy;
    case ErrorKind::kResourceExhausted:
      return SqlCode::kOutOfResources;
    case ErrorKind::kCancelled:
      return SqlCode::kQueryInterrupted;
    case ErrorKind::kIndeterminate:
      return SqlCode::kIndeterminate;
    case ErrorKind::kPermissionDenied:
    case ErrorKind::kUnavailable:
    case ErrorKind::kIOError:
      return SqlCode::kStorageError;
    case ErrorKind::kInternal:
      return SqlCode::kUnknownError;
  }
  return SqlCode::kUnknownError;
}

const SqlErrorDetail* SqlDetailOf(const arrow::Status& status) {
  return dynamic_cast<const SqlErrorDetail*>(status.detail().get());
}

}  // namespace

SqlCode CodeOf(const arrow::Status& status) {
  if (const auto* detail = SqlDetailOf(status)) return detail->code();
  return CodeOfKind(KindOf(status), IsRetryable(status));
}

arrow::Status WithCode(const arrow::Status& status, SqlCode code) {
  if (status.ok() || SqlDetailOf(status) != nullptr) return status;
  return arrow::Status(status.code(), status.message(),
                       std::make_shared<SqlErrorDetail>(KindOf(status), IsRetryable(status), code));
}

arrow::Status Prefixed(const arrow::Status& status, std::string_view prefix) {
  if (status.ok()) return status;
  return arrow::Status(status.code(), Concat(prefix, status.message()), status.detail());
}

std::string FormatSqlError(const arrow::Status& status) {
  const SqlCode code = CodeOf(status);
  return Concat("ERROR ", static_cast<int>(code), " (", SqlStateOf(code), "): ", status.message());
}

}  // namespace tessera::sql
