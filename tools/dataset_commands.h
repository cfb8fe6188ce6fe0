// The commands that act on a tessera dataset, one file per group:
//   write_commands.cc   create, append, overwrite, delete
//   read_commands.cc    scan, count, info, versions (each takes --version V)
//   cleanup_command.cc  cleanup
#pragma once

#include "command.h"

namespace tessera::cli {

void AddWriteCommands(CommandSet& commands);
void AddReadCommands(CommandSet& commands);
void AddCleanupCommand(CommandSet& commands);

inline void AddDatasetCommands(CommandSet& commands) {
  AddWriteCommands(commands);
  AddReadCommands(commands);
  AddCleanupCommand(commands);
}

}  // namespace tessera::cli
