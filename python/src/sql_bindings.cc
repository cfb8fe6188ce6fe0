// tessera._native: SQL (docs/sql.md) over a catalog directory, one session per SqlSession.
// A session is used by one statement at a time (it holds USE's database); the mutex makes
// concurrent calls from several Python threads take turns instead of racing.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "arrow_streams.h"
#include "bindings.h"
#include "errors.h"
#include "tessera/sql/session.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

class SqlSession {
 public:
  explicit SqlSession(const std::string& root)
      : session_(std::make_unique<sql::Session>(Unwrap(sql::Catalog::Open(root)))) {}

  // The last statement's result: (rows or None, affected rows, version or None, info).
  std::tuple<nb::object, uint64_t, std::optional<uint64_t>, std::string> Execute(
      const std::string& script) {
    auto result = Unwrap(WithoutGil([&] {
      std::lock_guard<std::mutex> lock(mutex_);
      return session_->ExecuteAll(script);
    }));
    nb::object rows = nb::none();
    if (result.rows != nullptr) rows = ExportTable(result.rows);
    return {rows, result.affected_rows, result.version, result.info};
  }

  std::string current_database() {
    return WithoutGil([&] {  // a statement may hold the session for long
      std::lock_guard<std::mutex> lock(mutex_);
      return session_->current_database();
    });
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<sql::Session> session_;
};

}  // namespace

void BindSql(nb::module_& module) {
  nb::class_<SqlSession>(module, "SqlSession", "A SQL session over a catalog directory.")
      .def(nb::init<const std::string&>(), nb::arg("root"))
      .def("execute", &SqlSession::Execute, nb::arg("script"))
      .def_prop_ro("current_database", &SqlSession::current_database);
}

}  // namespace tessera::python
