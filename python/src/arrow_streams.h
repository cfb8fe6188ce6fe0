// Arrow data across the language boundary, zero-copy, through the Arrow C data and C stream
// interfaces as PyCapsules (the protocol of __arrow_c_stream__ / __arrow_c_schema__).
//
// Import takes over the stream a capsule holds (its release callback moves to the imported
// reader, so the capsule is left released, as the protocol requires) and reads its batches
// with no copy: the arrays keep the producer's buffers alive. Export hands a reader to a new
// capsule whose destructor releases the stream if no consumer took it. Reading an exported
// stream runs the native reader on the consumer's thread; pyarrow releases the GIL while it
// does.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <arrow/type.h>
#include <nanobind/nanobind.h>

#include <memory>
#include <mutex>
#include <utility>

namespace tessera::python {

// The reader of an "arrow_array_stream" capsule; InvalidArgument for anything else, or a
// stream already consumed.
std::shared_ptr<arrow::RecordBatchReader> ImportStream(nanobind::handle capsule);

nanobind::capsule ExportStream(std::shared_ptr<arrow::RecordBatchReader> reader);

// The failure of a stream read lazily (a scan): the C stream interface carries only an errno
// and a message, so the kind would be lost. The exported reader records its failure here, and
// the Python layer asks for it when pyarrow reports one (raise_if_failed raises the engine's
// error, of its kind). Shared by the reader and the Python object.
class StreamErrors {
 public:
  void Record(const arrow::Status& status);
  void RaiseIfFailed() const;  // throws StatusError

 private:
  mutable std::mutex mutex_;
  arrow::Status failure_;
};

// ExportStream of a reader that records its failures in the returned StreamErrors.
std::pair<nanobind::capsule, std::shared_ptr<StreamErrors>> ExportStreamRecordingErrors(
    std::shared_ptr<arrow::RecordBatchReader> reader);
nanobind::capsule ExportTable(std::shared_ptr<arrow::Table> table);
// An "arrow_schema" capsule.
nanobind::capsule ExportSchema(const arrow::Schema& schema);

// Adds _native._echo_stream(capsule) -> capsule: imports a stream and exports the same
// batches, the round trip with which the tests prove that the boundary copies no buffer.
void BindArrowStreams(nanobind::module_& module);

}  // namespace tessera::python
