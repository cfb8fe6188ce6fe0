#include "tessera/dataset/external_files.h"

#include <arrow/filesystem/filesystem.h>
#include <fnmatch.h>
#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "tessera/dataset/external_batches.h"
#include "tessera/dataset/external_columns.h"
#include "tessera/dataset/external_parquet.h"
#include "tessera/dataset/schema_rules.h"
#include "tessera/format/paths.h"
#include "tessera/io/s3_settings.h"
#include "tessera/io/s3_store.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

bool IsPattern(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

std::string Absolute(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

// A file inside the dataset's directory could be removed by tessera (cleanup lists its own
// directories, and dropping a SQL table removes the whole directory): refused, comparing the
// canonical paths, so that a symbolic link cannot hide where the file really is.
arrow::Status CheckOutsideDataset(const io::Storage& storage, const std::string& path) {
  const bool object = IsObjectLocation(path);
  if (object == storage.is_local()) return arrow::Status::OK();  // never in the same place
  if (object) {
    // An object is inside a dataset on object storage when its URI extends the dataset's root.
    if (path.rfind(storage.root() + "/", 0) != 0) return arrow::Status::OK();
    return InvalidArgument("external file ", path, " lies under dataset ", storage.root(),
                           ", which tessera manages and may remove objects from; keep external "
                           "files outside its prefix");
  }
  std::error_code error;
  const auto file = std::filesystem::weakly_canonical(path, error);
  const auto root = std::filesystem::weakly_canonical(storage.AbsolutePath(""), error);
  if (error) return arrow::Status::OK();  // the open that follows reports what is wrong
  const auto relative = file.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..") {
    return InvalidArgument("external file ", path, " lies inside the directory of dataset ",
                           storage.root(),
                           ", which tessera manages and may remove files from; keep external "
                           "files outside it");
  }
  return arrow::Status::OK();
}

// The objects `pattern` (an s3:// URI) names: itself when it has no wildcard (the open that
// follows says whether it exists); else the objects directly under its directory whose names
// match its last segment (fnmatch(3); as glob(3), a leading '.' only matches a '.'), sorted.
arrow::Result<std::vector<std::string>> ExpandObjectPattern(const std::string& pattern) {
  ARROW_ASSIGN_OR_RAISE(io::S3Object object, io::ParseS3ObjectUri(pattern));
  if (!IsPattern(object.key)) return std::vector<std::string>{object.Uri()};
  const size_t slash = object.key.rfind('/');
  const std::string directory = slash == std::string::npos ? "" : object.key.substr(0, slash);
  const std::string name_pattern =
      slash == std::string::npos ? object.key : object.key.substr(slash + 1);
  if (IsPattern(directory)) {
    return InvalidArgument("external file pattern '", pattern,
                           "': on object storage only the last path segment may hold *, ? or "
                           "[...]");
  }
  ARROW_ASSIGN_OR_RAISE(auto store, io::S3Store::ForBucket("s3://" + object.bucket));
  arrow::fs::FileSelector selector;
  selector.base_dir = directory.empty() ? object.bucket : object.bucket + "/" + directory;
  selector.allow_not_found = true;
  auto listed = store->filesystem()->GetFileInfo(selector);
  if (!listed.ok()) return store->Typed(listed.status());
  std::vector<std::string> found;
  for (const auto& entry : *listed) {
    if (entry.IsFile() &&
        ::fnmatch(name_pattern.c_str(), entry.base_name().c_str(), FNM_PERIOD) == 0) {
      found.push_back("s3://" + entry.path());
    }
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    return InvalidArgument("external file pattern '", pattern,
                           "' matches no object; nothing was registered");
  }
  return found;
}

bool IsListOfFloats(const arrow::DataType& type) {
  if (type.id() != arrow::Type::LIST && type.id() != arrow::Type::LARGE_LIST) return false;
  const auto value = static_cast<const arrow::BaseListType&>(type).value_type()->id();
  return value == arrow::Type::FLOAT || value == arrow::Type::HALF_FLOAT;
}

}  // namespace

bool ReadsFromObjectStorage(const io::Storage& storage, const format::Fragment& fragment) {
  return !storage.is_local() ||
         (IsExternal(fragment) && IsObjectLocation(fragment.files(0).external().location()));
}

arrow::Result<std::string> NormalizedExternalLocation(const std::string& path_or_uri) {
  if (IsObjectLocation(path_or_uri)) {
    ARROW_ASSIGN_OR_RAISE(io::S3Object object, io::ParseS3ObjectUri(path_or_uri));
    return object.Uri();
  }
  return Absolute(path_or_uri);
}

