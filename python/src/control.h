// Progress and cancellation of long native operations seen from Python (docs/python.md,
// "Progress and cancellation").
//
// A Control owns the engine's util::OperationControl of one call. Its progress callback is a
// Python callable, called as callback(phase, done, total, unit) on the operation's thread with
// the GIL taken for the call (the engine never calls it concurrently with itself). An exception
// raised by the callback requests cancellation: the operation stops before its commit with a
// Cancelled error, and take_error() hands over the callback's exception for the caller to raise
// instead.
// cancel() only sets an atomic flag, so any thread may call it at any time; tessera's Python
// layer calls it when KeyboardInterrupt reaches the thread waiting for the operation.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <utility>

#include "tessera/util/operation_control.h"

namespace tessera::python {

class Control {
 public:
  explicit Control(nanobind::object callback);
  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  util::OperationControl* get() { return control_.get(); }
  void Cancel() { control_->RequestCancel(); }
  bool cancel_requested() const { return control_->cancel_requested(); }
  // The exception the callback raised (None when it raised none), handed over once: the
  // control keeps no reference to it, since raising it adds the caller's frames, which hold
  // the control, to its traceback — a cycle the garbage collector cannot see into.
  nanobind::object TakeError() { return std::exchange(error_, nanobind::none()); }

 private:
  void Report(const util::ProgressReport& report);

  nanobind::object callback_;
  nanobind::object error_;
  bool failed_ = false;  // the callback raised: no more reports
  std::unique_ptr<util::OperationControl> control_;
};

// The control a binding passes to the engine: null for None.
inline util::OperationControl* ControlOf(Control* control) {
  return control == nullptr ? nullptr : control->get();
}

void BindControl(nanobind::module_& module);

}  // namespace tessera::python
