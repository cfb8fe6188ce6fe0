#include "tessera/index/vector/ivf_quantized_model.h"

#include <cstring>

#include "tessera/index/vector/product_quantizer.h"
#include "tessera/index/vector/rabit_quantizer.h"
#include "tessera/index/vector/scalar_quantizer.h"
#include "tessera/io/checksum.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

constexpr char kQuantizedMagic[8] = {'T', 'S', 'I', 'V', 'F', 'Q', 'N', 'T'};
// The newest format version this build reads and writes (a model is written with the oldest
// version that holds it: Quantizer::format_version). Version 2 added IVF_RQ's structured rotation.
// (4-bit and non-residual IVF_PQ models are version 1: the build before it read them.)
constexpr uint32_t kQuantizedFormatVersion = 2;

void AppendQuantizedU32(std::string& out, uint32_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Reads a uint32 at `*at` and advances it; false when the bytes end first.
bool ReadQuantizedU32(std::string_view bytes, size_t* at, uint32_t* value) {
  if (bytes.size() - *at < sizeof(uint32_t)) return false;
  std::memcpy(value, bytes.data() + *at, sizeof(uint32_t));
  *at += sizeof(uint32_t);
  return true;
}

// Reads a length-prefixed section at `*at` and advances past it.
bool ReadSection(std::string_view bytes, size_t* at, std::string_view* section) {
  uint32_t size = 0;
  if (!ReadQuantizedU32(bytes, at, &size) || bytes.size() - *at < size) return false;
  *section = bytes.substr(*at, size);
  *at += size;
  return true;
}

}  // namespace

std::string IvfQuantizedModel::Serialize() const {
  std::string bytes(kQuantizedMagic, sizeof(kQuantizedMagic));
  AppendQuantizedU32(bytes, quantizer->format_version());
  AppendQuantizedU32(bytes, static_cast<uint32_t>(kind));
  const std::string ivf_bytes = ivf.Serialize();
  AppendQuantizedU32(bytes, static_cast<uint32_t>(ivf_bytes.size()));
  bytes += ivf_bytes;
  const std::string quantizer_bytes = quantizer->Serialize();
  AppendQuantizedU32(bytes, static_cast<uint32_t>(quantizer_bytes.size()));
  bytes += quantizer_bytes;
  AppendQuantizedU32(bytes, io::Crc32c(bytes.data(), bytes.size()));
  return bytes;
}

std::optional<QuantizerKind> QuantizedModelKindOf(std::string_view bytes) {
  // magic, format version, quantizer kind
  if (bytes.size() < sizeof(kQuantizedMagic) + 2 * sizeof(uint32_t) ||
      std::memcmp(bytes.data(), kQuantizedMagic, sizeof(kQuantizedMagic)) != 0) {
    return std::nullopt;
  }
  uint32_t kind = 0;
  std::memcpy(&kind, bytes.data() + sizeof(kQuantizedMagic) + sizeof(uint32_t), sizeof(kind));
  if (kind == static_cast<uint32_t>(QuantizerKind::kScalar8)) return QuantizerKind::kScalar8;
  if (kind == static_cast<uint32_t>(QuantizerKind::kProduct8)) return QuantizerKind::kProduct8;
  if (kind == static_cast<uint32_t>(QuantizerKind::kRabit)) return QuantizerKind::kRabit;
  return std::nullopt;
}

arrow::Result<IvfQuantizedModel> IvfQuantizedModel::Deserialize(std::string_view bytes,
                                                                QuantizerKind kind,
                                                                std::string_view what) {
  if (bytes.size() < sizeof(kQuantizedMagic) + 3 * sizeof(uint32_t) ||
      std::memcmp(bytes.data(), kQuantizedMagic, sizeof(kQuantizedMagic)) != 0) {
    return Corrupt(what, " is not a quantized IVF model (", bytes.size(), " bytes, bad header)");
  }
  const size_t body = bytes.size() - sizeof(uint32_t);
  uint32_t crc = 0;
  std::memcpy(&crc, bytes.data() + body, sizeof(crc));
  if (io::Crc32c(bytes.data(), body) != crc) {
    return Corrupt(what, " fails its checksum: the quantized IVF model is damaged");
  }
  const std::string_view content = bytes.substr(0, body);
  size_t at = sizeof(kQuantizedMagic);
  uint32_t version = 0;
  // The version first: a newer one may lay out what follows differently.
  ReadQuantizedU32(content, &at, &version);  // the size check above leaves room for it
  if (version > kQuantizedFormatVersion) {
    return Unsupported(what, " has quantized IVF model format version ", version,
                       ", newer than this build reads (", kQuantizedFormatVersion,
                       "): open it with the tessera that wrote it or a newer one");
  }
  if (version == 0) return Corrupt(what, " has quantized IVF model format version 0");
  uint32_t stored_kind = 0;
  std::string_view ivf_bytes;
  std::string_view quantizer_bytes;
  if (!ReadQuantizedU32(content, &at, &stored_kind) || !ReadSection(content, &at, &ivf_bytes) ||
      !ReadSection(content, &at, &quantizer_bytes) || at != content.size()) {
    return Corrupt(what, " has sections that do not add up to its ", bytes.size(), " bytes");
  }
  if (stored_kind != static_cast<uint32_t>(kind)) {
    return Corrupt(what, " holds quantizer kind ", stored_kind, "; expected ",
                   static_cast<uint32_t>(kind));
  }
  IvfQuantizedModel model;
  model.kind = kind;
  ARROW_ASSIGN_OR_RAISE(model.ivf, IvfModel::Deserialize(ivf_bytes, what));
  if (kind == QuantizerKind::kScalar8) {
    ARROW_ASSIGN_OR_RAISE(auto sq,
                          ScalarQuantizer::Deserialize(quantizer_bytes, model.ivf.dim(), what));
    model.quantizer = std::make_shared<ScalarQuantizer>(std::move(sq));
  } else if (kind == QuantizerKind::kRabit) {
    ARROW_ASSIGN_OR_RAISE(auto rq,
                          RabitQuantizer::Deserialize(quantizer_bytes, model.ivf.dim(), what));
    model.quantizer = std::make_shared<RabitQuantizer>(std::move(rq));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto pq,
                          ProductQuantizer::Deserialize(quantizer_bytes, model.ivf.dim(), what));
    model.quantizer = std::make_shared<ProductQuantizer>(std::move(pq));
  }
  return model;
}

}  // namespace tessera::index::vector
