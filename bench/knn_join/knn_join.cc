// knn_join: the k-nearest-neighbour join over Parquet that issue 16 asks for (docs/benchmarks.md,
// "k-NN join over Parquet"; bench/run_knn_join.sh runs it).
//
// R: --rows rows (default 1M) of an id, a vector of --dim floats written as Spark writes them
// (list<float>, no Arrow schema stored) and --payload-columns string columns of --payload-bytes
// bytes, in row groups of --row-group-rows rows (pyarrow's and Spark's writers make row groups of
// 10^5 to 10^6 rows). L: --queries query vectors from the same distribution. For every left row,
// its --k nearest right rows, with their id and payload, three ways:
//   exact     the brute-force join (every right row scored), over the Parquet file as an
//             external dataset: the ground truth;
//   external  the Parquet file registered as an external dataset, IVF_PQ built over it once;
//             the join warm (median of --repetitions);
//   native    copy-then-index: the Parquet file copied into a dataset, the same index, the join.
// Reported per way: wall time of each step, recall@k against exact, and bytes read from files
// by read(2)/pread(2) (/proc/self/io rchar; memory-mapped native data is not counted). Also the
// refinement's bytes when each query is joined alone (--per-query-sample queries, scaled to
// --queries) against the batch join's, and the time per query so joined, external and native
// (a single search and its take: what one interactive query costs; the file is written with
// Arrow's default page index, so its pages are read alone).
#include <arrow/api.h>
#include <arrow/compute/cast.h>
#include <arrow/io/file.h>
#include <parquet/arrow/writer.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/knn_join.h"
#include "tessera/query/snapshot.h"
#include "tessera/synthetic/embedding_generator.h"

namespace {

using tessera::dataset::Dataset;

struct Config {
  std::string dir;
  int64_t rows = 1000000;
  int dim = 128;
  int64_t queries = 1000;
  int64_t k = 10;
  int payload_columns = 16;
  int payload_bytes = 64;
  int64_t row_group_rows = 100000;
  int partitions = 256;
  int sub_vectors = 16;
  int nprobes = 16;
  int refine_factor = 4;
  int repetitions = 3;
  int64_t per_query_sample = 10;
};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

uint64_t BytesRead() {
  std::ifstream io("/proc/self/io");
  std::string key;
  uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return 0;
}

template <typename T>
T Check(arrow::Result<T> result, const std::string& what) {
  if (!result.ok()) {
    std::cerr << what << ": " << result.status().ToString() << std::endl;
    std::exit(1);
  }
  return std::move(*result);
}

void Check(const arrow::Status& status, const std::string& what) {
  if (!status.ok()) {
    std::cerr << what << ": " << status.ToString() << std::endl;
    std::exit(1);
  }
}

tessera::synthetic::EmbeddingOptions Embeddings(const Config& config, uint64_t seed) {
  tessera::synthetic::EmbeddingOptions options;
  options.rows = config.rows;
  options.dim = config.dim;
  options.seed = seed;
  options.batch_rows = 65536;
  return options;
}

// R as Spark writes it: id, vector as list<float>, payload strings.
void WriteRight(const Config& config, const std::string& path) {
  auto source = Check(tessera::synthetic::MakeEmbeddingReader(Embeddings(config, 42)), "generate");
  arrow::FieldVector fields = {arrow::field("id", arrow::int64()),
                               arrow::field("vector", arrow::list(arrow::float32()))};
  for (int c = 0; c < config.payload_columns; ++c) {
    fields.push_back(arrow::field("payload_" + std::to_string(c), arrow::utf8()));
  }
  auto schema = arrow::schema(fields);
  auto out = Check(arrow::io::FileOutputStream::Open(path), "open " + path);
  auto properties = parquet::WriterProperties::Builder()
                        .max_row_group_length(config.row_group_rows)
                        ->disable_dictionary("vector.list.element")
                        ->build();
  auto writer = Check(
      parquet::arrow::FileWriter::Open(*schema, arrow::default_memory_pool(), out, properties),
      "writer");
  std::mt19937_64 random(7);
  const std::string letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    Check(source->ReadNext(&batch), "generate");
    if (batch == nullptr) break;
    const auto& vectors =
        static_cast<const arrow::FixedSizeListArray&>(*batch->GetColumnByName("vector"));
    std::shared_ptr<arrow::Array> lists =
        Check(arrow::compute::Cast(vectors, arrow::list(arrow::float32())), "cast");
    std::vector<std::shared_ptr<arrow::Array>> columns = {batch->GetColumnByName("id"), lists};
    for (int c = 0; c < config.payload_columns; ++c) {
      arrow::StringBuilder builder;
      std::string value(static_cast<size_t>(config.payload_bytes), ' ');
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        for (char& ch : value) ch = letters[random() % letters.size()];
        Check(builder.Append(value), "payload");
      }
      columns.push_back(Check(builder.Finish(), "payload"));
    }
    Check(writer->WriteRecordBatch(*arrow::RecordBatch::Make(schema, batch->num_rows(), columns)),
          "write");
  }
  Check(writer->Close(), "close");
  Check(out->Close(), "close");
}

