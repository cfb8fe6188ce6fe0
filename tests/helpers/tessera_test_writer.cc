// tessera_test_writer: a writer that tests run as a separate process, to race other processes
// for commits (tests/dataset/concurrency_test.cc) or to be killed in the middle of one
// (tests/dataset/crash_test.cc, with TESSERA_CRASH_AT set).
//
//   tessera_test_writer create    DATASET --rows R [--first-id ID]
//   tessera_test_writer append    DATASET --commits N --rows R --first-id ID
//                                 [--snapshot chain|original|latest|mixed] [--on-conflict
//                                 stop|continue]
//   tessera_test_writer overwrite DATASET --commits N --rows R --first-id ID
//   tessera_test_writer delete    DATASET --where EXPR
//   tessera_test_writer cleanup   DATASET --until PATH [--delete-unverified 1]
//
// `cleanup` runs Cleanup with a retention of 0s over and over, as fast as it can, until PATH
// exists (a race partner for writers: tests/index/cleanup_race_test.cc); it creates --ready
// after its first run.
//
// Common options:
//   --version V            start from version V instead of the latest (a stale snapshot)
//   --ready PATH           create PATH once the dataset is open and the writer is about to start
//   --barrier PATH         then wait until PATH exists, so that several writers really race
//   --max-rows-per-file M  split each commit's rows into fragments of at most M rows
//
// Commit k of append/overwrite writes rows with ids first-id + k * rows ... + rows - 1, in the
// columns of the dataset's schema (for the test schema: value = id * 0.5, null when id % 7 == 3;
// name = "name<id % 5>", null when id % 11 == 4; vector = [id, id + 1, ...]), so that a test
// can tell which commit every row came from.
//
// Snapshots an append starts from (all but `latest` exercise the rebase of a stale snapshot):
//   chain     the snapshot the previous commit returned (the default)
//   original  always the snapshot opened at the start
//   latest    the latest version, re-opened before each commit
//   mixed     commit k uses original, chain, latest for k % 3 == 0, 1, 2
//
// On stdout, one line per commit attempt:
//   committed op=<op> version=<v> base=<version started from> first_id=<id> rows=<r>
//   conflict op=<op> base=<v> first_id=<id> rows=<r> retryable=<0|1>
//   result op=delete version=<version returned> base=<v>
//   cleanup runs=<n> removed_versions=<v> removed_files=<f>   (at the end of `cleanup`)
// On failure, `error: <Kind>: <message>` on stderr and the exit code says what happened:
//   0 success, 1 any other error, 2 bad usage, 3 CommitConflict (not retryable),
//   4 CommitConflict (retryable). With --on-conflict continue, an append that hits a
//   CommitConflict logs it, moves to the latest version and goes on; the exit code is then
//   that of the last conflict.
#include <arrow/api.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/status.h"

