// How a mutating statement (CREATE / DROP INDEX, INSERT, DELETE, CREATE TABLE AS) meets a
// server that runs mutations in isolated workers (docs/server.md, "Mutations"). Every mutation
// reaches exactly one mutating call of the layers below (an index build and commit, an append,
// a delete, a dataset creation) after all its validation; MutationHooks let a caller
//   - stop it right there (a preflight): the statement was validated, its IF cases decided
//     (a no-op returns its result), and `admission` says what the call would write;
//   - run it as admitted (in the worker): the target table is opened at the admitted version,
//     the schema contract is recomputed and must equal the admitted one (else kStale,
//     "StaleAdmission", nothing done), and before_mutating_call runs just before the call.
// Without hooks (the CLI, tests) a statement runs as it always did.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tessera/sql/catalog.h"
#include "tessera/sql/statement.h"

namespace tessera::sql {

struct MutationAdmission {
  std::string table_uri;  // the dataset written (CREATE TABLE AS: the new table's directory)
  uint64_t version = 0;   // the admitted version; 0 for a new table
  // Schema contract v1: "v1;dataset=<uuid>" and, for CREATE INDEX, ";field=<name>:<type>:<null>"
  // of the indexed column. A replaced table or a changed column changes it.
  std::string contract;
};

struct MutationHooks {
  bool preflight = false;
  // Preflight: set when the statement would reach its mutating call. Worker: the admission.
  std::optional<MutationAdmission> admission;
  // Worker: runs just before the mutating call; an error stops the statement there.
  std::function<arrow::Status()> before_mutating_call;
};

// The name a running mutation of `statement` holds, so that a second one on the same target
// is refused (Busy) rather than raced: "<table directory>#<index name>" in lower case, "#" and
// nothing for data writes. nullopt for statements that are not mutations run by workers.
arrow::Result<std::optional<std::string>> MutationEntryName(const Statement& statement,
                                                            const Catalog& catalog,
                                                            std::string_view current_database);

// Whether `statement` is one of the mutations MutationEntryName names.
bool IsWorkerMutation(const Statement& statement);

}  // namespace tessera::sql