std::shared_ptr<arrow::RecordBatchReader> Left(const Config& config) {
  auto vectors =
      Check(tessera::synthetic::MakeQueryVectors(Embeddings(config, 42), config.queries), "left");
  arrow::Int64Builder ids;
  for (int64_t i = 0; i < config.queries; ++i) Check(ids.Append(i), "left");
  auto schema =
      arrow::schema({arrow::field("query", arrow::int64()), arrow::field("q", vectors->type())});
  auto table = arrow::Table::Make(schema, {Check(ids.Finish(), "left"), vectors});
  return std::make_shared<arrow::TableBatchReader>(table);
}

struct Joined {
  std::map<int64_t, std::vector<int64_t>> ids;  // query -> right ids in rank order
  double seconds = 0;
  uint64_t bytes = 0;
};

Joined Join(const Config& config, const std::shared_ptr<const Dataset>& right, bool exact,
            int64_t batch_rows, int64_t queries) {
  tessera::query::KnnJoinOptions options;
  options.left_column = "q";
  options.right.column = "vector";
  options.right.k = config.k;
  options.right.nprobes = config.nprobes;
  options.right.refine_factor = config.refine_factor;
  options.right.use_index = !exact;
  options.batch_rows = batch_rows;
  auto left = Left(config);
  std::vector<std::shared_ptr<arrow::RecordBatch>> limited;
  {
    auto table = Check(left->ToTable(), "left")->Slice(0, queries);
    left = std::make_shared<arrow::TableBatchReader>(table);
  }
  Joined joined;
  const uint64_t bytes = BytesRead();
  const auto start = std::chrono::steady_clock::now();
  Check(tessera::query::KnnJoin(
            *left, tessera::query::Snapshot::Make(right), options,
            [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
              const auto& query =
                  static_cast<const arrow::Int64Array&>(*batch->GetColumnByName("query"));
              const auto& id = static_cast<const arrow::Int64Array&>(*batch->GetColumnByName("id"));
              for (int64_t row = 0; row < batch->num_rows(); ++row) {
                joined.ids[query.Value(row)].push_back(id.Value(row));
              }
              return arrow::Status::OK();
            })
            .status(),
        "join");
  joined.seconds = Seconds(start);
  joined.bytes = BytesRead() - bytes;
  return joined;
}

double Recall(const Joined& found, const Joined& truth, int64_t k) {
  int64_t hits = 0;
  int64_t total = 0;
  for (const auto& [query, ids] : truth.ids) {
    const std::set<int64_t> expected(ids.begin(), ids.begin() + std::min<int64_t>(k, ids.size()));
    total += static_cast<int64_t>(expected.size());
    auto it = found.ids.find(query);
    if (it == found.ids.end()) continue;
    for (int64_t id : it->second) hits += expected.count(id);
  }
  return total == 0 ? 0 : static_cast<double>(hits) / static_cast<double>(total);
}

