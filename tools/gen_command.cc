#include "gen_command.h"

#include <arrow/builder.h>
#include <arrow/io/interfaces.h>
#include <arrow/ipc/writer.h>
#include <arrow/table.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "tessera/dataset/dataset.h"
#include "tessera/io/replace_file.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"
#include "units.h"

namespace tessera::cli {
namespace {

struct GenArguments {
  std::string output;
  std::string dataset;
  int64_t rows = 0;
  CLI::Option* rows_option = nullptr;
  int64_t queries = 0;
  CLI::Option* queries_option = nullptr;
  synthetic::EmbeddingOptions embedding;
  uint64_t fragment_rows = 0;
  CLI::Option* fragment_rows_option = nullptr;
  bool force = false;
};

enum class FileFormat { kArrowFile, kArrowStream, kParquet };

arrow::Result<FileFormat> FormatOfPath(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (extension == ".arrow" || extension == ".feather" || extension == ".ipc") {
    return FileFormat::kArrowFile;
  }
  if (extension == ".arrows") return FileFormat::kArrowStream;
  if (extension == ".parquet") return FileFormat::kParquet;
  return InvalidArgument("cannot tell the format of '", path,
                         "' from its extension: use .arrow, .feather, .ipc (Arrow IPC file), "
                         ".arrows (Arrow IPC stream) or .parquet; or --dataset DIR");
}

// The rows to write: the synthetic dataset, or only query vectors (id, vector).
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> MakeSource(const GenArguments& args) {
  if (args.queries_option->count() == 0) {
    synthetic::EmbeddingOptions options = args.embedding;
    options.rows = args.rows;
    return synthetic::MakeEmbeddingReader(options);
  }
  ARROW_ASSIGN_OR_RAISE(auto vectors, synthetic::MakeQueryVectors(args.embedding, args.queries));
  std::vector<int64_t> ids(static_cast<size_t>(args.queries));
  for (int64_t i = 0; i < args.queries; ++i) ids[static_cast<size_t>(i)] = i;
  arrow::Int64Builder id_builder;
  ARROW_RETURN_NOT_OK(id_builder.AppendValues(ids));
  ARROW_ASSIGN_OR_RAISE(auto id_array, id_builder.Finish());
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("vector", vectors->type())});
  auto table = arrow::Table::Make(schema, {id_array, vectors}, args.queries);
  auto reader = std::make_shared<arrow::TableBatchReader>(table);
  reader->set_chunksize(args.embedding.batch_rows);
  return reader;
}

// Streams `source` into `sink`; returns the number of rows written.
arrow::Result<int64_t> WriteRows(arrow::RecordBatchReader& source,
                                 const std::shared_ptr<arrow::io::OutputStream>& sink,
                                 FileFormat format, int64_t batch_rows) {
  int64_t rows = 0;
  std::shared_ptr<arrow::RecordBatch> batch;
  if (format == FileFormat::kParquet) {
    // Row groups bounded so the writer's buffers stay small; the stored Arrow schema keeps
    // fixed_size_list and the time zone across the round trip.
    // Dictionary encoding is pointless for float vectors and buffers whole row groups.
    auto properties = parquet::WriterProperties::Builder()
                          .max_row_group_length(std::max<int64_t>(batch_rows, 65536))
                          ->disable_dictionary("vector.list.element")
                          ->build();
    auto arrow_properties = parquet::ArrowWriterProperties::Builder().store_schema()->build();
    ARROW_ASSIGN_OR_RAISE(auto writer, parquet::arrow::FileWriter::Open(
                                           *source.schema(), arrow::default_memory_pool(), sink,
                                           properties, arrow_properties));
    while (true) {
      ARROW_RETURN_NOT_OK(source.ReadNext(&batch));
      if (batch == nullptr) break;
      ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
      rows += batch->num_rows();
    }
    ARROW_RETURN_NOT_OK(writer->Close());
  } else {
    std::shared_ptr<arrow::ipc::RecordBatchWriter> writer;
    if (format == FileFormat::kArrowFile) {
      ARROW_ASSIGN_OR_RAISE(writer, arrow::ipc::MakeFileWriter(sink, source.schema()));
    } else {
      ARROW_ASSIGN_OR_RAISE(writer, arrow::ipc::MakeStreamWriter(sink, source.schema()));
    }
    while (true) {
      ARROW_RETURN_NOT_OK(source.ReadNext(&batch));
      if (batch == nullptr) break;
      ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
      rows += batch->num_rows();
    }
    ARROW_RETURN_NOT_OK(writer->Close());
  }
  return rows;
}