uint64_t TilingRowsPerBatch(const std::vector<int64_t>& row_group_rows, uint64_t requested) {
  if (row_group_rows.size() < 2 || requested == 0) return requested;
  const auto size = static_cast<uint64_t>(row_group_rows[0]);
  for (size_t i = 1; i < row_group_rows.size(); ++i) {
    const auto rows = static_cast<uint64_t>(row_group_rows[i]);
    if (rows != size && !(i + 1 == row_group_rows.size() && rows < size)) return requested;
  }
  // The divisor of the row groups' size nearest to the request, within a factor of two of it.
  uint64_t best = 0;
  const auto consider = [&](uint64_t divisor) {
    if (divisor * 2 < requested || divisor > requested * 2) return;
    const auto distance = [&](uint64_t d) { return d > requested ? d - requested : requested - d; };
    if (best == 0 || distance(divisor) < distance(best)) best = divisor;
  };
  for (uint64_t d = 1; d * d <= size; ++d) {
    if (size % d != 0) continue;
    consider(d);
    consider(size / d);
  }
  return best == 0 ? requested : best;
}

arrow::Result<std::vector<std::string>> ExpandExternalPaths(
    const std::vector<std::string>& patterns) {
  if (patterns.empty()) return InvalidArgument("no external files given");
  std::vector<std::string> paths;
  std::set<std::string> seen;
  const auto add = [&](const std::string& path) {
    std::string absolute = Absolute(path);
    if (seen.insert(absolute).second) paths.push_back(std::move(absolute));
  };
  for (const auto& pattern : patterns) {
    if (IsObjectLocation(pattern)) {
      ARROW_ASSIGN_OR_RAISE(auto found, ExpandObjectPattern(pattern));
      for (auto& uri : found) {
        if (seen.insert(uri).second) paths.push_back(std::move(uri));
      }
      continue;
    }
    if (!IsPattern(pattern)) {
      if (!std::filesystem::is_regular_file(pattern)) {
        return NotFound("external file ", pattern, " does not exist or is not a regular file");
      }
      add(pattern);
      continue;
    }
    glob_t matches{};
    const int result = ::glob(pattern.c_str(), 0, nullptr, &matches);
    std::vector<std::string> found;
    if (result == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        if (std::filesystem::is_regular_file(matches.gl_pathv[i])) {
          found.emplace_back(matches.gl_pathv[i]);
        }
      }
    }
    ::globfree(&matches);
    if (result != 0 && result != GLOB_NOMATCH) {
      return InvalidArgument("cannot expand external file pattern '", pattern, "'");
    }
    if (found.empty()) {
      return InvalidArgument("external file pattern '", pattern,
                             "' matches no file; nothing was registered");
    }
    for (const auto& path : found) add(path);  // glob(3) sorts its matches
  }
  return paths;
}

arrow::Result<std::shared_ptr<arrow::Schema>> ExternalFileSchema(const std::string& path,
                                                                 const ExternalOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto file, ExternalParquetFile::Open(path));
  arrow::FieldVector fields = file->schema()->fields();
  for (const auto& [name, dimension] : options.vector_dimensions) {
    const int position = file->schema()->GetFieldIndex(name);
    if (position < 0) {
      return InvalidArgument("external file ", path, " has no column '", name,
                             "' to read as vectors; its columns: ", file->schema()->ToString());
    }
    if (dimension <= 0) {
      return InvalidArgument("vector column '", name, "' needs a dimension of at least 1, not ",
                             dimension);
    }
    const auto& type = fields[position]->type();
    std::shared_ptr<arrow::DataType> value_type;
    if (IsListOfFloats(*type)) {
      value_type = static_cast<const arrow::BaseListType&>(*type).value_type();
    } else if (type->id() == arrow::Type::FIXED_SIZE_LIST) {
      value_type = static_cast<const arrow::FixedSizeListType&>(*type).value_type();
      if (static_cast<const arrow::FixedSizeListType&>(*type).list_size() != dimension) {
        return InvalidArgument("external file ", path, ": column '", name, "' holds ",
                               type->ToString(), ", vectors of another dimension than ", dimension);
      }
    } else {
      return InvalidArgument("external file ", path, ": column '", name, "' holds ",
                             type->ToString(),
                             ", not a list of float32 or float16 values to read as vectors");
    }
    fields[position] = fields[position]->WithType(arrow::fixed_size_list(value_type, dimension));
  }
  auto schema = arrow::schema(std::move(fields));
  arrow::Status valid = ValidateSchema(*schema, path);
  if (!valid.ok()) {
    for (const auto& field : schema->fields()) {
      if (IsListOfFloats(*field->type())) {
        return WithContext(valid, Concat("column '", field->name(),
                                         "' is a list of floats: declare it a vector with "
                                         "--vector ",
                                         field->name(), ":DIMENSION"));
      }
    }
  }
  ARROW_RETURN_NOT_OK(valid);
  return schema;
}

