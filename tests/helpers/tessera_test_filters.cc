// tessera_test_filters: the tessera side of the DuckDB differential filter test
// (tests/differential/run_differential.py). Many predicates go through the library's real read
// paths in one process, since a CLI launch per predicate would be too slow:
//
//   tessera_test_filters run DATASET VERSION PREDICATES
//     For each line of the file PREDICATES (one filter per line; an empty line is skipped),
//     opens nothing again: one query::Snapshot of VERSION serves every predicate, as a server
//     would. Prints one JSON line per predicate, in order:
//       {"count": N | null, "count_error": null | {"kind": K, "message": M},
//        "ids": [sorted ids] | null, "scan_error": null | {...}}
//     from query::Count (the count) and query::Read projecting `id` (the scan) — the functions
//     `tessera count --where` and `tessera scan --where` call.
//   tessera_test_filters dump DATASET VERSION OUT
//     Writes every live row of VERSION (query::Read, no filter) to the Arrow IPC file OUT, so the
//     reference engine gets exactly the rows tessera holds.
//   tessera_test_filters minmax DATASET PAGE_ROWS COLUMN...
//     Creates a MINMAX index (the test-only zone-map family, tests/support/minmax_family.h)
//     named mm_<COLUMN> on each COLUMN, and prints the version that holds them all.
//
// Every command registers MINMAX first, so versions holding MINMAX indexes are read through
// them. A failure outside a predicate prints `error: <Kind>: <message>` on stderr and exits 1;
// bad usage exits 2.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/writer.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "support/minmax_family.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace {

// `text` as a JSON string literal (control characters and non-ASCII bytes are kept as UTF-8,
// except controls, which are \u-escaped).
std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string JsonError(const arrow::Status& status) {
  return "{\"kind\": " + JsonString(std::string(tessera::ErrorKindName(tessera::KindOf(status)))) +
         ", \"message\": " + JsonString(status.message()) + "}";
}

// The sorted ids of the rows passing `filter`.
arrow::Result<std::vector<int64_t>> ScanIds(
    std::shared_ptr<const tessera::query::Snapshot> snapshot, const std::string& filter) {
  tessera::dataset::ScanOptions options;
  options.filter = filter;
  options.columns = {"id"};
  ARROW_ASSIGN_OR_RAISE(auto reader, tessera::query::Read(std::move(snapshot), options));
  std::vector<int64_t> ids;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t row = 0; row < column.length(); ++row) ids.push_back(column.Value(row));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

arrow::Status RunPredicates(const std::string& uri, uint64_t version, const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto snapshot, tessera::query::Snapshot::Open(uri, version));
  std::ifstream predicates(path);
  if (!predicates) return arrow::Status::IOError("cannot read predicate file ", path);
  std::string filter;
  while (std::getline(predicates, filter)) {
    if (filter.empty()) continue;
    std::string line = "{\"count\": ";
    const auto count = tessera::query::Count(*snapshot, filter);
    line += count.ok() ? std::to_string(*count) + ", \"count_error\": null"
                       : "null, \"count_error\": " + JsonError(count.status());
    const auto ids = ScanIds(snapshot, filter);
    if (ids.ok()) {
      line += ", \"ids\": [";
      for (size_t i = 0; i < ids->size(); ++i) {
        if (i > 0) line += ",";
        line += std::to_string((*ids)[i]);
      }
      line += "], \"scan_error\": null}";
    } else {
      line += ", \"ids\": null, \"scan_error\": " + JsonError(ids.status()) + "}";
    }
    std::cout << line << "\n";
  }
  std::cout.flush();
  return arrow::Status::OK();
}

arrow::Status Dump(const std::string& uri, uint64_t version, const std::string& out) {
  ARROW_ASSIGN_OR_RAISE(auto snapshot, tessera::query::Snapshot::Open(uri, version));
  ARROW_ASSIGN_OR_RAISE(auto reader, tessera::query::Read(snapshot, {}));
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::FileOutputStream::Open(out));
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(file, reader->schema()));
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
  }
  ARROW_RETURN_NOT_OK(writer->Close());
  return file->Close();
}

arrow::Status CreateMinMax(const std::string& uri, const std::string& page_rows,
                           const std::vector<std::string>& columns) {
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<tessera::dataset::Dataset> dataset,
                        tessera::dataset::Dataset::Open(uri));
  for (const std::string& column : columns) {
    tessera::index::IndexSpec spec;
    spec.name = "mm_" + column;
    spec.column = column;
    spec.family = std::string(tessera::testing::kMinMaxFamilyName);
    spec.params["page_rows"] = page_rows;
    ARROW_ASSIGN_OR_RAISE(dataset, tessera::index::CreateIndex(*dataset, spec));
  }
  std::cout << dataset->version() << std::endl;
  return arrow::Status::OK();
}

int Usage() {
  std::cerr << "usage: tessera_test_filters run DATASET VERSION PREDICATES\n"
               "       tessera_test_filters dump DATASET VERSION OUT\n"
               "       tessera_test_filters minmax DATASET PAGE_ROWS COLUMN...\n";
  return 2;
}

std::optional<uint64_t> ParseVersion(const std::string& text) {
  try {
    size_t used = 0;
    const uint64_t version = std::stoull(text, &used);
    if (used == text.size()) return version;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return Usage();
  const std::string command = argv[1];
  const std::string uri = argv[2];
  arrow::Status status = tessera::testing::RegisterMinMaxFamily();
  if (status.ok() && (command == "run" || command == "dump")) {
    const auto version = ParseVersion(argv[3]);
    if (argc != 5 || !version) return Usage();
    status =
        command == "run" ? RunPredicates(uri, *version, argv[4]) : Dump(uri, *version, argv[4]);
  } else if (status.ok() && command == "minmax") {
    if (argc < 5) return Usage();
    status = CreateMinMax(uri, argv[3], std::vector<std::string>(argv + 4, argv + argc));
  } else if (status.ok()) {
    return Usage();
  }
  if (status.ok()) return 0;
  std::cerr << "error: " << tessera::ErrorKindName(tessera::KindOf(status)) << ": "
            << status.message() << std::endl;
  return 1;
}
