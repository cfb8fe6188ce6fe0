// `tessera gen`: synthetic embedding data (tessera/synthetic) written to an Arrow IPC or
// Parquet file, or directly into a new dataset.
#pragma once

#include "command.h"

namespace tessera::cli {

void AddGenCommand(CommandSet& commands);

}  // namespace tessera::cli
