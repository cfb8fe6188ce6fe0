// Explain: what a query did, in lines a person can read — per group of fragments, the index or
// scan that answered it and why, and why an index was not used (docs/design.md, "Query semantics").
//
//   fragments [0..3]: BTREE index 'price_idx' segment 1b2c3d4e answers 'price < 10'
//       (12 candidates, rechecked)
//   fragment 4: scan (not covered by an index on price)
//   index 'v_cos' not used: metric cosine differs from query metric l2
//
// Lines are in the order the planner decided them; fragment groups list fragments in manifest
// order. The text is for people and may change; programs must not parse it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/expr/ast.h"

namespace tessera::query {

struct Explain {
  std::vector<std::string> lines;

  void Add(std::string line) { lines.push_back(std::move(line)); }
  // The lines, each ended by a newline.
  std::string ToString() const;
};

// "fragment 5" or "fragments [0..2, 5, 7]": ids in the order given, runs of consecutive ids
// collapsed.
std::string DescribeFragments(const std::vector<uint32_t>& fragment_ids);

// A predicate's text without the parentheses around the whole of it: "price < 10".
std::string PredicateText(const expr::Node& node);

}  // namespace tessera::query