// Written all at once (io::ReplaceFile): a failed or interrupted run never leaves a truncated
// file under the requested name.
arrow::Status GenerateFile(const GenArguments& args) {
  ARROW_ASSIGN_OR_RAISE(FileFormat format, FormatOfPath(args.output));
  std::error_code error;
  const bool exists = std::filesystem::exists(args.output, error);
  if (exists && std::filesystem::is_directory(args.output, error)) {
    return InvalidArgument("'", args.output, "' is a directory: name a file, or use --dataset");
  }
  if (exists && !args.force) {
    return AlreadyExists("'", args.output, "' exists: pass --force to replace it");
  }
  ARROW_ASSIGN_OR_RAISE(auto source, MakeSource(args));
  int64_t written = 0;
  auto replaced = io::ReplaceFile(args.output, [&](std::shared_ptr<arrow::io::OutputStream> sink) {
    ARROW_ASSIGN_OR_RAISE(written, WriteRows(*source, sink, format, args.embedding.batch_rows));
    return arrow::Status::OK();
  });
  if (!replaced.ok()) return WithContext(replaced, "writing '" + args.output + "'");
  std::cout << "wrote " << Quantity(written, args.queries_option->count() ? "query vector" : "row")
            << " (dim " << args.embedding.dim << ") to " << args.output << std::endl;
  return arrow::Status::OK();
}

arrow::Status GenerateDataset(const GenArguments& args) {
  ARROW_ASSIGN_OR_RAISE(auto source, MakeSource(args));
  dataset::WriteOptions options;
  if (args.fragment_rows_option->count() > 0) options.max_rows_per_file = args.fragment_rows;
  ARROW_ASSIGN_OR_RAISE(auto created, dataset::Dataset::Create(args.dataset, source, options));
  std::cout << "created dataset " << created->uri() << ": version " << created->version() << ", "
            << Quantity(created->CountRows(), "row") << " in "
            << Quantity(created->manifest().fragments_size(), "fragment") << std::endl;
  return arrow::Status::OK();
}

arrow::Status RunGen(const GenArguments& args) {
  const bool to_file = !args.output.empty();
  const bool to_dataset = !args.dataset.empty();
  if (to_file && to_dataset) {
    return InvalidArgument("gen: give an output file or --dataset DIR, not both");
  }
  if (!to_file && !to_dataset) {
    return InvalidArgument(
        "gen: give an output file (OUT.arrow, OUT.parquet, ...) or "
        "--dataset DIR");
  }
  const bool queries = args.queries_option->count() > 0;
  const bool rows = args.rows_option->count() > 0;
  if (queries && rows) return InvalidArgument("gen: give --rows or --queries, not both");
  if (!queries && !rows) {
    return InvalidArgument("gen: give --rows N (dataset rows) or --queries N (query vectors)");
  }
  if (args.fragment_rows_option->count() > 0 && !to_dataset) {
    return InvalidArgument(
        "gen: --fragment-rows applies to --dataset only; a file's batch size "
        "is --batch-rows");
  }
  if (args.force && !to_file) {
    return InvalidArgument(
        "gen: --force applies to file output only; a dataset is never "
        "replaced");
  }
  ARROW_RETURN_NOT_OK(synthetic::ValidateOptions(args.embedding));
  return to_file ? GenerateFile(args) : GenerateDataset(args);
}

}  // namespace

void AddGenCommand(CommandSet& commands) {
  auto args = std::make_shared<GenArguments>();
  CLI::App* command = commands.Add(
      "gen", "Generate synthetic embeddings with attributes into a file or a new dataset",
      [args] { return RunGen(*args); });
  command
      ->add_option("OUT", args->output,
                   "Output file: .arrow/.feather/.ipc (Arrow IPC file), .arrows (IPC stream) "
                   "or .parquet")
      ->type_name("FILE");
  command->add_option("--dataset", args->dataset, "Create a new dataset at DIR instead")
      ->type_name("DIR");
  args->rows_option =
      command->add_option("--rows", args->rows, "Number of rows")->check(IntegerAtLeast(0));
  args->queries_option =
      command
          ->add_option("--queries", args->queries,
                       "Write N query vectors (id, vector) from the same distribution instead "
                       "of rows")
          ->check(IntegerAtLeast(0));
  command->add_option("--dim", args->embedding.dim, "Vector dimension")
      ->required()
      ->check(IntegerAtLeast<int32_t>(1));
  command->add_option("--latent-dim", args->embedding.latent_dim, "Dimension of the latent space")
      ->check(IntegerAtLeast<int32_t>(1))
      ->capture_default_str();
  command->add_option("--clusters", args->embedding.clusters, "Components of the mixture")
      ->check(IntegerAtLeast<int32_t>(1))
      ->capture_default_str();
  command->add_option("--seed", args->embedding.seed, "Seed of every random choice")
      ->check(IntegerAtLeast<uint64_t>(0))
      ->capture_default_str();
  command->add_option("--noise", args->embedding.noise_stddev, "Isotropic noise (stddev)")
      ->check(NonNegativeReal())
      ->capture_default_str();
  command->add_option("--batch-rows", args->embedding.batch_rows, "Rows per record batch")
      ->check(IntegerAtLeast(1))
      ->capture_default_str();
  args->fragment_rows_option = command
                                   ->add_option("--fragment-rows", args->fragment_rows,
                                                "With --dataset: rows per fragment (data file)")
                                   ->check(IntegerAtLeast<uint64_t>(1));
  command->add_flag("--force", args->force, "Replace an existing output file");
}

}  // namespace tessera::cli
