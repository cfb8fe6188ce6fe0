#include "tessera/io/checksummed_output.h"

#include <algorithm>
#include <string>

#include "tessera/io/block_checksums.h"
#include "tessera/io/checksum.h"

namespace tessera::io {

namespace {

class ChecksummedOutputStream : public arrow::io::OutputStream {
 public:
  ChecksummedOutputStream(Storage& storage, std::string path,
                          std::shared_ptr<arrow::io::OutputStream> inner)
      : storage_(storage), path_(std::move(path)), inner_(std::move(inner)) {}

  arrow::Status Write(const void* data, int64_t nbytes) override {
    ARROW_RETURN_NOT_OK(inner_->Write(data, nbytes));
    Record(static_cast<const uint8_t*>(data), static_cast<size_t>(nbytes));
    return arrow::Status::OK();
  }

  arrow::Status Flush() override { return inner_->Flush(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  bool closed() const override { return inner_->closed(); }

  arrow::Status Close() override {
    if (inner_->closed()) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(inner_->Close());
    if (block_fill_ > 0) checksums_.crcs.push_back(block_crc_);
    block_fill_ = 0;
    return storage_.WriteFile(ChecksumPathOf(path_), EncodeBlockChecksums(checksums_));
  }

 private:
  void Record(const uint8_t* bytes, size_t size) {
    checksums_.file_bytes += size;
    // Finish the partly filled block, then whole blocks at full speed, then start the next.
    if (block_fill_ > 0) {
      const size_t take = std::min(size, kBlockBytes - block_fill_);
      block_crc_ = Crc32c(bytes, take, block_crc_);
      block_fill_ += take;
      bytes += take;
      size -= take;
      if (block_fill_ < kBlockBytes) return;
      checksums_.crcs.push_back(block_crc_);
      block_fill_ = 0;
    }
    const size_t whole = size / kBlockBytes;
    if (whole > 0) {
      const size_t first = checksums_.crcs.size();
      checksums_.crcs.resize(first + whole);
      Crc32cOfBlocks(bytes, whole * kBlockBytes, kBlockBytes, checksums_.crcs.data() + first);
      bytes += whole * kBlockBytes;
      size -= whole * kBlockBytes;
    }
    if (size > 0) {
      block_crc_ = Crc32c(bytes, size);
      block_fill_ = size;
    }
  }

  Storage& storage_;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> inner_;
  BlockChecksums checksums_;
  uint32_t block_crc_ = 0;
  size_t block_fill_ = 0;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenChecksummedForWrite(
    Storage& storage, std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto inner, storage.OpenForWrite(path));
  return std::make_shared<ChecksummedOutputStream>(storage, std::string(path), std::move(inner));
}

}  // namespace tessera::io
