// Fuzz target: the files of the segments of the scalar families other than BTREE (which has its
// own target): BITMAP, LABEL_LIST and NGRAM posting lists (index/scalar/posting_lists.h), ZONEMAP
// and BLOOMFILTER zone tables (index/scalar/zones.h). The first input byte chooses the segment
// (byte % 5: category_bitmap, tags_labels, text_ngram, price_zonemap, id_bloom) and which of its
// files (byte / 5, modulo the files the family requires, block checksums excluded, in name
// order); the rest of
// the input replaces that file in the template's segment directory (its block checksums are
// recomputed, so the mutation reaches the decoder). The segment is opened through its family
// and every leaf below is assessed and answered: typed errors are fine, crashes, hangs, leaks
// and undefined behaviour are findings.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tessera/expr/filter.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"

namespace {

using namespace tessera;

struct Target {
  const char* index_name;
  std::vector<const char*> leaves;  // filters of one leaf each, on the index's column
};

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"category_bitmap",
       {"category = 'sports'", "category IN ('home', 'toys', 'zzz')", "category < 'm'",
        "category IS NULL", "category BETWEEN 'a' AND 'k'"}},
      {"tags_labels",
       {"array_has_any(tags, ['sale', 'gift'])", "array_has_all(tags, ['sale', 'eco'])",
        "array_contains(tags, 'imported')", "tags IS NULL"}},
      {"text_ngram",
       {"contains(text, 'family')", "starts_with(text, 'kit')", "text LIKE '%amil%'",
        "text ILIKE '%QUERY%'", "text LIKE 'a_b%c'"}},
      {"price_zonemap",
       {"price < 10", "price = 32.75", "price IN (1.5, 2.5, nan())", "price IS NULL",
        "price BETWEEN 5 AND 6"}},
      {"id_bloom", {"id = 17", "id IN (1, 2, 300)", "id IS NULL"}},
  };
  return targets;
}

// The bound leaves of a target, parsed once against the template's schema.
const std::vector<std::shared_ptr<const expr::Filter>>& LeavesOf(size_t target) {
  static std::vector<std::vector<std::shared_ptr<const expr::Filter>>> parsed = [] {
    std::vector<std::vector<std::shared_ptr<const expr::Filter>>> all;
    for (const Target& t : Targets()) {
      auto& leaves = all.emplace_back();
      for (const char* text : t.leaves) {
        auto filter = expr::Filter::Parse(text, fuzz::Template().dataset->schema());
        if (filter.ok()) leaves.push_back(std::move(*filter));
      }
    }
    return all;
  }();
  return parsed[target];
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t target = data[0] % Targets().size();
  const format::SegmentMeta& segment = fuzz::TemplateSegment(Targets()[target].index_name);
  const index::IndexFamily* family = index::FindFamily(segment.family());
  std::vector<std::string> files;
  for (auto& file : family->RequiredFiles(segment)) {
    if (file.size() < 7 || file.compare(file.size() - 7, 7, ".crc32c") != 0) files.push_back(file);
  }
  std::sort(files.begin(), files.end());
  const std::string relative =
      index::SegmentPath(segment.uuid()) + "/" + files[(data[0] / Targets().size()) % files.size()];
  fuzz::ReplaceTemplateFile(relative, fuzz::BytesOf(data + 1, size - 1));
  {
    const auto& storage = fuzz::Template().dataset->storage();
    auto reader = family->Open(segment, index::DirectoryOf(storage, segment).ValueOrDie());
    if (reader.ok() && (*reader)->AsScalar() != nullptr) {
      const index::ScalarSegmentReader& scalar = *(*reader)->AsScalar();
      for (const auto& leaf : LeavesOf(target)) {
        if (scalar.Assess(leaf->root()).coverage == index::Coverage::kNone) continue;
        fuzz::Ignore(scalar.Answer(leaf->root()));
      }
    }
  }
  fuzz::ResetTemplate({relative});
  return 0;
}
