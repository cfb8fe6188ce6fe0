// The commands that act on a tessera dataset, one file per group:
//   write_commands.cc   create, append, overwrite, delete
//   read_commands.cc    scan, count, info, versions (each takes --version V)
//   cleanup_command.cc  cleanup
//   compact_command.cc  compact
//   index_commands.cc   index create|drop|optimize|train|build-segment|merge-segments|
//                       commit-segments|list|entries|describe (docs/indexes.md)
//   search_command.cc   search (nearest neighbours; text_search_command.cc: --text, --hybrid)
//   sql_command.cc      sql (statements over a catalog of datasets, docs/sql.md)
//   serve_command.cc    serve (the catalog over the MySQL protocol, docs/server.md)
#pragma once

#include "command.h"

namespace tessera::cli {

void AddWriteCommands(CommandSet& commands);
void AddReadCommands(CommandSet& commands);
void AddCleanupCommand(CommandSet& commands);
void AddCompactCommand(CommandSet& commands);
void AddIndexCommands(CommandSet& commands);
void AddSearchCommand(CommandSet& commands);
void AddKnnJoinCommand(CommandSet& commands);
void AddSqlCommand(CommandSet& commands);
void AddServeCommand(CommandSet& commands);

inline void AddDatasetCommands(CommandSet& commands) {
  AddWriteCommands(commands);
  AddReadCommands(commands);
  AddCleanupCommand(commands);
  AddCompactCommand(commands);
  AddIndexCommands(commands);
  AddSearchCommand(commands);
  AddKnnJoinCommand(commands);
  AddSqlCommand(commands);
  AddServeCommand(commands);
}

}  // namespace tessera::cli