// The median join of `repetitions` (recall from the last).
Joined WarmJoin(const Config& config, const std::shared_ptr<const Dataset>& right) {
  std::vector<Joined> runs;
  for (int r = 0; r < config.repetitions; ++r) {
    runs.push_back(Join(config, right, false, config.queries, config.queries));
  }
  std::sort(runs.begin(), runs.end(),
            [](const Joined& a, const Joined& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

std::shared_ptr<const Dataset> BuildIndex(const Config& config, std::shared_ptr<Dataset> data,
                                          double* seconds) {
  tessera::index::IndexSpec spec{"v",
                                 "vector",
                                 "IVF_PQ",
                                 {{"num_partitions", std::to_string(config.partitions)},
                                  {"num_sub_vectors", std::to_string(config.sub_vectors)}}};
  const auto start = std::chrono::steady_clock::now();
  auto indexed = Check(tessera::index::CreateIndex(*data, spec), "index");
  *seconds = Seconds(start);
  return indexed;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--dir")
      config.dir = value;
    else if (flag == "--rows")
      config.rows = std::stoll(value);
    else if (flag == "--dim")
      config.dim = std::stoi(value);
    else if (flag == "--queries")
      config.queries = std::stoll(value);
    else if (flag == "--k")
      config.k = std::stoll(value);
    else if (flag == "--payload-columns")
      config.payload_columns = std::stoi(value);
    else if (flag == "--payload-bytes")
      config.payload_bytes = std::stoi(value);
    else if (flag == "--row-group-rows")
      config.row_group_rows = std::stoll(value);
    else if (flag == "--partitions")
      config.partitions = std::stoi(value);
    else if (flag == "--sub-vectors")
      config.sub_vectors = std::stoi(value);
    else if (flag == "--nprobes")
      config.nprobes = std::stoi(value);
    else if (flag == "--refine-factor")
      config.refine_factor = std::stoi(value);
    else if (flag == "--repetitions")
      config.repetitions = std::stoi(value);
    else if (flag == "--per-query-sample")
      config.per_query_sample = std::stoll(value);
    else {
      std::cerr << "unknown flag " << flag << std::endl;
      return 2;
    }
  }
  if (config.dir.empty()) {
    std::cerr << "usage: knn_join --dir DIR [--rows N] [--dim D] [--queries Q] ..." << std::endl;
    return 2;
  }
  std::filesystem::create_directories(config.dir);
  std::ostringstream name;
  name << config.dir << "/right-" << config.rows << "x" << config.dim << "-p"
       << config.payload_columns << "x" << config.payload_bytes << "-rg" << config.row_group_rows
       << ".parquet";
  const std::string right_path = name.str();
  if (!std::filesystem::exists(right_path)) {
    const auto start = std::chrono::steady_clock::now();
    WriteRight(config, right_path + ".tmp");
    std::filesystem::rename(right_path + ".tmp", right_path);
    std::cerr << "wrote " << right_path << " in " << Seconds(start) << " s" << std::endl;
  }
  const uint64_t file_bytes = std::filesystem::file_size(right_path);
  for (const char* sub : {"external", "native"}) {
    std::filesystem::remove_all(config.dir + "/" + sub);
  }
  tessera::dataset::ExternalOptions vectors;
  vectors.vector_dimensions["vector"] = config.dim;

  auto start = std::chrono::steady_clock::now();
  auto external =
      Check(Dataset::CreateExternal(config.dir + "/external", {right_path}, vectors), "register");
  const double register_seconds = Seconds(start);

  std::cerr << "exact join ..." << std::endl;
  const Joined exact = Join(config, external, true, config.queries, config.queries);
  double external_build = 0;
  auto external_indexed = BuildIndex(config, external, &external_build);
  std::cerr << "external joins ..." << std::endl;
  const Joined external_join = WarmJoin(config, external_indexed);
  // Refinement alone, query by query, on a sample: bytes per query, scaled.
  const Joined per_query =
      Join(config, external_indexed, false, 1, std::min(config.per_query_sample, config.queries));
  const double per_query_bytes = static_cast<double>(per_query.bytes) /
                                 static_cast<double>(per_query.ids.size()) *
                                 static_cast<double>(config.queries);

  std::cerr << "copy and index ..." << std::endl;
  start = std::chrono::steady_clock::now();
  auto native = Check(
      Dataset::Create(config.dir + "/native", Check(external->Scan({}), "scan external")), "copy");
  const double copy_seconds = Seconds(start);
  double native_build = 0;
  auto native_indexed = BuildIndex(config, native, &native_build);
  const Joined native_join = WarmJoin(config, native_indexed);
  const Joined native_per_query =
      Join(config, native_indexed, false, 1, std::min(config.per_query_sample, config.queries));

  const double external_recall = Recall(external_join, exact, config.k);
  const double native_recall = Recall(native_join, exact, config.k);
  std::cout << std::fixed << std::setprecision(3);
  std::cout << "R: " << config.rows << " x " << config.dim << " (list<float>) + "
            << config.payload_columns << " x " << config.payload_bytes << " B strings, "
            << file_bytes / (1 << 20) << " MiB Parquet, row groups of " << config.row_group_rows
            << "; L: " << config.queries << " queries; k = " << config.k << "; IVF_PQ "
            << config.partitions << " partitions, " << config.sub_vectors
            << " sub-vectors; nprobes " << config.nprobes << ", refine factor "
            << config.refine_factor << "\n\n";
  std::cout << "| way | setup (s) | index build (s) | join (s) | recall@" << config.k
            << " | bytes read by the join (MiB) |\n|---|---|---|---|---|---|\n";
  std::cout << "| exact (brute force over the Parquet file) | " << register_seconds << " | - | "
            << exact.seconds << " | 1 | " << exact.bytes / (1 << 20) << " |\n";
  std::cout << "| external (warm, median of " << config.repetitions << ") | " << register_seconds
            << " | " << external_build << " | " << external_join.seconds << " | " << external_recall
            << " | " << external_join.bytes / (1 << 20) << " |\n";
  std::cout << "| native (copy, then index) | " << copy_seconds << " | " << native_build << " | "
            << native_join.seconds << " | " << native_recall << " | "
            << native_join.bytes / (1 << 20) << " |\n\n";
  std::cout << "exact / external join time: " << exact.seconds / external_join.seconds << "x\n";
  std::cout << "external / native join time: " << external_join.seconds / native_join.seconds
            << "x\n";
  const auto per_query_ms = [](const Joined& joined) {
    return joined.seconds * 1000 / static_cast<double>(std::max<size_t>(1, joined.ids.size()));
  };
  std::cout << "one left row at a time (" << per_query.ids.size()
            << " queries, a search and a take each): external " << per_query_ms(per_query)
            << " ms per query, native " << per_query_ms(native_per_query) << " ms; ratio "
            << per_query_ms(per_query) / per_query_ms(native_per_query) << "x\n";
  std::cout << "per-query refinement bytes (" << per_query.ids.size() << " queries, scaled to "
            << config.queries << "): " << per_query_bytes / (1 << 20)
            << " MiB; batch join: " << external_join.bytes / (1 << 20) << " MiB; ratio "
            << per_query_bytes / std::max<double>(1, static_cast<double>(external_join.bytes))
            << "x\n";
  return 0;
}
