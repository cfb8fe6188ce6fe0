#include "arrow_streams.h"

#include <Python.h>
#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>

#include "errors.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

constexpr const char* kStreamCapsule = "arrow_array_stream";
constexpr const char* kSchemaCapsule = "arrow_schema";

// The destructor of a capsule holding a heap-allocated C interface struct (ArrowArrayStream,
// ArrowSchema) named `name`: releases it unless a consumer took it (release set to null).
template <typename Struct, const char* const* name>
void ReleaseCapsule(PyObject* capsule) noexcept {
  auto* held = static_cast<Struct*>(PyCapsule_GetPointer(capsule, *name));
  if (held == nullptr) {
    PyErr_Clear();
    return;
  }
  if (held->release != nullptr) held->release(held);
  delete held;
}

constexpr auto ReleaseStreamCapsule = ReleaseCapsule<ArrowArrayStream, &kStreamCapsule>;
constexpr auto ReleaseSchemaCapsule = ReleaseCapsule<ArrowSchema, &kSchemaCapsule>;

// Forwards to `reader`, recording a failed read in `errors`.
class ErrorRecordingReader : public arrow::RecordBatchReader {
 public:
  ErrorRecordingReader(std::shared_ptr<arrow::RecordBatchReader> reader,
                       std::shared_ptr<StreamErrors> errors)
      : reader_(std::move(reader)), errors_(std::move(errors)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return reader_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    auto status = reader_->ReadNext(batch);
    if (!status.ok()) errors_->Record(status);
    return status;
  }
  arrow::Status Close() override { return reader_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> reader_;
  std::shared_ptr<StreamErrors> errors_;
};

}  // namespace

void StreamErrors::Record(const arrow::Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_.ok()) failure_ = status;
}

void StreamErrors::RaiseIfFailed() const {
  arrow::Status failure;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    failure = failure_;
  }
  Check(failure);
}

std::pair<nb::capsule, std::shared_ptr<StreamErrors>> ExportStreamRecordingErrors(
    std::shared_ptr<arrow::RecordBatchReader> reader) {
  auto errors = std::make_shared<StreamErrors>();
  auto capsule = ExportStream(std::make_shared<ErrorRecordingReader>(std::move(reader), errors));
  return {std::move(capsule), std::move(errors)};
}

std::shared_ptr<arrow::RecordBatchReader> ImportStream(nb::handle capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), kStreamCapsule)) {
    Check(InvalidArgument("expected an Arrow C stream (a PyCapsule named '", kStreamCapsule,
                          "', as __arrow_c_stream__() returns)"));
  }
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), kStreamCapsule));
  if (stream->release == nullptr) {
    Check(InvalidArgument("the Arrow C stream was already consumed: a stream is read once"));
  }
  return Unwrap(arrow::ImportRecordBatchReader(stream));
}

nb::capsule ExportStream(std::shared_ptr<arrow::RecordBatchReader> reader) {
  auto stream = std::make_unique<ArrowArrayStream>();
  Check(arrow::ExportRecordBatchReader(std::move(reader), stream.get()));
  PyObject* capsule = PyCapsule_New(stream.get(), kStreamCapsule, ReleaseStreamCapsule);
  if (capsule == nullptr) {
    stream->release(stream.get());
    throw nb::python_error();
  }
  stream.release();
  return nb::steal<nb::capsule>(capsule);
}

nb::capsule ExportTable(std::shared_ptr<arrow::Table> table) {
  return ExportStream(std::make_shared<arrow::TableBatchReader>(std::move(table)));
}

nb::capsule ExportSchema(const arrow::Schema& schema) {
  auto exported = std::make_unique<ArrowSchema>();
  Check(arrow::ExportSchema(schema, exported.get()));
  PyObject* capsule = PyCapsule_New(exported.get(), kSchemaCapsule, ReleaseSchemaCapsule);
  if (capsule == nullptr) {
    exported->release(exported.get());
    throw nb::python_error();
  }
  exported.release();
  return nb::steal<nb::capsule>(capsule);
}

void BindArrowStreams(nb::module_& module) {
  nb::class_<StreamErrors>(module, "StreamErrors",
                           "The failure of a stream the engine exported, with its kind.")
      .def("raise_if_failed", &StreamErrors::RaiseIfFailed,
           "Raises the engine's error of a failed read (nothing if none failed).");
  module.def(
      "_echo_stream", [](nb::handle capsule) { return ExportStream(ImportStream(capsule)); },
      "Imports an Arrow C stream and exports the same batches (tests of zero-copy).");
}

}  // namespace tessera::python