namespace {

using tessera::dataset::Dataset;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitConflict = 3;
constexpr int kExitRetryableConflict = 4;

struct Arguments {
  std::string command;
  std::string dataset;
  int64_t commits = 1;
  int64_t rows = 0;
  int64_t first_id = 0;
  std::string where;
  std::string snapshot = "chain";
  bool continue_on_conflict = false;
  std::optional<uint64_t> version;
  std::string ready;
  std::string barrier;
  std::optional<uint64_t> max_rows_per_file;
  std::string until;
  bool delete_unverified = false;
};

int Usage(const std::string& problem) {
  std::cerr
      << "error: InvalidArgument: " << problem << "\n"
      << "usage: tessera_test_writer create|append|overwrite|delete|cleanup DATASET [options]\n";
  return kExitUsage;
}

int Fail(const arrow::Status& status) {
  const tessera::ErrorKind kind = tessera::KindOf(status);
  std::cerr << "error: " << tessera::ErrorKindName(kind) << ": " << status.message() << std::endl;
  if (kind != tessera::ErrorKind::kCommitConflict) return kExitError;
  return tessera::IsRetryable(status) ? kExitRetryableConflict : kExitConflict;
}

std::optional<int64_t> ParseInteger(const std::string& text) {
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Returns an error message, or nothing when the arguments are usable.
std::optional<std::string> ParseArguments(int argc, char** argv, Arguments* arguments) {
  if (argc < 3) return "a command and a dataset are required";
  arguments->command = argv[1];
  arguments->dataset = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string option = argv[i];
    if (i + 1 >= argc) return "option " + option + " needs a value";
    const std::string value = argv[++i];
    auto integer = [&](int64_t minimum) -> std::optional<int64_t> {
      auto parsed = ParseInteger(value);
      if (!parsed || *parsed < minimum) return std::nullopt;
      return parsed;
    };
    if (option == "--commits" || option == "--rows" || option == "--version" ||
        option == "--max-rows-per-file") {
      auto parsed = integer(option == "--rows" ? 0 : 1);
      if (!parsed) return "bad value for " + option + ": " + value;
      if (option == "--commits") arguments->commits = *parsed;
      if (option == "--rows") arguments->rows = *parsed;
      if (option == "--version") arguments->version = static_cast<uint64_t>(*parsed);
      if (option == "--max-rows-per-file") {
        arguments->max_rows_per_file = static_cast<uint64_t>(*parsed);
      }
    } else if (option == "--first-id") {
      auto parsed = ParseInteger(value);
      if (!parsed) return "bad value for --first-id: " + value;
      arguments->first_id = *parsed;
    } else if (option == "--where") {
      arguments->where = value;
    } else if (option == "--snapshot") {
      if (value != "chain" && value != "original" && value != "latest" && value != "mixed") {
        return "--snapshot takes chain, original, latest or mixed";
      }
      arguments->snapshot = value;
    } else if (option == "--on-conflict") {
      if (value != "stop" && value != "continue") return "--on-conflict takes stop or continue";
      arguments->continue_on_conflict = value == "continue";
    } else if (option == "--ready") {
      arguments->ready = value;
    } else if (option == "--barrier") {
      arguments->barrier = value;
    } else if (option == "--until") {
      arguments->until = value;
    } else if (option == "--delete-unverified") {
      if (value != "0" && value != "1") return "--delete-unverified takes 0 or 1";
      arguments->delete_unverified = value == "1";
    } else {
      return "unknown option " + option;
    }
  }
  const std::string& command = arguments->command;
  if (command != "create" && command != "append" && command != "overwrite" && command != "delete" &&
      command != "cleanup") {
    return "unknown command " + command;
  }
  if (command == "delete" && arguments->where.empty()) return "delete needs --where";
  if (command == "cleanup" && arguments->until.empty()) return "cleanup needs --until";
  if (command != "delete" && command != "cleanup" && arguments->rows <= 0) {
    return command + " needs --rows";
  }
  return std::nullopt;
}

// --- rows ---

// Rows first_id ... first_id + rows - 1 in the columns of `schema`.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> MakeBatch(
    const std::shared_ptr<arrow::Schema>& schema, int64_t first_id, int64_t rows) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& field : schema->fields()) {
    const auto& type = field->type();
    std::shared_ptr<arrow::Array> column;
    if (type->id() == arrow::Type::INT64) {
      arrow::Int64Builder builder;
      for (int64_t id = first_id; id < first_id + rows; ++id) {
        ARROW_RETURN_NOT_OK(builder.Append(id));
      }
      ARROW_ASSIGN_OR_RAISE(column, builder.Finish());
    } else if (type->id() == arrow::Type::DOUBLE) {
      arrow::DoubleBuilder builder;
      for (int64_t id = first_id; id < first_id + rows; ++id) {
        ARROW_RETURN_NOT_OK(id % 7 == 3 ? builder.AppendNull()
                                        : builder.Append(static_cast<double>(id) * 0.5));
      }
      ARROW_ASSIGN_OR_RAISE(column, builder.Finish());
    } else if (type->id() == arrow::Type::STRING) {
      arrow::StringBuilder builder;
      for (int64_t id = first_id; id < first_id + rows; ++id) {
        ARROW_RETURN_NOT_OK(id % 11 == 4 ? builder.AppendNull()
                                         : builder.Append("name" + std::to_string(id % 5)));
      }
      ARROW_ASSIGN_OR_RAISE(column, builder.Finish());
    } else if (type->id() == arrow::Type::FIXED_SIZE_LIST &&
               static_cast<const arrow::FixedSizeListType&>(*type).value_type()->id() ==
                   arrow::Type::FLOAT) {
      const int dim = static_cast<const arrow::FixedSizeListType&>(*type).list_size();
      auto floats = std::make_shared<arrow::FloatBuilder>();
      arrow::FixedSizeListBuilder builder(arrow::default_memory_pool(), floats, type);
      for (int64_t id = first_id; id < first_id + rows; ++id) {
        ARROW_RETURN_NOT_OK(builder.Append());
        for (int d = 0; d < dim; ++d)
          ARROW_RETURN_NOT_OK(floats->Append(static_cast<float>(id + d)));
      }
      ARROW_ASSIGN_OR_RAISE(column, builder.Finish());
    } else {
      ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayOfNull(type, rows));
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(schema, rows, std::move(columns));
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> MakeReader(
    const std::shared_ptr<arrow::Schema>& schema, int64_t first_id, int64_t rows) {
  ARROW_ASSIGN_OR_RAISE(auto batch, MakeBatch(schema, first_id, rows));
  return arrow::RecordBatchReader::Make({std::move(batch)}, schema);
}

// The schema of `create`: the canonical test schema of tests/support/table_builders.h.
std::shared_ptr<arrow::Schema> CreateSchema() {
  return arrow::schema({arrow::field("id", arrow::int64()), arrow::field("value", arrow::float64()),
                        arrow::field("name", arrow::utf8()),
                        arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 4))});
}

