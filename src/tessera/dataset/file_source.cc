// OpenFilesAsReader: Parquet and Arrow IPC files as one stream of batches, read lazily file by
// file, so creating a dataset from files larger than memory streams them.
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include <filesystem>

#include "tessera/dataset/dataset.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

std::string Extension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

// One opened input file; `owner` keeps alive what the batch reader depends on.
struct OpenedFile {
  std::shared_ptr<arrow::RecordBatchReader> batches;
  std::shared_ptr<void> owner;
};

// Adapts an IPC file reader (random access) to a RecordBatchReader.
class IpcFileBatches : public arrow::RecordBatchReader {
 public:
  explicit IpcFileBatches(std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader)
      : reader_(std::move(reader)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return reader_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (next_ >= reader_->num_record_batches()) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    return reader_->ReadRecordBatch(next_++).Value(batch);
  }

 private:
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader_;
  int next_ = 0;
};

arrow::Result<OpenedFile> OpenFile(const std::string& path, InputFormat format) {
  if (!std::filesystem::is_regular_file(path)) {
    return NotFound("input file ", path, " does not exist or is not a regular file");
  }
  const std::string extension = Extension(path);
  auto input = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
  if (!input.ok()) return WithContext(input.status(), "opening " + path);
  OpenedFile opened;
  const bool by_extension = format == InputFormat::kByExtension;
  if (format == InputFormat::kParquet ||
      (by_extension && (extension == ".parquet" || extension == ".pq"))) {
    auto reader = parquet::arrow::OpenFile(*input, arrow::default_memory_pool());
    if (!reader.ok()) {
      return InvalidArgument("input file ", path,
                             " is not a readable Parquet file: ", reader.status().message());
    }
    std::shared_ptr<parquet::arrow::FileReader> file_reader = std::move(*reader);
    ARROW_ASSIGN_OR_RAISE(auto batches, file_reader->GetRecordBatchReader());
    opened.batches = std::move(batches);
    opened.owner = file_reader;
  } else if (format == InputFormat::kArrowFile ||
             (by_extension &&
              (extension == ".arrow" || extension == ".feather" || extension == ".ipc"))) {
    auto reader = arrow::ipc::RecordBatchFileReader::Open(*input);
    if (!reader.ok()) {
      return InvalidArgument("input file ", path,
                             " is not a readable Arrow IPC file: ", reader.status().message());
    }
    opened.batches = std::make_shared<IpcFileBatches>(*reader);
  } else if (by_extension && extension == ".arrows") {
    auto reader = arrow::ipc::RecordBatchStreamReader::Open(*input);
    if (!reader.ok()) {
      return InvalidArgument("input file ", path,
                             " is not a readable Arrow IPC stream: ", reader.status().message());
    }
    opened.batches = *reader;
  } else {
    return InvalidArgument("input file ", path, " has extension '", extension,
                           "'; tessera reads .parquet, .arrow/.feather/.ipc (IPC file) and "
                           ".arrows (IPC stream)");
  }
  opened.owner = std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(
      opened.owner, *input);
  return opened;
}

bool SameColumns(const arrow::Schema& a, const arrow::Schema& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (a.field(i)->name() != b.field(i)->name() ||
        !a.field(i)->type()->Equals(*b.field(i)->type())) {
      return false;
    }
  }
  return true;
}

class MultiFileReader : public arrow::RecordBatchReader {
 public:
  MultiFileReader(std::vector<std::string> paths, InputFormat format, OpenedFile first)
      : paths_(std::move(paths)),
        format_(format),
        current_(std::move(first)),
        schema_(current_.batches->schema()->RemoveMetadata()) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    while (true) {
      ARROW_RETURN_NOT_OK(current_.batches->ReadNext(batch));
      if (*batch != nullptr) {
        // An input file is untrusted: a damaged one must not reach a kernel (offsets outside
        // their data, lengths that lie), whatever reads it (append, search --queries).
        arrow::Status valid = (*batch)->ValidateFull();
        if (!valid.ok()) {
          return InvalidArgument("input file ", paths_[index_], " holds a malformed batch (",
                                 valid.message(), "); repair or regenerate the file");
        }
        return arrow::Status::OK();
      }
      if (++index_ >= paths_.size()) return arrow::Status::OK();
      ARROW_ASSIGN_OR_RAISE(current_, OpenFile(paths_[index_], format_));
      if (!SameColumns(*schema_, *current_.batches->schema())) {
        return InvalidArgument("input file ", paths_[index_], " has schema ",
                               current_.batches->schema()->ToString(), " but ", paths_[0], " has ",
                               schema_->ToString(), "; all input files need one schema");
      }
    }
  }

 private:
  std::vector<std::string> paths_;
  InputFormat format_;
  size_t index_ = 0;
  OpenedFile current_;
  std::shared_ptr<arrow::Schema> schema_;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> OpenFilesAsReader(
    const std::vector<std::string>& paths, InputFormat format) {
  if (paths.empty()) return InvalidArgument("no input files given");
  ARROW_ASSIGN_OR_RAISE(auto first, OpenFile(paths[0], format));
  return std::make_shared<MultiFileReader>(paths, format, std::move(first));
}

}  // namespace tessera::dataset
