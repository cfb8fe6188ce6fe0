#include "tessera/io/verified_file.h"

#include <algorithm>
#include <cstring>

#include "tessera/io/checksum.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::io {

namespace {

// Blocks per piece of a run verified in parallel (1 MiB): large enough that handing a piece to
// a worker costs far less than checksumming it.
constexpr int64_t kParallelBlocks = 256;

}  // namespace

arrow::Result<std::shared_ptr<VerifiedFile>> VerifiedFile::Open(const Storage& storage,
                                                                std::string_view path,
                                                                std::string description,
                                                                std::string remedy) {
  std::shared_ptr<VerifiedFile> file(new VerifiedFile());
  file->description_ = std::move(description);
  file->remedy_ = std::move(remedy);
  // The checksums come first: they hold the file's size, which spares object storage a HEAD.
  const std::string checksum_path = ChecksumPathOf(path);
  auto companion = storage.ReadFile(checksum_path);
  if (!companion.ok()) {
    if (KindOf(companion.status()) == ErrorKind::kNotFound) {
      // A missing file is reported as missing, not as a file without checksums.
      auto inner = storage.OpenForRead(path);
      if (!inner.ok()) return WithContext(inner.status(), "opening " + file->description_);
      return file->CorruptError("has no checksum file " + storage.AbsolutePath(checksum_path));
    }
    return WithContext(companion.status(), "reading the checksums of " + file->description_);
  }
  auto checksums =
      DecodeBlockChecksums(std::string_view(reinterpret_cast<const char*>((*companion)->data()),
                                            static_cast<size_t>((*companion)->size())),
                           storage.AbsolutePath(checksum_path));
  if (!checksums.ok()) {
    return file->CorruptError("has a damaged checksum file: " + checksums.status().message());
  }
  file->checksums_ = std::move(*checksums);
  auto inner = storage.OpenForRead(path, static_cast<int64_t>(file->checksums_.file_bytes));
  if (!inner.ok()) return WithContext(inner.status(), "opening " + file->description_);
  file->inner_ = *inner;
  ARROW_ASSIGN_OR_RAISE(file->size_, file->inner_->GetSize());
  if (file->checksums_.file_bytes != static_cast<uint64_t>(file->size_)) {
    return file->CorruptError(Concat("is ", file->size_, " bytes long but was written with ",
                                     file->checksums_.file_bytes, " (truncated or extended)"));
  }
  file->verified_ = storage.verified_blocks().Of(std::string(path), file->checksums_.file_bytes,
                                                 file->checksums_.crcs.size());
  // A memory-mapped file returns zero-copy slices of one mapping, which VerifyRange locates.
  if (file->inner_->supports_zero_copy()) {
    auto whole = file->inner_->ReadAt(0, file->size_);
    if (!whole.ok()) return WithContext(whole.status(), "reading " + file->description_);
    file->mapped_ = *whole;
  }
  return file;
}

arrow::Status VerifiedFile::CorruptError(std::string_view what) const {
  return Corrupt(description_, " ", what, "; ", remedy_);
}