arrow::Result<format::Fragment> RegisterExternalFile(const io::Storage& storage,
                                                     const std::string& path,
                                                     const std::shared_ptr<arrow::Schema>& schema,
                                                     uint64_t rows_per_batch,
                                                     bool bad_vectors_as_null) {
  ARROW_RETURN_NOT_OK(CheckOutsideDataset(storage, path));
  ARROW_ASSIGN_OR_RAISE(auto file, ExternalParquetFile::Open(path));
  auto conformed = ConformExternalSchema(*file->schema(), *schema);
  arrow::Status matches = CheckWriteSchema(*schema, *conformed, storage.root());
  if (!matches.ok()) return WithContext(matches, Concat("external file ", path));
  if (static_cast<uint64_t>(file->num_rows()) > UINT32_MAX) {
    return InvalidArgument("external file ", path, " holds ", file->num_rows(),
                           " rows; a fragment addresses at most ", UINT32_MAX, " (split the file)");
  }
  if (rows_per_batch == 0) return InvalidArgument("rows per batch must be at least 1");
  std::vector<int64_t> row_group_rows;
  for (int i = 0; i < file->num_row_groups(); ++i) {
    row_group_rows.push_back(file->row_group_start(i + 1) - file->row_group_start(i));
  }
  // Checked after tiling, which may halve the rows per batch.
  rows_per_batch = TilingRowsPerBatch(row_group_rows, rows_per_batch);
  if ((static_cast<uint64_t>(file->num_rows()) + rows_per_batch - 1) / rows_per_batch >
      static_cast<uint64_t>(INT32_MAX)) {
    return InvalidArgument("external file ", path, " would be read in more than ", INT32_MAX,
                           " batches of ", rows_per_batch, " rows; choose more rows per batch");
  }
  ARROW_ASSIGN_OR_RAISE(std::string digest, file->FooterDigest());
  format::Fragment fragment;
  fragment.set_physical_rows(static_cast<uint64_t>(file->num_rows()));
  format::DataFile* data_file = fragment.add_files();
  data_file->set_num_rows(static_cast<uint64_t>(file->num_rows()));
  data_file->set_size_bytes(static_cast<uint64_t>(file->size_bytes()));
  data_file->set_rows_per_batch(rows_per_batch);
  format::ExternalFile* external = data_file->mutable_external();
  external->set_location(path);
  external->set_modified_nanos(file->modified_nanos());
  external->set_etag(file->etag());
  external->set_footer_sha256(std::move(digest));
  external->set_bad_vectors_as_null(bad_vectors_as_null);
  // Columns whose rows the file's types do not guarantee (lists read as vectors) are read
  // now, so that a bad row fails the registration rather than a later query.
  arrow::FieldVector checked;
  for (const auto& field : schema->fields()) {
    const auto& file_type = file->schema()->GetFieldByName(field->name())->type();
    if (!file_type->Equals(*field->type())) checked.push_back(field);
  }
  if (!checked.empty() && file->num_rows() > 0) {
    ARROW_ASSIGN_OR_RAISE(auto batches,
                          ExternalBatches::Open(fragment, arrow::schema(std::move(checked))));
    for (int b = 0; b < batches->num_batches(); ++b) {
      ARROW_RETURN_NOT_OK(batches->ReadBatch(b).status());
    }
    // Read in order, each row group is decoded once (the last one decoded is always kept).
    external->set_bad_vectors(batches->bad_vectors());
  }
  return fragment;
}

std::chrono::seconds ExternalCheckInterval() {
  static const std::chrono::seconds interval = [] {
    const char* text = std::getenv("TESSERA_EXTERNAL_CHECK_SECONDS");
    if (text == nullptr || *text == '\0') return std::chrono::seconds(10);
    char* end = nullptr;
    const long long seconds = std::strtoll(text, &end, 10);
    if (*end != '\0' || seconds < 0) return std::chrono::seconds(10);
    return std::chrono::seconds(seconds);
  }();
  return interval;
}

namespace {

// Fingerprints that passed, by (location, size, modified, digest, ETag): when they last did.
class PassedChecks {
 public:
  using Key = std::tuple<std::string, uint64_t, int64_t, std::string, std::string>;
  static PassedChecks& Instance() {
    static PassedChecks* checks = new PassedChecks();  // never destroyed: used at exit
    return *checks;
  }
  bool Recent(const Key& key, std::chrono::steady_clock::time_point now) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = passed_.find(key);
    return found != passed_.end() && now - found->second < ExternalCheckInterval();
  }
  void Passed(const Key& key, std::chrono::steady_clock::time_point now) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (passed_.size() >= kEntries) passed_.clear();  // a bound, not an LRU: checks are cheap
    passed_[key] = now;
  }

 private:
  static constexpr size_t kEntries = 1 << 16;
  std::mutex mutex_;
  std::map<Key, std::chrono::steady_clock::time_point> passed_;
};

}  // namespace

arrow::Status CheckExternalFiles(const format::Manifest& manifest) {
  const auto now = std::chrono::steady_clock::now();
  for (const auto& fragment : manifest.fragments()) {
    if (!IsExternal(fragment)) continue;
    const format::DataFile& file = fragment.files(0);
    const PassedChecks::Key key{file.external().location(), file.size_bytes(),
                                file.external().modified_nanos(), file.external().footer_sha256(),
                                file.external().etag()};
    if (PassedChecks::Instance().Recent(key, now)) continue;
    ARROW_RETURN_NOT_OK(
        ExternalParquetFile::Open(file.external().location(), &file, /*check_footer=*/true)
            .status());
    PassedChecks::Instance().Passed(key, now);
  }
  return arrow::Status::OK();
}

}  // namespace tessera::dataset
