#include "tessera/dataset/dataset.h"

#include <unistd.h>

#include "tessera/dataset/cleanup.h"
#include "tessera/dataset/commit.h"
#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/fragment_writer.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/dataset/operation.h"
#include "tessera/dataset/row_matcher.h"
#include "tessera/dataset/scanner.h"
#include "tessera/dataset/schema_rules.h"
#include "tessera/dataset/take.h"
#include "tessera/expr/evaluator.h"
#include "tessera/expr/filter.h"
#include "tessera/format/paths.h"
#include "tessera/format/schema_codec.h"
#include "tessera/io/uuid.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::dataset {

namespace {

arrow::Status CheckSource(const std::shared_ptr<arrow::RecordBatchReader>& source) {
  if (source == nullptr) return InvalidArgument("no source of rows given");
  return expr::EnsureComputeInitialized();
}

}  // namespace

Dataset::Dataset(std::shared_ptr<io::Storage> storage,
                 std::shared_ptr<const format::Manifest> manifest,
                 std::shared_ptr<arrow::Schema> schema, std::vector<int32_t> field_ids)
    : storage_(std::move(storage)),
      manifest_(std::move(manifest)),
      schema_(std::move(schema)),
      field_ids_(std::move(field_ids)) {}

arrow::Result<std::shared_ptr<Dataset>> Dataset::FromManifest(
    std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest) {
  ARROW_ASSIGN_OR_RAISE(auto schema, format::DecodeSchema(manifest->schema()));
  return std::make_shared<Dataset>(std::move(storage), std::move(manifest),
                                   std::move(schema.schema), std::move(schema.field_ids));
}

namespace {

// After a create that failed before its commit (its files are removed already): the
// directories it made, if they are still empty, so that the path is free again (a catalog
// refuses a table name whose directory exists). Never recursive: a concurrent creator's files
// keep them.
void RemoveEmptyCreatedDirectories(const io::Storage& storage, bool root_existed) {
  if (!storage.is_local()) return;  // object stores have no empty directories
  ::rmdir(storage.AbsolutePath(format::kDataDir).c_str());
  if (!root_existed) ::rmdir(storage.AbsolutePath("").c_str());
}

// AlreadyExists when `storage` holds a dataset.
arrow::Status CheckNoDataset(const io::Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(auto existing, LatestVersionNumber(storage));
  if (!existing) return arrow::Status::OK();
  return AlreadyExists("a dataset already exists at ", storage.root(), " (version ", *existing,
                       "); append to it, overwrite it, or choose another path");
}

// Commits version 1 of a new dataset of `fragments` (already written or registered).
arrow::Result<std::shared_ptr<Dataset>> CommitCreate(std::shared_ptr<io::Storage> storage,
                                                     std::vector<format::Fragment> fragments,
                                                     const std::shared_ptr<arrow::Schema>& schema,
                                                     const WriteOptions& options) {
  auto empty = std::make_shared<format::Manifest>();
  empty->set_format_version(kManifestFormatVersion);
  // The dataset's identity; every later commit copies it from its base (operation.h).
  empty->set_dataset_uuid(io::NewUuid());
  OverwriteOperation operation(std::move(fragments), schema, /*is_create=*/true);
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage, empty, operation, options));
  return Dataset::FromManifest(std::move(storage), std::move(manifest));
}

}  // namespace

arrow::Result<std::shared_ptr<Dataset>> Dataset::Create(
    std::string_view uri, std::shared_ptr<arrow::RecordBatchReader> source,
    const WriteOptions& options) {
  ARROW_RETURN_NOT_OK(CheckSource(source));
  ARROW_ASSIGN_OR_RAISE(auto storage, io::Storage::Open(uri));
  ARROW_RETURN_NOT_OK(CheckNoDataset(*storage));
  auto schema = source->schema()->RemoveMetadata();
  ARROW_RETURN_NOT_OK(ValidateSchema(*schema, storage->root()));
  ARROW_ASSIGN_OR_RAISE(const bool root_existed, storage->Exists(""));
  const util::ControlScope control(options.control);
  util::BeginPhase("writing", 0, "rows");
  auto written = WriteFragments(*storage, *source, schema, options);
  if (!written.ok()) {
    RemoveEmptyCreatedDirectories(*storage, root_existed);
    return written.status();
  }
  return CommitCreate(std::move(storage), std::move(*written), schema, options);
}

