#include "tessera/index/index_family.h"

#include <algorithm>
#include <mutex>

#include "tessera/index/builtin_families.h"
#include "tessera/status.h"

namespace tessera::index {

namespace {

std::string Upper(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<IndexFamily>> families;
};

Registry& TheRegistry() {
  static Registry* registry = [] {
    auto* created = new Registry();
    for (auto& family : MakeBuiltinFamilies()) created->families.push_back(std::move(family));
    return created;
  }();
  return *registry;
}

}  // namespace

uint64_t RowAddressSet::size() const {
  uint64_t total = rows.size();
  for (const RowAddressRun& run : runs) total += run.count;
  return total;
}

std::vector<uint64_t> RowAddressSet::Addresses() const {
  std::vector<uint64_t> addresses = rows;
  addresses.reserve(size());
  for (const RowAddressRun& run : runs) {
    for (uint64_t i = 0; i < run.count; ++i) addresses.push_back(run.first + i);
  }
  std::inplace_merge(addresses.begin(),
                     addresses.begin() + static_cast<std::ptrdiff_t>(rows.size()), addresses.end());
  return addresses;
}

arrow::Result<Model> IndexFamily::Train(const BuildInput&) const {
  return Unsupported("index family ", name(), " has no model to train");
}

std::optional<vector::Metric> IndexFamily::MetricOf(const format::IndexDef&) const {
  return std::nullopt;
}

arrow::Result<Model> IndexFamily::LoadModel(const format::SegmentMeta&,
                                            const SegmentDirectory&) const {
  return Unsupported("index family ", name(), " has no model");
}

arrow::Status IndexFamily::Verify(const BuildInput&, const format::SegmentMeta& segment,
                                  const SegmentDirectory& dir) const {
  return Open(segment, dir).status();
}

const IndexFamily* FindFamily(std::string_view name) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const std::string wanted = Upper(name);
  for (const auto& family : registry.families) {
    if (family->name() == wanted) return family.get();
  }
  return nullptr;
}

std::vector<std::string> FamilyNames() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto& family : registry.families) names.emplace_back(family->name());
  return names;
}

arrow::Result<const IndexFamily*> GetFamily(std::string_view name) {
  if (const IndexFamily* family = FindFamily(name)) return family;
  std::string names;
  for (const auto& known : FamilyNames()) names += (names.empty() ? "" : ", ") + known;
  return NotFound("unknown index type '", name, "'; the index types are: ", names);
}

arrow::Status RegisterFamily(std::unique_ptr<IndexFamily> family) {
  if (FindFamily(family->name()) != nullptr) {
    return AlreadyExists("index family ", family->name(), " is already registered");
  }
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.families.push_back(std::move(family));
  return arrow::Status::OK();
}

}  // namespace tessera::index
