// The server's process list as SHOW [FULL] PROCESSLIST and information_schema.PROCESSLIST show
// it (docs/server.md, "SHOW PROCESSLIST and KILL"): one row per connection the asking user may
// see, in connection id order. Rows are taken on the network thread (they read every
// connection) and turned into tables here, so a query over information_schema.PROCESSLIST
// reads a snapshot from when it arrived.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::server {

struct ProcessRow {
  uint32_t id = 0;
  std::string user, host, database, command, state, info;
  int64_t seconds = 0;
  // A mutation's build: percent of its current phase done, when the phase's size is known.
  std::optional<double> progress;
};

// SHOW [FULL] PROCESSLIST: Id, User, Host, db, Command, Time, State, Info, as text.
std::shared_ptr<arrow::Table> ShowProcessListTable(std::vector<ProcessRow> rows);

// information_schema.PROCESSLIST: ID (uint64), USER, HOST, DB, COMMAND, TIME (int64, seconds),
// STATE, INFO (null when empty, as MySQL's) and PROGRESS (double, percent of the running
// build's phase, as MariaDB's; null when none is known).
arrow::Result<std::shared_ptr<arrow::Table>> InformationSchemaProcessList(
    std::vector<ProcessRow> rows);

}  // namespace tessera::server