namespace {

// One fragment per external file of `patterns`, registered against `schema` (the first file's
// when null, which is then returned in `*schema`), in a "registering" phase counted in files.
arrow::Result<std::vector<format::Fragment>> RegisterExternalFiles(
    const io::Storage& storage, const std::vector<std::string>& patterns,
    const ExternalOptions& external, std::shared_ptr<arrow::Schema>* schema,
    const WriteOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto paths, ExpandExternalPaths(patterns));
  if (*schema == nullptr) {
    ARROW_ASSIGN_OR_RAISE(*schema, ExternalFileSchema(paths[0], external));
  }
  const util::ControlScope control(options.control);
  util::BeginPhase("registering", paths.size(), "files");
  std::vector<format::Fragment> fragments;
  for (const auto& path : paths) {
    ARROW_RETURN_NOT_OK(util::CheckCancelled());
    ARROW_ASSIGN_OR_RAISE(auto fragment,
                          RegisterExternalFile(storage, path, *schema, options.rows_per_batch,
                                               external.bad_vectors_as_null));
    fragments.push_back(std::move(fragment));
    ARROW_RETURN_NOT_OK(util::AdvanceProgress(1));
  }
  return fragments;
}

}  // namespace

arrow::Result<std::shared_ptr<Dataset>> Dataset::CreateExternal(
    std::string_view uri, const std::vector<std::string>& files, const ExternalOptions& external,
    const WriteOptions& options) {
  ARROW_RETURN_NOT_OK(expr::EnsureComputeInitialized());
  ARROW_ASSIGN_OR_RAISE(auto storage, io::Storage::Open(uri));
  ARROW_RETURN_NOT_OK(CheckNoDataset(*storage));
  std::shared_ptr<arrow::Schema> schema;
  ARROW_ASSIGN_OR_RAISE(auto fragments,
                        RegisterExternalFiles(*storage, files, external, &schema, options));
  return CommitCreate(std::move(storage), std::move(fragments), schema, options);
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::AppendExternal(
    const std::vector<std::string>& files, const ExternalOptions& external,
    const WriteOptions& options) const {
  std::shared_ptr<arrow::Schema> schema = schema_;
  ExternalOptions appended = external;
  appended.vector_dimensions.clear();  // the dataset's schema says which columns are vectors
  ARROW_ASSIGN_OR_RAISE(auto fragments,
                        RegisterExternalFiles(*storage_, files, appended, &schema, options));
  AppendOperation operation(std::move(fragments));
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage_, manifest_, operation, options));
  return FromManifest(storage_, std::move(manifest));
}

namespace {

// The storage of a dataset that has at least one version; NotFound naming the path otherwise.
// `latest`, when given, receives the newest version (from the same listing: on object storage
// a listing is a round trip).
arrow::Result<std::shared_ptr<io::Storage>> OpenExistingStorage(
    std::string_view uri, uint64_t* latest_version = nullptr) {
  ARROW_ASSIGN_OR_RAISE(auto storage, io::Storage::Open(uri));
  ARROW_ASSIGN_OR_RAISE(auto latest, LatestVersionNumber(*storage));
  if (latest) {
    if (latest_version != nullptr) *latest_version = *latest;
    return storage;
  }
  ARROW_ASSIGN_OR_RAISE(bool exists, storage->Exists(""));
  if (!exists) return NotFound("no dataset at ", storage->root(), ": the path does not exist");
  return NotFound("no dataset at ", storage->root(),
                  ": it has no _versions/*.manifest; create one with `tessera create`");
}

arrow::Result<std::vector<VersionInfo>> ListVersionsOf(
    const std::shared_ptr<io::Storage>& storage) {
  ARROW_ASSIGN_OR_RAISE(auto versions, ListVersionNumbers(*storage));
  std::vector<VersionInfo> infos;
  for (uint64_t version : versions) {
    VersionInfo info;
    info.version = version;
    auto snapshot = [&]() -> arrow::Result<std::shared_ptr<Dataset>> {
      ARROW_ASSIGN_OR_RAISE(auto manifest, ReadManifest(*storage, version));
      return Dataset::FromManifest(storage, std::move(manifest));
    }();
    if (!snapshot.ok()) {
      // One damaged manifest must not hide the history: it is listed as unreadable.
      const ErrorKind kind = KindOf(snapshot.status());
      if (kind == ErrorKind::kNotFound) continue;  // removed by a cleanup since the listing
      if (kind != ErrorKind::kCorrupt) return snapshot.status();
      info.unreadable = std::string(ErrorKindName(kind)) + ": " + snapshot.status().message();
      infos.push_back(std::move(info));
      continue;
    }
    const format::Manifest& manifest = (*snapshot)->manifest();
    info.created = std::chrono::system_clock::time_point(
        std::chrono::microseconds(manifest.created_at_micros()));
    info.operation = manifest.operation();
    info.num_rows = (*snapshot)->CountRows();
    info.num_fragments = static_cast<uint64_t>(manifest.fragments_size());
    infos.push_back(std::move(info));
  }
  return infos;
}

}  // namespace

