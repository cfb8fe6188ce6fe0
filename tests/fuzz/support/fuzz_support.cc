#include "fuzz_support.h"

#include <google/protobuf/stubs/logging.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "tessera/index/lifecycle.h"
#include "tessera/io/block_checksums.h"
#include "tessera/io/checksum.h"
#include "tessera/io/framed_file.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::fuzz {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void FixtureFailed(const std::string& what, const arrow::Status& status) {
  std::cerr << "fuzz fixture: " << what << ": " << status.ToString() << std::endl;
  std::abort();
}

template <typename T>
T ValueOrDie(arrow::Result<T> result, const std::string& what) {
  if (!result.ok()) FixtureFailed(what, result.status());
  return std::move(result).ValueUnsafe();
}

void RemoveScratchRoot() {
  std::error_code ignored;
  fs::remove_all(ScratchRoot(), ignored);
}

uint32_t LoadLittleEndian32(const char* in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  return value;
}

void StoreLittleEndian32(uint32_t value, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

void RepairTrailingCrc(char* bytes, size_t size) {
  if (size < 4) return;
  StoreLittleEndian32(io::Crc32c(bytes, size - 4), bytes + size - 4);
}

// The footer of io/framed_file.cc: payload length (8), CRC-32C (4), reserved (4), magic (8).
constexpr size_t kFrameFooterSize = 24;
constexpr std::string_view kFrameMagic = "TESSFRM1";

TemplateDataset BuildTemplate() {
  TemplateDataset built;
  built.root = ScratchRoot() / "template";
  synthetic::EmbeddingOptions options;
  options.rows = 200;
  options.dim = 8;
  options.clusters = 4;
  options.batch_rows = 64;
  auto source = ValueOrDie(synthetic::MakeEmbeddingReader(options), "synthetic rows");
  // Two fragments of one batch each, the shape of scripts/make_fuzz_corpus.sh's dataset (the CLI
  // writes batches of the default size), so that its data files are seeds of this fragment.
  dataset::WriteOptions write;
  write.max_rows_per_file = 128;
  auto snapshot =
      ValueOrDie(dataset::Dataset::Create(built.root.string(), source, write), "create dataset");
  snapshot = ValueOrDie(snapshot->Delete("id < 3 OR id = 150"), "delete rows");
  const index::Params ivf = {{"num_partitions", "4"}, {"max_iters", "5"}};
  const std::vector<index::IndexSpec> specs = {
      {"price_btree", "price", "BTREE", {}},
      {"category_btree", "category", "BTREE", {}},
      {"vector_flat", "vector", "IVF_FLAT", ivf},
      {"vector_sq", "vector", "IVF_SQ", ivf},
      {"vector_pq", "vector", "IVF_PQ", ivf},
      {"vector_rq", "vector", "IVF_RQ", ivf},
      {"vector_hnsw",
       "vector",
       "IVF_HNSW_SQ",
       {{"num_partitions", "4"}, {"max_iters", "5"}, {"m", "4"}}},
      {"category_bitmap", "category", "BITMAP", {}},
      {"tags_labels", "tags", "LABEL_LIST", {}},
      {"text_ngram", "text", "NGRAM", {}},
      {"price_zonemap", "price", "ZONEMAP", {{"rows_per_zone", "16"}}},
      {"id_bloom", "id", "BLOOMFILTER", {{"rows_per_zone", "16"}}},
  };
  for (const auto& spec : specs) {
    snapshot = ValueOrDie(index::CreateIndex(*snapshot, spec), "create index " + spec.name);
  }
  built.dataset = snapshot;
  for (const auto& entry : fs::recursive_directory_iterator(built.root)) {
    if (entry.is_regular_file()) {
      built.files.push_back(fs::relative(entry.path(), built.root).string());
    }
  }
  fs::copy(built.root, ScratchRoot() / "pristine", fs::copy_options::recursive);
  return built;
}

}  // namespace

void InitializeProcess() {
  setenv("TESSERA_NUM_THREADS", "1", /*overwrite=*/1);
  // Arrow's buffers through malloc, where ASan sees them (overflows, leaks, -malloc_limit_mb),
  // instead of the wheel's jemalloc / mimalloc pools.
  setenv("ARROW_DEFAULT_MEMORY_POOL", "system", /*overwrite=*/1);
  // Protobuf logs every string field with invalid UTF-8 it meets; the parse failure that
  // follows is what the targets test, and the lines would only slow the runs down.
  google::protobuf::SetLogHandler(nullptr);
  ScratchRoot();
}

int InitializeWithTemplate() {
  InitializeProcess();
  Template();
  return 0;
}

const fs::path& ScratchRoot() {
  static const fs::path root = [] {
    std::string pattern = (fs::temp_directory_path() / "tessera-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("fuzz fixture: mkdtemp");
      std::abort();
    }
    std::atexit(RemoveScratchRoot);
    return fs::path(pattern);
  }();
  return root;
}

