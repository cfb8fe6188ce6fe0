#include "control.h"

#include <string>

namespace nb = nanobind;

namespace tessera::python {

Control::Control(nb::object callback) : callback_(std::move(callback)), error_(nb::none()) {
  if (callback_.is_none()) {
    control_ = std::make_unique<util::OperationControl>();
  } else {
    control_ = std::make_unique<util::OperationControl>(
        [this](const util::ProgressReport& report) { Report(report); });
  }
}

void Control::Report(const util::ProgressReport& report) {
  nb::gil_scoped_acquire gil;
  if (failed_) return;  // cancellation is under way
  try {
    callback_(std::string(report.phase), report.done, report.total, std::string(report.unit));
  } catch (nb::python_error& raised) {
    error_ = nb::borrow(raised.value());
    failed_ = true;
    control_->RequestCancel();
  }
}

void BindControl(nb::module_& module) {
  nb::class_<Control>(module, "Control",
                      "Progress reports and cancellation of one long native operation.")
      .def(nb::init<nb::object>(), nb::arg("callback").none())
      .def("cancel", &Control::Cancel,
           "Requests cancellation; honoured until the operation begins its commit.")
      .def_prop_ro("cancel_requested", &Control::cancel_requested)
      .def("take_error", &Control::TakeError,
           "The exception the progress callback raised (None if none), handed over once.");
}

}  // namespace tessera::python