arrow::Result<std::shared_ptr<Dataset>> Dataset::Open(std::string_view uri,
                                                      std::optional<uint64_t> version,
                                                      bool check_external_files) {
  uint64_t latest = 0;
  ARROW_ASSIGN_OR_RAISE(auto storage, OpenExistingStorage(uri, &latest));
  if (!version) version = latest;
  ARROW_ASSIGN_OR_RAISE(auto manifest, ReadManifest(*storage, *version));
  if (check_external_files) ARROW_RETURN_NOT_OK(CheckExternalFiles(*manifest));
  return FromManifest(std::move(storage), std::move(manifest));
}

uint64_t Dataset::version() const { return manifest_->version(); }

uint64_t Dataset::CountRows() const {
  uint64_t rows = 0;
  for (const auto& fragment : manifest_->fragments()) {
    rows += fragment.physical_rows() - fragment.deletion().num_deleted();
  }
  return rows;
}

arrow::Result<uint64_t> Dataset::CountRows(std::string_view filter) const {
  if (filter.empty()) return CountRows();
  ARROW_ASSIGN_OR_RAISE(auto parsed, expr::Filter::Parse(filter, schema_));
  ARROW_ASSIGN_OR_RAISE(auto columns, ColumnsToMatch(*schema_, *parsed));
  std::vector<std::unique_ptr<FragmentReader>> readers;
  std::vector<FragmentToMatch> fragments;
  for (const auto& fragment : manifest_->fragments()) {
    ARROW_ASSIGN_OR_RAISE(auto reader, FragmentReader::Open(*storage_, fragment, schema_, columns));
    fragments.push_back({reader.get(), &reader->deletions()});
    readers.push_back(std::move(reader));
  }
  return CountMatchingRows(fragments, *parsed);
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> Dataset::Scan(
    const ScanOptions& options) const {
  return MakeScanner(storage_, manifest_, schema_, options);
}

arrow::Result<std::shared_ptr<arrow::Table>> Dataset::ScanToTable(
    const ScanOptions& options) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, Scan(options));
  return reader->ToTable();
}

