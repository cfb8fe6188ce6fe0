#include <charconv>
#include <iostream>
#include <set>

#include "command_progress.h"
#include "dataset_commands.h"
#include "explain_output.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/external_refresh.h"
#include "tessera/dataset/position_deletes.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"
#include "units.h"

namespace tessera::cli {
namespace {

struct SourceArguments {
  std::string dataset;
  std::vector<std::string> files;
  std::vector<std::string> external;  // create and append: files to reference, not copy
  std::vector<std::string> vectors;   // create --external: NAME:DIMENSION
  std::string bad_vectors = "error";  // create and append --external: error | null
  uint64_t max_rows_per_file = 0;
  CLI::Option* max_rows_per_file_option = nullptr;
  uint64_t rows_per_batch = 0;
  CLI::Option* rows_per_batch_option = nullptr;
};

// Passes batches through, counting rows: how many rows a write consumed, exactly, whatever
// else commits concurrently.
class CountingReader : public arrow::RecordBatchReader {
 public:
  explicit CountingReader(std::shared_ptr<arrow::RecordBatchReader> source)
      : source_(std::move(source)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return source_->schema(); }
  using arrow::RecordBatchReader::ReadNext;
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    ARROW_RETURN_NOT_OK(source_->ReadNext(batch));
    if (*batch != nullptr) rows_ += (*batch)->num_rows();
    return arrow::Status::OK();
  }
  arrow::Status Close() override { return source_->Close(); }
  int64_t rows() const { return rows_; }

 private:
  std::shared_ptr<arrow::RecordBatchReader> source_;
  int64_t rows_ = 0;
};

// `external`: create and append may reference Parquet files instead of copying them
// (--external); `vectors`: create may declare list columns of those files as vectors.
void AddSourceOptions(CLI::App* command, SourceArguments* args, bool external = false,
                      bool vectors = false) {
  AddDatasetArgument(command, &args->dataset);
  const char* const copied_help =
      "Input files to copy into the dataset: .parquet, .arrow/.feather/.ipc (IPC file), .arrows "
      "(IPC stream); all with one schema";
  if (!external) {
    command->add_option("--from", args->files, copied_help)
        ->expected(1, -1)
        ->type_name("FILE")
        ->required();
  } else {
    // Exactly one of the two says where the rows come from.
    CLI::Option_group* input =
        command->add_option_group("input", "The rows: copied (--from) or referenced (--external)");
    input->add_option("--from", args->files, copied_help)->expected(1, -1)->type_name("FILE");
    CLI::Option* referenced =
        input
            ->add_option("--external", args->external,
                         "Parquet files (paths or glob patterns) to reference without copying "
                         "(docs/external.md); one fragment each")
            ->expected(1, -1)
            ->type_name("FILE|GLOB");
    input->require_option(1);
    command
        ->add_option("--bad-vectors", args->bad_vectors,
                     "With --external: a row of a vector column with the wrong number of values "
                     "or a null value fails the registration (error, the default) or is read as a "
                     "null vector (null), counted")
        ->check(CLI::IsMember({"error", "null"}))
        ->type_name("error|null")
        ->needs(referenced);
    if (vectors) {
      command
          ->add_option("--vector", args->vectors,
                       "With --external: read list<float|float16> column NAME as vectors of DIM "
                       "values (repeatable)")
          ->type_name("NAME:DIM")
          ->needs(referenced);
    }
  }
  args->max_rows_per_file_option =
      command
          ->add_option("--max-rows-per-file", args->max_rows_per_file,
                       "Rows per fragment (data file); larger inputs are split")
          ->check(IntegerAtLeast<uint64_t>(1));
  args->rows_per_batch_option = command
                                    ->add_option("--rows-per-batch", args->rows_per_batch,
                                                 "Rows per record batch inside a data file")
                                    ->check(IntegerAtLeast<uint64_t>(1));
}

dataset::WriteOptions WriteOptionsOf(const SourceArguments& args, util::OperationControl* control) {
  dataset::WriteOptions options;
  options.control = control;
  if (args.max_rows_per_file_option->count() > 0) {
    options.max_rows_per_file = args.max_rows_per_file;
  }
  if (args.rows_per_batch_option->count() > 0) options.rows_per_batch = args.rows_per_batch;
  return options;
}

// The files of --from (the command line requires some).
arrow::Result<std::shared_ptr<CountingReader>> OpenSource(const SourceArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto reader, dataset::OpenFilesAsReader(args.files));
  return std::make_shared<CountingReader>(std::move(reader));
}

void PrintSnapshot(const dataset::Dataset& snapshot) {
  std::cout << "version " << snapshot.version() << ", " << Quantity(snapshot.CountRows(), "row")
            << " in " << Quantity(snapshot.manifest().fragments_size(), "fragment") << std::endl;
}