std::string ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) FixtureFailed("read " + path.string(), arrow::Status::IOError("cannot open"));
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Writes a new file and renames it over `path`: readers memory-map segment and data files, and
// truncating a mapped file in place would kill the process with SIGBUS, which is not a finding.
void WriteWholeFile(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  const fs::path temporary = path.string() + ".fuzz-tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) FixtureFailed("write " + path.string(), arrow::Status::IOError("cannot write"));
  }
  fs::rename(temporary, path);
}

std::string Reframe(std::string_view file) {
  std::string_view payload = file;
  if (file.size() >= kFrameFooterSize &&
      file.substr(file.size() - kFrameMagic.size()) == kFrameMagic) {
    payload = file.substr(0, file.size() - kFrameFooterSize);
  }
  return io::Frame(payload);
}

std::string_view FramePayload(std::string_view framed) {
  return framed.substr(0, framed.size() - kFrameFooterSize);
}

void AsGivenAndReframed(std::string_view file, const std::function<void(std::string_view)>& read) {
  read(file);
  read(Reframe(file));
}

std::string WithTrailingCrc(std::string_view bytes) {
  std::string repaired(bytes);
  RepairTrailingCrc(repaired.data(), repaired.size());
  return repaired;
}

std::string WithQuantizedModelCrcs(std::string_view bytes) {
  std::string repaired(bytes);
  // magic (8), format version (4), quantizer kind (4), then the IvfModel's length and bytes.
  constexpr size_t kModelLengthAt = 16;
  if (repaired.size() >= kModelLengthAt + 4) {
    const uint64_t length = LoadLittleEndian32(repaired.data() + kModelLengthAt);
    if (length <= repaired.size() - kModelLengthAt - 4) {
      RepairTrailingCrc(repaired.data() + kModelLengthAt + 4, static_cast<size_t>(length));
    }
  }
  RepairTrailingCrc(repaired.data(), repaired.size());
  return repaired;
}

const TemplateDataset& Template() {
  static const TemplateDataset* built = new TemplateDataset(BuildTemplate());
  return *built;
}

const format::SegmentMeta& TemplateSegment(std::string_view index_name) {
  for (const auto& definition : Template().dataset->manifest().indexes()) {
    if (definition.name() == index_name && definition.segments_size() == 1) {
      return definition.segments(0);
    }
  }
  FixtureFailed("segment of index " + std::string(index_name),
                arrow::Status::Invalid("not in the template"));
}

void ResetTemplate(const std::vector<std::string>& replaced) {
  const TemplateDataset& pristine = Template();
  static const std::set<std::string> known(pristine.files.begin(), pristine.files.end());
  std::vector<fs::path> extra;
  for (const auto& entry : fs::recursive_directory_iterator(pristine.root)) {
    if (entry.is_regular_file() &&
        known.count(fs::relative(entry.path(), pristine.root).string()) == 0) {
      extra.push_back(entry.path());
    }
  }
  for (const auto& path : extra) fs::remove(path);
  for (const auto& replaced_file : replaced) {
    for (const std::string& relative : {replaced_file, io::ChecksumPathOf(replaced_file)}) {
      if (known.count(relative) == 0) continue;  // an input added it: removed above
      WriteWholeFile(pristine.root / relative,
                     ReadWholeFile(ScratchRoot() / "pristine" / relative));
    }
  }
}

void ReplaceTemplateFile(const std::string& relative, std::string_view bytes) {
  WriteWholeFile(Template().root / relative, bytes);
  // An Arrow IPC file gets block checksums that match the input, so that mutations reach the
  // structural checks and the readers behind the checksum layer.
  const std::string companion = io::ChecksumPathOf(relative);
  if (!fs::exists(Template().root / companion)) return;
  io::BlockChecksums checksums;
  checksums.file_bytes = bytes.size();
  checksums.crcs.resize((bytes.size() + io::kBlockBytes - 1) / io::kBlockBytes);
  io::Crc32cOfBlocks(bytes.data(), bytes.size(), io::kBlockBytes, checksums.crcs.data());
  WriteWholeFile(Template().root / companion, io::EncodeBlockChecksums(checksums));
}

const std::shared_ptr<arrow::RecordBatch>& TemplateBatch() {
  static const std::shared_ptr<arrow::RecordBatch>* batch = [] {
    synthetic::EmbeddingOptions options;
    options.rows = 64;
    options.dim = 8;
    options.clusters = 4;
    auto reader = ValueOrDie(synthetic::MakeEmbeddingReader(options), "synthetic rows");
    auto next = ValueOrDie(reader->Next(), "first batch");
    return new std::shared_ptr<arrow::RecordBatch>(std::move(next));
  }();
  return *batch;
}

}  // namespace tessera::fuzz
