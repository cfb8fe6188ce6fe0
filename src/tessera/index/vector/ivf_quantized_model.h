// The model of a quantized IVF index (IVF_SQ, IVF_PQ, IVF_RQ): the IVF coarse quantizer plus the
// trained vector quantizer, serialized together so that one fingerprint covers both.
//
// Serialized form (little-endian):
//   8 bytes   magic "TSIVFQNT"
//   uint32    format version: the oldest that reads the model (Quantizer::format_version); a
//             version newer than this build reads is Unsupported
//   uint32    quantizer kind: 1 SQ8 (scalar_quantizer.h), 2 PQ8 (product_quantizer.h),
//             3 RaBitQ (rabit_quantizer.h)
//   uint32    n, then n bytes: the IvfModel (ivf_model.h)
//   uint32    q, then q bytes: the quantizer
//   uint32    CRC-32C of all the bytes before it
// The fingerprint is IvfModel::FingerprintOf these bytes.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/quantizer.h"

namespace tessera::index::vector {

enum class QuantizerKind { kScalar8 = 1, kProduct8 = 2, kRabit = 3 };

// The quantizer kind named in the header of a serialized quantized model; nullopt when `bytes`
// do not start like one or name no known kind (only Deserialize checks the rest).
std::optional<QuantizerKind> QuantizedModelKindOf(std::string_view bytes);

struct IvfQuantizedModel {
  IvfModel ivf;
  QuantizerKind kind = QuantizerKind::kScalar8;
  std::shared_ptr<Quantizer> quantizer;

  std::string Serialize() const;
  // Corrupt (naming `what`) for bytes that are not such a model, or of another kind;
  // Unsupported for a format version newer than this build reads.
  static arrow::Result<IvfQuantizedModel> Deserialize(std::string_view bytes, QuantizerKind kind,
                                                      std::string_view what);
};

}  // namespace tessera::index::vector