arrow::Result<dataset::ExternalOptions> ExternalOptionsOf(const SourceArguments& args) {
  dataset::ExternalOptions options;
  for (const auto& declaration : args.vectors) {
    const size_t colon = declaration.rfind(':');
    int32_t dimension = 0;
    bool parsed = colon != std::string::npos && colon > 0;
    if (parsed) {
      const char* begin = declaration.data() + colon + 1;
      const char* end = declaration.data() + declaration.size();
      const auto [stop, error] = std::from_chars(begin, end, dimension);
      parsed = error == std::errc() && stop == end && dimension > 0;
    }
    if (!parsed) {
      return InvalidArgument("--vector '", declaration,
                             "' is not NAME:DIM with a dimension of at least 1 (e.g. emb:768)");
    }
    options.vector_dimensions[declaration.substr(0, colon)] = dimension;
  }
  options.bad_vectors_as_null = args.bad_vectors == "null";
  return options;
}

// Bad vectors read as null (--bad-vectors null) in the external files of `data`'s fragments
// that `before` (when given) does not have: those a create or an append registered.
uint64_t BadVectors(const dataset::Dataset& data, const dataset::Dataset* before = nullptr) {
  std::set<uint32_t> old_fragments;
  if (before != nullptr) {
    for (const auto& fragment : before->manifest().fragments()) old_fragments.insert(fragment.id());
  }
  uint64_t vectors = 0;
  for (const auto& fragment : data.manifest().fragments()) {
    if (old_fragments.count(fragment.id()) != 0) continue;
    for (const auto& file : fragment.files()) vectors += file.external().bad_vectors();
  }
  return vectors;
}

void PrintBadVectors(uint64_t vectors) {
  if (vectors == 0) return;
  std::cout << Quantity(vectors, "bad vector") << " (wrong length or a null value) "
            << (vectors == 1 ? "is" : "are") << " read as null" << std::endl;
}

arrow::Status RunCreate(const SourceArguments& args) {
  if (!args.external.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto external, ExternalOptionsOf(args));
    ARROW_ASSIGN_OR_RAISE(auto created, WithProgress([&](util::OperationControl* control) {
                            return dataset::Dataset::CreateExternal(args.dataset, args.external,
                                                                    external,
                                                                    WriteOptionsOf(args, control));
                          }));
    std::cout << "created " << created->uri() << " over external files: ";
    PrintSnapshot(*created);
    PrintBadVectors(BadVectors(*created));
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto source, OpenSource(args));
  ARROW_ASSIGN_OR_RAISE(auto created, WithProgress([&](util::OperationControl* control) {
                          return dataset::Dataset::Create(args.dataset, source,
                                                          WriteOptionsOf(args, control));
                        }));
  std::cout << "created " << created->uri() << ": ";
  PrintSnapshot(*created);
  return arrow::Status::OK();
}

arrow::Status RunAppend(const SourceArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  if (!args.external.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto external, ExternalOptionsOf(args));
    ARROW_ASSIGN_OR_RAISE(auto appended, WithProgress([&](util::OperationControl* control) {
                            return current->AppendExternal(args.external, external,
                                                           WriteOptionsOf(args, control));
                          }));
    std::cout << "appended " << Quantity(args.external.size(), "external file pattern") << " to "
              << appended->uri() << ": ";
    PrintSnapshot(*appended);
    PrintBadVectors(BadVectors(*appended, current.get()));
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto source, OpenSource(args));
  ARROW_ASSIGN_OR_RAISE(auto appended, WithProgress([&](util::OperationControl* control) {
                          return current->Append(source, WriteOptionsOf(args, control));
                        }));
  std::cout << "appended " << Quantity(source->rows(), "row") << " to " << appended->uri() << ": ";
  PrintSnapshot(*appended);
  return arrow::Status::OK();
}

arrow::Status RunOverwrite(const SourceArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  ARROW_ASSIGN_OR_RAISE(auto source, OpenSource(args));
  ARROW_ASSIGN_OR_RAISE(auto replaced, WithProgress([&](util::OperationControl* control) {
                          return current->Overwrite(source, WriteOptionsOf(args, control));
                        }));
  std::cout << "overwrote " << replaced->uri() << " with " << Quantity(source->rows(), "row")
            << ": ";
  PrintSnapshot(*replaced);
  return arrow::Status::OK();
}

arrow::Status RunRefresh(const std::string& path) {
  // The latest version is read without checking its external files: their changes are what
  // a refresh records.
  ARROW_ASSIGN_OR_RAISE(auto current,
                        dataset::Dataset::Open(path, {}, /*check_external_files=*/false));
  ARROW_ASSIGN_OR_RAISE(auto refreshed, WithProgress([&](util::OperationControl* control) {
                          dataset::WriteOptions options;
                          options.control = control;
                          return dataset::RefreshExternalFiles(current, options);
                        }));
  for (const auto& location : refreshed.reregistered) {
    std::cout << "registered again: " << location << "\n";
  }
  for (const auto& location : refreshed.removed) std::cout << "removed: " << location << "\n";
  if (refreshed.dataset->version() == current->version()) {
    std::cout << "no external file changed; " << current->uri() << " stays at version "
              << current->version() << std::endl;
    return arrow::Status::OK();
  }
  std::cout << "refreshed " << refreshed.dataset->uri() << ": ";
  PrintSnapshot(*refreshed.dataset);
  return arrow::Status::OK();
}

