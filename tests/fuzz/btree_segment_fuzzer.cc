// Fuzz target: the files of a BTREE segment (index/scalar/btree_layout.h). The first input byte
// chooses the segment (bit 0: price_btree on a float64 column with nulls and NaN handling, or
// category_btree on a string column) and the file (bits 1-2: pages.arrow, lookup.arrow,
// nulls.arrow, nans.arrow); the rest of the input replaces that file in the template's segment
// directory, next to the valid other files. The segment is opened through its family and asked
// every kind of predicate, and every page is read.
#include <arrow/scalar.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar/btree_layout.h"
#include "tessera/index/scalar/btree_segment_reader.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"

namespace {

using namespace tessera;
using index::ScalarQuery;

// Query values of the column: the template rows' first two values, plus NaN for floats.
std::vector<std::shared_ptr<arrow::Scalar>> ValuesOf(const std::string& column) {
  std::vector<std::shared_ptr<arrow::Scalar>> values;
  const auto array = fuzz::TemplateBatch()->GetColumnByName(column);
  for (int64_t row = 0; row < 2; ++row) {
    auto value = array->GetScalar(row);
    if (value.ok()) values.push_back(*value);
  }
  if (array->type()->id() == arrow::Type::DOUBLE) {
    values.push_back(
        std::make_shared<arrow::DoubleScalar>(std::numeric_limits<double>::quiet_NaN()));
  }
  return values;
}

std::vector<ScalarQuery> QueriesOf(const std::string& column) {
  const auto values = ValuesOf(column);
  std::vector<ScalarQuery> queries;
  ScalarQuery equals;
  equals.values = {values[0]};
  queries.push_back(equals);
  ScalarQuery in;
  in.kind = ScalarQuery::Kind::kIn;
  in.values = values;
  queries.push_back(in);
  ScalarQuery range;
  range.kind = ScalarQuery::Kind::kRange;
  range.lower = index::ScalarBound{values[0], true};
  range.upper = index::ScalarBound{values[1], false};
  queries.push_back(range);
  ScalarQuery everything;
  everything.kind = ScalarQuery::Kind::kRange;
  queries.push_back(everything);
  ScalarQuery nulls;
  nulls.kind = ScalarQuery::Kind::kIsNull;
  queries.push_back(nulls);
  ScalarQuery not_nulls;
  not_nulls.kind = ScalarQuery::Kind::kIsNotNull;
  queries.push_back(not_nulls);
  return queries;
}

struct Target {
  std::string index_name;
  std::string column;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const Target targets[] = {{"price_btree", "price"}, {"category_btree", "category"}};
  static const std::string_view files[] = {index::scalar::kPagesFile, index::scalar::kLookupFile,
                                           index::scalar::kNullsFile, index::scalar::kNansFile};
  const Target& target = targets[data[0] & 1];
  const std::string file = std::string(files[(data[0] >> 1) & 3]);
  const format::SegmentMeta& segment = fuzz::TemplateSegment(target.index_name);
  const std::string relative = index::SegmentPath(segment.uuid()) + "/" + file;
  fuzz::ReplaceTemplateFile(relative, fuzz::BytesOf(data + 1, size - 1));
  {
    const auto& storage = fuzz::Template().dataset->storage();
    const index::IndexFamily* family = index::FindFamily(segment.family());
    // The template's own segment: its uuid is canonical, so its directory always resolves.
    auto reader = family->Open(segment, index::DirectoryOf(storage, segment).ValueOrDie());
    if (reader.ok()) {
      auto* scalar = static_cast<index::scalar::BtreeSegmentReader*>((*reader)->AsScalar());
      static const std::vector<ScalarQuery> price_queries = QueriesOf("price");
      static const std::vector<ScalarQuery> category_queries = QueriesOf("category");
      for (const auto& query : target.column == "price" ? price_queries : category_queries) {
        fuzz::Ignore(scalar->Search(query));
      }
      auto* btree = static_cast<index::scalar::BtreeSegmentReader*>(scalar);
      for (int page = 0; page < btree->num_pages(); ++page) fuzz::Ignore(btree->ReadPage(page));
      fuzz::Ignore(btree->NullRows());
      fuzz::Ignore(btree->NanRows());
    }
  }
  fuzz::ResetTemplate({relative});
  return 0;
}
