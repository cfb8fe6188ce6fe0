// `tessera knn-join`: for every row of a left input (a Parquet or Arrow file, or a dataset), its k
// nearest rows of a right dataset, written to a Parquet file (query/knn_join.h; docs/cli.md).
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "command_progress.h"
#include "dataset_commands.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/vector/distance.h"
#include "tessera/io/replace_file.h"
#include "tessera/query/knn_join.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"
#include "units.h"

namespace tessera::cli {
namespace {

struct KnnJoinArguments {
  std::string left;
  std::string left_column;
  std::vector<std::string> left_columns;
  std::string right;
  std::string right_column;
  std::vector<std::string> project;
  int64_t k = 0;
  int nprobes = query::kDefaultNprobes;
  int refine_factor = 1;
  int ef = 0;
  std::string metric;
  std::string filter;
  bool exact = false;
  int64_t batch_rows = 1024;
  std::string out;
  bool force = false;
};

// The left input: a dataset directory (its latest version, scanned) or a file.
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> OpenLeft(const std::string& left) {
  if (std::filesystem::is_directory(left)) {
    ARROW_ASSIGN_OR_RAISE(auto data, dataset::Dataset::Open(left));
    return data->Scan({});
  }
  return dataset::OpenFilesAsReader({left});
}

arrow::Status RunKnnJoin(const KnnJoinArguments& args) {
  if (std::filesystem::exists(args.out) && !args.force) {
    return AlreadyExists("'", args.out, "' exists: pass --force to replace it");
  }
  ARROW_ASSIGN_OR_RAISE(auto left, OpenLeft(args.left));
  ARROW_ASSIGN_OR_RAISE(auto right, query::Snapshot::Open(args.right));
  query::KnnJoinOptions options;
  options.left_column = args.left_column;
  options.left_columns = args.left_columns;
  options.right.column = args.right_column;
  options.right.k = args.k;
  options.right.nprobes = args.nprobes;
  options.right.refine_factor = args.refine_factor;
  options.right.ef = args.ef;
  options.right.filter = args.filter;
  options.right.columns = args.project;
  options.right.use_index = !args.exact;
  if (!args.metric.empty()) {
    ARROW_ASSIGN_OR_RAISE(options.right.metric, index::vector::ParseMetric(args.metric));
  }
  options.batch_rows = args.batch_rows;
  const auto start = std::chrono::steady_clock::now();
  query::KnnJoinResult joined;
  // Written all at once (io::ReplaceFile): a failed or cancelled join leaves no partial file.
  auto written = io::ReplaceFile(args.out, [&](std::shared_ptr<arrow::io::OutputStream> sink) {
    std::unique_ptr<parquet::arrow::FileWriter> writer;
    ARROW_ASSIGN_OR_RAISE(
        joined, WithProgress([&](util::OperationControl* control) {
          const util::ControlScope scope(control);
          return query::KnnJoin(
              *left, right, options,
              [&](const std::shared_ptr<arrow::RecordBatch>& batch) -> arrow::Status {
                if (writer == nullptr) {
                  auto arrow_properties =
                      parquet::ArrowWriterProperties::Builder().store_schema()->build();
                  ARROW_ASSIGN_OR_RAISE(
                      writer, parquet::arrow::FileWriter::Open(
                                  *batch->schema(), arrow::default_memory_pool(), sink,
                                  parquet::default_writer_properties(), arrow_properties));
                }
                return writer->WriteRecordBatch(*batch);
              });
        }));
    if (writer == nullptr) {
      return InvalidArgument(
          "the join produced no row (an empty left input, or no right row "
          "passes the filter): nothing written");
    }
    return writer->Close();
  });
  if (!written.ok()) return WithContext(written, "knn-join into '" + args.out + "'");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "joined " << Quantity(joined.left_rows, "left row") << " with their " << args.k
            << " nearest of " << right->dataset().uri() << ": "
            << Quantity(joined.output_rows, "row") << " written to " << args.out << " in "
            << seconds << " s" << std::endl;
  return arrow::Status::OK();
}

}  // namespace

void AddKnnJoinCommand(CommandSet& commands) {
  auto args = std::make_shared<KnnJoinArguments>();
  CLI::App* command = commands.Add(
      "knn-join",
      "For every row of a left input, its k nearest rows of a right dataset, into a Parquet file",
      [args] { return RunKnnJoin(*args); });
  command
      ->add_option("--left", args->left,
                   "The queries: a Parquet or Arrow file, or a dataset directory")
      ->required()
      ->type_name("FILE|DIR");
  command->add_option("--left-column", args->left_column, "The left input's vector column")
      ->required()
      ->type_name("COLUMN");
  command
      ->add_option("--left-columns", args->left_columns,
                   "Left columns to carry, comma-separated (default: all but the vector column)")
      ->delimiter(',')
      ->type_name("COLUMN");
  command->add_option("--right", args->right, "The dataset searched")->required()->type_name("DIR");
  command->add_option("--right-column", args->right_column, "The right dataset's vector column")
      ->required()
      ->type_name("COLUMN");
  command
      ->add_option("--project", args->project,
                   "Right columns to carry, comma-separated (default: all but the vector column)")
      ->delimiter(',')
      ->type_name("COLUMN");
  command->add_option("--k", args->k, "Right rows per left row")
      ->required()
      ->check(IntegerAtLeast<int64_t>(1));
  command->add_option("--nprobes", args->nprobes, "IVF partitions probed per segment (default 20)")
      ->check(IntegerAtLeast<int>(1));
  command
      ->add_option("--refine-factor", args->refine_factor,
                   "Quantized indexes: re-rank k x N candidates by exact distance (default 1)")
      ->check(IntegerAtLeast<int>(1));
  command
      ->add_option("--ef", args->ef,
                   "IVF_HNSW_* indexes: candidates per probed partition's graph search (0: 64)")
      ->check(IntegerAtLeast<int>(0));
  command->add_option("--metric", args->metric, "l2, cosine or dot (default: the index's)")
      ->type_name("METRIC");
  AddWhereOption(command, &args->filter, "a filter on the right rows, applied before the search");
  command->add_flag("--exact", args->exact,
                    "Score every right row (no index): the exact join, the ground truth");
  command
      ->add_option("--batch-rows", args->batch_rows,
                   "Left rows searched together (default 1024): memory is bounded by a batch")
      ->check(IntegerAtLeast<int64_t>(1));
  command->add_option("--out", args->out, "The Parquet file written")
      ->required()
      ->type_name("FILE");
  command->add_flag("--force", args->force, "Replace an existing output file");
}

}  // namespace tessera::cli
