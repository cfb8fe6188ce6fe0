// tessera's public C++ API in one include: what an application embedding tessera needs, and the
// surface tessera keeps stable (docs/design.md, "Public API").
//
// Stable — kept source-compatible across releases, changed only with a note in docs/:
//  - errors (status.h): every function returns arrow::Status / arrow::Result<T>; branch on
//    tessera::KindOf(status) and tessera::IsRetryable(status), never on message text;
//  - datasets (dataset/dataset.h, dataset/options.h): Dataset::Create / Open, Append, Overwrite,
//    Delete, Scan, ScanToTable, Take, CountRows, ListVersions, Cleanup; WriteOptions,
//    ScanOptions, CleanupOptions; row addresses (MakeRowAddress, FragmentOf, OffsetOf);
//    OpenFilesAsReader;
//  - the index lifecycle (index/lifecycle.h): CreateIndex, DropIndex, OptimizeIndexes, the
//    distributed workflow (TrainModel, BuildSegment, MergeSegments, CommitSegments) and
//    inspection (ListIndexes, DescribeIndex, ListSegments); IndexSpec and Params;
//  - queries: query::Snapshot (query/snapshot.h), one opened version that long-lived callers
//    keep across queries; the index-aware reads query::Read, Count, Delete and
//    FindMatchingRows (query/filtered_read.h); query::Scan (query/filtered_scan.h);
//    query::Nearest (query/nearest.h), query::PreparedNearest (query/prepared_nearest.h);
//    query::Explain (query/explain.h); the process-wide segment cache's budget and statistics
//    (query/segment_cache.h).
//
// Not stable: everything these headers reach only through other includes — the manifest's
// protobuf messages (format::Manifest, returned by Dataset::manifest() for inspection), io::,
// expr::, the IndexFamily interface for writing new index families, and every header not
// included here. The text of error messages and of explain lines is for people and may change
// in any release. The on-disk format has its own compatibility rules (docs/format.md).
#pragma once

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/params.h"
#include "tessera/query/explain.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/filtered_scan.h"
#include "tessera/query/nearest.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/query/segment_cache.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"