arrow::Status VerifiedFile::VerifyBlocks(int64_t first_block, int64_t last_block) const {
  const auto block_bytes = static_cast<int64_t>(checksums_.block_bytes);
  int64_t block = first_block;
  while (block <= last_block) {
    if (verified_->IsSet(static_cast<uint64_t>(block))) {
      ++block;
      continue;
    }
    // A run of unverified blocks is checked in one pass (three blocks side by side).
    int64_t end = block + 1;
    while (end <= last_block && !verified_->IsSet(static_cast<uint64_t>(end))) ++end;
    const int64_t offset = block * block_bytes;
    const int64_t length = std::min(end * block_bytes, size_) - offset;
    std::shared_ptr<arrow::Buffer> owned;
    const uint8_t* bytes = nullptr;
    if (mapped_ != nullptr) {
      bytes = mapped_->data() + offset;
    } else {
      ARROW_ASSIGN_OR_RAISE(owned, inner_->ReadAt(offset, length));
      if (owned->size() != length) return CorruptError("is shorter than its checksums say");
      bytes = owned->data();
    }
    // Short runs (a take's few blocks) use a buffer on the stack and no thread hand-off.
    constexpr int64_t kInlineBlocks = 16;
    uint32_t inline_crcs[kInlineBlocks];
    std::vector<uint32_t> heap_crcs;
    uint32_t* crcs = inline_crcs;
    if (end - block <= kInlineBlocks) {
      Crc32cOfBlocks(bytes, static_cast<size_t>(length), checksums_.block_bytes, crcs);
    } else {
      heap_crcs.resize(static_cast<size_t>(end - block));
      crcs = heap_crcs.data();
      // A long run (a first scan of a large batch) is checksummed on every core: verification
      // runs at memory speed, and the reader waiting for it is single-threaded.
      ARROW_RETURN_NOT_OK(util::ParallelFor(
          end - block,
          [&](int64_t first, int64_t last) {
            const int64_t chunk_end = std::min(last * block_bytes, length);
            Crc32cOfBlocks(bytes + first * block_bytes,
                           static_cast<size_t>(chunk_end - first * block_bytes),
                           checksums_.block_bytes, crcs + first);
            return arrow::Status::OK();
          },
          /*min_chunk=*/kParallelBlocks));
    }
    for (int64_t b = block; b < end; ++b) {
      if (crcs[static_cast<size_t>(b - block)] != checksums_.crcs[static_cast<size_t>(b)]) {
        return CorruptError(Concat("fails its checksum in bytes [", b * block_bytes, ", ",
                                   std::min((b + 1) * block_bytes, size_),
                                   "): its contents were damaged"));
      }
      verified_->Set(static_cast<uint64_t>(b));
    }
    block = end;
  }
  return arrow::Status::OK();
}

arrow::Status VerifiedFile::VerifyOffsets(int64_t offset, int64_t size) const {
  if (offset < 0 || size < 0 || offset > size_ || size > size_ - offset) {
    return CorruptError(
        Concat("has no bytes [", offset, ", ", offset + size, ") (it is ", size_, " bytes long)"));
  }
  if (size == 0) return arrow::Status::OK();
  const auto block_bytes = static_cast<int64_t>(checksums_.block_bytes);
  return VerifyBlocks(offset / block_bytes, (offset + size - 1) / block_bytes);
}

arrow::Status VerifiedFile::VerifyRange(const uint8_t* data, int64_t size) const {
  if (size == 0) return arrow::Status::OK();
  if (mapped_ == nullptr) return arrow::Status::OK();  // every read was verified eagerly
  const uint8_t* begin = mapped_->data();
  if (data < begin || data + size > begin + size_) {
    return CorruptError("describes a buffer outside the file");
  }
  return VerifyOffsets(data - begin, size);
}

arrow::Status VerifiedFile::Close() {
  closed_ = true;
  mapped_.reset();
  return inner_->Close();
}

arrow::Status VerifiedFile::Seek(int64_t position) {
  if (position < 0 || position > size_) {
    return CorruptError(Concat("has no position ", position));
  }
  position_ = position;
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::Buffer>> VerifiedFile::ReadAt(int64_t position,
                                                                   int64_t nbytes) {
  if (position < 0 || nbytes < 0 || position > size_) {
    return CorruptError(Concat("has no bytes at offset ", position));
  }
  nbytes = std::min(nbytes, size_ - position);
  if (mapped_ != nullptr) {
    if (nbytes <= kEagerReadBytes) ARROW_RETURN_NOT_OK(VerifyOffsets(position, nbytes));
    return arrow::SliceBuffer(mapped_, position, nbytes);
  }
  ARROW_RETURN_NOT_OK(VerifyOffsets(position, nbytes));
  return inner_->ReadAt(position, nbytes);
}

arrow::Result<int64_t> VerifiedFile::ReadAt(int64_t position, int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position, nbytes));
  // Copied out, so the caller uses every byte: verify them all.
  ARROW_RETURN_NOT_OK(VerifyRange(buffer->data(), buffer->size()));
  std::memcpy(out, buffer->data(), static_cast<size_t>(buffer->size()));
  return buffer->size();
}

arrow::Result<std::shared_ptr<arrow::Buffer>> VerifiedFile::Read(int64_t nbytes) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position_, nbytes));
  position_ += buffer->size();
  return buffer;
}

arrow::Result<int64_t> VerifiedFile::Read(int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(int64_t read, ReadAt(position_, nbytes, out));
  position_ += read;
  return read;
}

}  // namespace tessera::io