struct DeleteArguments {
  std::string dataset;
  std::string filter;
  std::string deleted_rows;  // a file of position deletes instead of a filter
  bool explain = false;
};

// `delete --deleted-rows FILE`: rows of external files named by (file_path, pos).
arrow::Status RunPositionDeletes(const DeleteArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  ARROW_ASSIGN_OR_RAISE(auto addresses, dataset::ReadPositionDeletes(*current, args.deleted_rows));
  ARROW_ASSIGN_OR_RAISE(
      auto after, current->DeleteRows(addresses, "position deletes from " + args.deleted_rows));
  if (after->version() == current->version()) {
    std::cout << "every row named is deleted already; " << after->uri() << " stays at version "
              << after->version() << std::endl;
    return arrow::Status::OK();
  }
  std::cout << "deleted the rows of " << args.deleted_rows << " from " << after->uri() << ": ";
  PrintSnapshot(*after);
  return arrow::Status::OK();
}

// The rows to delete are found through indexes where they answer the filter (query::Delete).
arrow::Status RunDelete(const DeleteArguments& args) {
  if (!args.deleted_rows.empty()) return RunPositionDeletes(args);
  if (args.filter.empty()) {
    return InvalidArgument(
        "delete needs --where EXPR (--where true deletes every row) or "
        "--deleted-rows FILE");
  }
  ARROW_ASSIGN_OR_RAISE(auto current, dataset::Dataset::Open(args.dataset));
  query::Explain explain;
  ARROW_ASSIGN_OR_RAISE(auto after, query::Delete(*query::Snapshot::Make(current), args.filter, {},
                                                  args.explain ? &explain : nullptr));
  if (args.explain) PrintExplain(explain);
  if (after->version() == current->version()) {
    std::cout << "no row matches; " << after->uri() << " stays at version " << after->version()
              << std::endl;
    return arrow::Status::OK();
  }
  if (after->version() == current->version() + 1) {
    // Nothing else committed in between: the difference of live rows is what we deleted.
    std::cout << "deleted " << Quantity(current->CountRows() - after->CountRows(), "row")
              << " from " << after->uri() << ": ";
  } else {
    std::cout << "deleted the matching rows from " << after->uri()
              << " (after concurrent commits): ";
  }
  PrintSnapshot(*after);
  return arrow::Status::OK();
}

}  // namespace

void AddWriteCommands(CommandSet& commands) {
  {
    auto args = std::make_shared<SourceArguments>();
    CLI::App* command = commands.Add("create", "Create a dataset (version 1) from files",
                                     [args] { return RunCreate(*args); });
    AddSourceOptions(command, args.get(), /*external=*/true, /*vectors=*/true);
  }
  {
    auto args = std::make_shared<SourceArguments>();
    CLI::App* command = commands.Add("append", "Append the rows of files as a new version",
                                     [args] { return RunAppend(*args); });
    AddSourceOptions(command, args.get(), /*external=*/true);
  }
  {
    auto args = std::make_shared<SourceArguments>();
    CLI::App* command =
        commands.Add("overwrite", "Replace all rows (and possibly the schema) as a new version",
                     [args] { return RunOverwrite(*args); });
    AddSourceOptions(command, args.get());
  }
  {
    auto path = std::make_shared<std::string>();
    CLI::App* command = commands.Add(
        "refresh",
        "Record external files that changed since they were registered: each becomes a new "
        "fragment (unindexed until index optimize), each removed file leaves",
        [path] { return RunRefresh(*path); });
    AddDatasetArgument(command, path.get());
  }
  {
    auto args = std::make_shared<DeleteArguments>();
    CLI::App* command = commands.Add("delete", "Delete the rows matching a filter",
                                     [args] { return RunDelete(*args); });
    AddDatasetArgument(command, &args->dataset);
    // Exactly one of the two says which rows go.
    CLI::Option_group* rows = command->add_option_group("rows", "The rows to delete");
    AddWhereOption(rows, &args->filter, "use --where true to delete every row");
    rows->add_option("--deleted-rows", args->deleted_rows,
                     "Instead of --where: a Parquet or Arrow file of position deletes (columns "
                     "file_path and pos) naming rows of the dataset's external files")
        ->type_name("FILE");
    rows->require_option(1);
    command->add_flag("--explain", args->explain,
                      "Print which index or scan found the rows of each group of fragments, on "
                      "standard error");
  }
}

}  // namespace tessera::cli