// --- start of the race ---

arrow::Status SignalReadyAndWait(const Arguments& arguments) {
  if (!arguments.ready.empty()) {
    std::FILE* file = std::fopen(arguments.ready.c_str(), "w");
    if (file == nullptr) {
      return tessera::Error(tessera::ErrorKind::kIOError, "cannot create ", arguments.ready);
    }
    std::fclose(file);
  }
  if (arguments.barrier.empty()) return arrow::Status::OK();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  std::error_code error;
  while (!std::filesystem::exists(arguments.barrier, error)) {
    if (std::chrono::steady_clock::now() > deadline) {
      return tessera::Error(tessera::ErrorKind::kCancelled, "barrier ", arguments.barrier,
                            " did not appear within 2 minutes");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return arrow::Status::OK();
}

tessera::dataset::WriteOptions MakeWriteOptions(const Arguments& arguments) {
  tessera::dataset::WriteOptions options;
  if (arguments.max_rows_per_file) options.max_rows_per_file = *arguments.max_rows_per_file;
  return options;
}

// --- commands ---

int RunCreate(const Arguments& arguments) {
  auto schema = CreateSchema();
  auto reader = MakeReader(schema, arguments.first_id, arguments.rows);
  if (!reader.ok()) return Fail(reader.status());
  if (auto status = SignalReadyAndWait(arguments); !status.ok()) return Fail(status);
  auto created = Dataset::Create(arguments.dataset, *reader, MakeWriteOptions(arguments));
  if (!created.ok()) return Fail(created.status());
  std::cout << "committed op=create version=" << (*created)->version()
            << " base=0 first_id=" << arguments.first_id << " rows=" << arguments.rows << std::endl;
  return kExitOk;
}

// append and overwrite: `commits` commits of `rows` rows each.
int RunWrites(const Arguments& arguments) {
  const bool overwrite = arguments.command == "overwrite";
  auto opened = Dataset::Open(arguments.dataset, arguments.version);
  if (!opened.ok()) return Fail(opened.status());
  std::shared_ptr<Dataset> original = *opened;
  std::shared_ptr<Dataset> chained = original;
  const auto options = MakeWriteOptions(arguments);
  if (auto status = SignalReadyAndWait(arguments); !status.ok()) return Fail(status);

  int exit_code = kExitOk;
  for (int64_t k = 0; k < arguments.commits; ++k) {
    std::string mode = arguments.snapshot;
    if (mode == "mixed") mode = k % 3 == 0 ? "original" : (k % 3 == 1 ? "chain" : "latest");
    std::shared_ptr<Dataset> base = chained;
    if (mode == "original") base = original;
    if (mode == "latest") {
      auto latest = original->Latest();
      if (!latest.ok()) return Fail(latest.status());
      base = *latest;
    }
    const int64_t first_id = arguments.first_id + k * arguments.rows;
    auto reader = MakeReader(base->schema(), first_id, arguments.rows);
    if (!reader.ok()) return Fail(reader.status());
    auto committed = overwrite ? base->Overwrite(*reader, options) : base->Append(*reader, options);
    if (!committed.ok()) {
      const arrow::Status& status = committed.status();
      if (tessera::KindOf(status) != tessera::ErrorKind::kCommitConflict) return Fail(status);
      std::cout << "conflict op=" << arguments.command << " base=" << base->version()
                << " first_id=" << first_id << " rows=" << arguments.rows
                << " retryable=" << (tessera::IsRetryable(status) ? 1 : 0) << std::endl;
      exit_code = Fail(status);
      if (!arguments.continue_on_conflict) return exit_code;
      auto latest = original->Latest();
      if (!latest.ok()) return Fail(latest.status());
      chained = *latest;
      continue;
    }
    std::cout << "committed op=" << arguments.command << " version=" << (*committed)->version()
              << " base=" << base->version() << " first_id=" << first_id
              << " rows=" << arguments.rows << std::endl;
    chained = *committed;
  }
  return exit_code;
}

int RunDelete(const Arguments& arguments) {
  auto opened = Dataset::Open(arguments.dataset, arguments.version);
  if (!opened.ok()) return Fail(opened.status());
  if (auto status = SignalReadyAndWait(arguments); !status.ok()) return Fail(status);
  auto result = (*opened)->Delete(arguments.where, MakeWriteOptions(arguments));
  if (!result.ok()) {
    if (tessera::KindOf(result.status()) == tessera::ErrorKind::kCommitConflict) {
      std::cout << "conflict op=delete base=" << (*opened)->version() << " first_id=0 rows=0"
                << " retryable=" << (tessera::IsRetryable(result.status()) ? 1 : 0) << std::endl;
    }
    return Fail(result.status());
  }
  std::cout << "result op=delete version=" << (*result)->version()
            << " base=" << (*opened)->version() << std::endl;
  return kExitOk;
}

int RunCleanupLoop(const Arguments& arguments) {
  tessera::dataset::CleanupOptions options;
  options.older_than = std::chrono::seconds(0);
  options.delete_unverified = arguments.delete_unverified;
  int64_t runs = 0;
  uint64_t removed_versions = 0;
  uint64_t removed_files = 0;
  std::error_code error;
  while (!std::filesystem::exists(arguments.until, error)) {
    auto opened = Dataset::Open(arguments.dataset);
    if (!opened.ok()) return Fail(opened.status());
    auto report = (*opened)->Cleanup(options);
    if (!report.ok()) return Fail(report.status());
    removed_versions += report->removed_versions.size();
    removed_files += report->removed_files.size();
    if (++runs == 1) {
      if (auto status = SignalReadyAndWait(arguments); !status.ok()) return Fail(status);
    }
  }
  std::cout << "cleanup runs=" << runs << " removed_versions=" << removed_versions
            << " removed_files=" << removed_files << std::endl;
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments arguments;
  if (auto problem = ParseArguments(argc, argv, &arguments)) return Usage(*problem);
  if (arguments.command == "create") return RunCreate(arguments);
  if (arguments.command == "delete") return RunDelete(arguments);
  if (arguments.command == "cleanup") return RunCleanupLoop(arguments);
  return RunWrites(arguments);
}