arrow::Result<std::shared_ptr<arrow::Table>> Dataset::Take(
    const std::vector<uint64_t>& row_addresses, const std::vector<std::string>& columns) const {
  return TakeRows(*storage_, *manifest_, schema_, row_addresses, columns);
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::Append(
    std::shared_ptr<arrow::RecordBatchReader> source, const WriteOptions& options) const {
  ARROW_RETURN_NOT_OK(CheckSource(source));
  ARROW_RETURN_NOT_OK(CheckWriteSchema(*schema_, *source->schema(), storage_->root()));
  const util::ControlScope control(options.control);
  util::BeginPhase("writing", 0, "rows");
  ARROW_ASSIGN_OR_RAISE(auto fragments, WriteFragments(*storage_, *source, schema_, options));
  AppendOperation operation(std::move(fragments));
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage_, manifest_, operation, options));
  return FromManifest(storage_, std::move(manifest));
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::Overwrite(
    std::shared_ptr<arrow::RecordBatchReader> source, const WriteOptions& options) const {
  ARROW_RETURN_NOT_OK(CheckSource(source));
  auto schema = source->schema()->RemoveMetadata();
  ARROW_RETURN_NOT_OK(ValidateSchema(*schema, storage_->root()));
  const util::ControlScope control(options.control);
  util::BeginPhase("writing", 0, "rows");
  ARROW_ASSIGN_OR_RAISE(auto fragments, WriteFragments(*storage_, *source, schema, options));
  OverwriteOperation operation(std::move(fragments), schema, /*is_create=*/false);
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage_, manifest_, operation, options));
  return FromManifest(storage_, std::move(manifest));
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::Delete(std::string_view filter,
                                                        const WriteOptions& options) const {
  return Delete(filter, RowFinder(), options);
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::Delete(std::string_view filter, RowFinder finder,
                                                        const WriteOptions& options,
                                                        const DeletionVectors* deletions) const {
  if (filter.empty()) {
    return InvalidArgument("delete needs a filter; use 'true' to delete every row");
  }
  ARROW_ASSIGN_OR_RAISE(auto operation,
                        DeleteOperation::Plan(storage_, *manifest_, schema_, std::string(filter),
                                              std::move(finder), deletions));
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage_, manifest_, *operation, options));
  return FromManifest(storage_, std::move(manifest));
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::DeleteRows(
    const std::vector<uint64_t>& row_addresses, std::string description,
    const WriteOptions& options) const {
  std::map<uint32_t, uint64_t> physical_rows;
  for (const auto& fragment : manifest_->fragments()) {
    physical_rows[fragment.id()] = fragment.physical_rows();
  }
  auto rows = std::make_shared<std::map<uint32_t, Roaring>>();
  for (uint64_t address : row_addresses) {
    auto found = physical_rows.find(FragmentOf(address));
    if (found == physical_rows.end() || OffsetOf(address) >= found->second) {
      return NotFound("row address ", address, " (fragment ", FragmentOf(address), ", row ",
                      OffsetOf(address), ") is not a row of version ", version(), " of dataset ",
                      uri());
    }
    (*rows)[FragmentOf(address)].add(OffsetOf(address));
  }
  // The rows are named, not found: the finder gives each fragment's, less those deleted since.
  RowFinder finder = [rows](const format::Fragment& fragment,
                            const Roaring& deleted) -> arrow::Result<Roaring> {
    auto found = rows->find(fragment.id());
    if (found == rows->end()) return Roaring();
    return found->second - deleted;
  };
  ARROW_ASSIGN_OR_RAISE(auto operation,
                        DeleteOperation::Plan(storage_, *manifest_, schema_, "true",
                                              std::move(finder), nullptr, std::move(description)));
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage_, manifest_, *operation, options));
  return FromManifest(storage_, std::move(manifest));
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::CommitIndexChange(
    IndexChange change, const WriteOptions& options) const {
  IndexOperation operation(std::move(change));
  ARROW_ASSIGN_OR_RAISE(auto manifest, CommitOperation(*storage_, manifest_, operation, options));
  return FromManifest(storage_, std::move(manifest));
}

arrow::Result<std::vector<VersionInfo>> Dataset::ListVersions() const {
  return ListVersionsOf(storage_);
}

arrow::Result<std::vector<VersionInfo>> Dataset::ListVersionsAt(std::string_view uri) {
  ARROW_ASSIGN_OR_RAISE(auto storage, OpenExistingStorage(uri));
  return ListVersionsOf(storage);
}

arrow::Result<std::shared_ptr<Dataset>> Dataset::Latest() const { return Open(storage_->root()); }

arrow::Result<CleanupReport> Dataset::Cleanup(const CleanupOptions& options) const {
  return CleanupDataset(*storage_, options);
}

arrow::Result<CleanupReport> Dataset::CleanupAt(std::string_view uri,
                                                const CleanupOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto storage, OpenExistingStorage(uri));
  return CleanupDataset(*storage, options);
}

}  // namespace tessera::dataset
