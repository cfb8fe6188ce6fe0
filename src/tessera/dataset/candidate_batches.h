// Candidates by batch: an index's answer for one fragment (row offsets that may satisfy a
// filter) seen as the record batches that hold them.
//
// A read or count of an index-answered fragment either takes its candidates one by one (a few
// rows scattered over many batches) or evaluates the filter on the batches that hold candidates
// and skips the others (candidates that fill their batches, as a zone map's or a sorted
// column's do). Evaluating a batch costs about a nanosecond a row and returns whole batches as
// zero-copy slices; a take costs tens of nanoseconds a row, so once the candidates fill a
// sixteenth of the batches they touch, evaluating those batches is the cheaper way. Both give
// the same rows: candidates are a superset of the filter's rows, and the filter decides.
#pragma once

#include <roaring/roaring.hh>

#include <cstdint>

namespace tessera::dataset {

// Whether offsets [first, first + rows) hold a candidate.
bool BatchHasCandidates(const Roaring& candidates, uint64_t first, uint64_t rows);

// Whether the candidates are at least 1 / kWholeBatchFraction (take.h) of the rows of the
// batches (of `rows_per_batch` rows) they touch.
bool CandidatesFillTheirBatches(const Roaring& candidates, uint64_t rows_per_batch);

}  // namespace tessera::dataset
