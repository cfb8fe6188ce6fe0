#include "tessera/index/scalar/bloomfilter_hash.h"

#include <parquet/xxhasher.h>

namespace tessera::index::scalar {

namespace {

const parquet::XxHasher& Hasher() {
  static const parquet::XxHasher hasher;
  return hasher;
}

}  // namespace

uint64_t HashOfKey(int64_t key) { return Hasher().Hash(key); }

uint64_t HashOfKey(uint64_t key) { return Hasher().Hash(static_cast<int64_t>(key)); }

uint64_t HashOfKey(std::string_view key) { return Hasher().Hash(key); }

arrow::Result<uint64_t> HashOfScalar(KeyDomain domain, const arrow::Scalar& value) {
  switch (domain) {
    case KeyDomain::kSigned: {
      ARROW_ASSIGN_OR_RAISE(auto key, KeyOfScalar<int64_t>(value));
      return HashOfKey(key);
    }
    case KeyDomain::kUnsigned: {
      ARROW_ASSIGN_OR_RAISE(auto key, KeyOfScalar<uint64_t>(value));
      return HashOfKey(key);
    }
    case KeyDomain::kBinary: {
      ARROW_ASSIGN_OR_RAISE(auto key, KeyOfScalar<std::string_view>(value));
      return HashOfKey(key);
    }
    case KeyDomain::kFloat:
      break;
  }
  return InvalidArgument("a BLOOMFILTER does not hash float values (", value.type->ToString(), ")");
}

}  // namespace tessera::index::scalar
