// The explain lines a nearest-neighbour search adds (query/explain.h), in this order:
//   nearest: column 'vector', metric l2 (of index 'v_idx'), k 10, offset 5, distance in [0, 2)
//   <the prefilter's lines: how its allow-list was found>
//   index 'v_cos' not used: metric cosine differs from query metric l2
//   fragments [0..3]: IVF_FLAT index 'v_idx' segment 1b2c3d4e (metric l2, nprobes 20)
//   fragment 4: exact distance (unindexed)
// and, as the search runs, a line per segment whose probes were raised (too few qualifying rows
// in the probed partitions) or whose candidates were widened (too few in the distance range),
// and the postfilter's line. Fragments with the same description are grouped, groups in the
// manifest order of their first fragment.
#pragma once

#include <cstddef>
#include <string>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"
#include "tessera/query/nearest.h"
#include "tessera/query/nearest_sources.h"

namespace tessera::query {

// The first 8 characters of a segment uuid, as explain prints it.
std::string ShortUuid(const std::string& uuid);

// The lines of a prepared search: the header, `prefilter`'s lines, the notes of `sources` and
// what serves each fragment of `manifest`.
void ExplainNearestPlan(const NearestOptions& options, const format::Manifest& manifest,
                        const NearestSources& sources, const Explain& prefilter, Explain* explain);

// "segment 1b2c3d4e of index 'v': nprobes raised to 16 to find 10 qualifying rows".
std::string DescribeRaisedProbes(const VectorSource& source, int nprobes, size_t wanted);

// "segment 1b2c3d4e of index 'v': k × 16 candidates (160) re-ranked to find rows in the
// distance range": a lower bound left too few of its candidates in range, so it was asked for
// more.
std::string DescribeWidenedRefinement(const VectorSource& source, int refine_factor,
                                      size_t candidates);

// The postfilter's line: `searched` rows found, `kept` passing `filter`.
std::string DescribePostfilter(const expr::Filter& filter, size_t searched, size_t kept);

}  // namespace tessera::query
