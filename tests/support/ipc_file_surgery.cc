#include "support/ipc_file_surgery.h"

#include <arrow/array.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/record_batch.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "tessera/io/block_checksums.h"
#include "tessera/io/checksum.h"

namespace tessera::testing {

std::vector<FileRange> BufferRanges(
    const std::string& path, int buffer_index,
    const std::function<bool(const std::string&, const arrow::ArrayData&)>& select) {
  std::vector<FileRange> ranges;
  auto mapped = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
  if (!mapped.ok()) return ranges;
  const int64_t size = *(*mapped)->GetSize();
  auto whole = (*mapped)->ReadAt(0, size);
  auto reader = arrow::ipc::RecordBatchFileReader::Open(*mapped);
  if (!whole.ok() || !reader.ok()) return ranges;
  const uint8_t* base = (*whole)->data();
  for (int b = 0; b < (*reader)->num_record_batches(); ++b) {
    auto batch = (*reader)->ReadRecordBatch(b);
    if (!batch.ok()) continue;
    std::function<void(const std::string&, const arrow::ArrayData&)> visit =
        [&](const std::string& name, const arrow::ArrayData& data) {
          if (select(name, data) && static_cast<int>(data.buffers.size()) > buffer_index &&
              data.buffers[buffer_index] != nullptr) {
            const uint8_t* start = data.buffers[buffer_index]->data();
            if (start >= base && start < base + size) {
              ranges.push_back({static_cast<size_t>(start - base),
                                static_cast<size_t>(data.buffers[buffer_index]->size())});
            }
          }
          for (const auto& child : data.child_data) visit(name, *child);
        };
    for (int c = 0; c < (*batch)->num_columns(); ++c) {
      visit((*batch)->schema()->field(c)->name(), *(*batch)->column(c)->data());
    }
  }
  return ranges;
}

void RewriteChecksums(const std::string& path) {
  const std::string bytes = ReadBytes(path);
  io::BlockChecksums checksums;
  checksums.file_bytes = bytes.size();
  checksums.crcs.resize((bytes.size() + io::kBlockBytes - 1) / io::kBlockBytes);
  io::Crc32cOfBlocks(bytes.data(), bytes.size(), io::kBlockBytes, checksums.crcs.data());
  WriteBytes(io::ChecksumPathOf(path), io::EncodeBlockChecksums(checksums));
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace tessera::testing
