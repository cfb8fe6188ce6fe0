// The query vector literal of `tessera search --vector`: numbers separated by commas (or,
// without commas, by blanks), optionally in brackets: "[0.1, 0.2, 0.3]", "0.1,0.2,0.3" or
// "0.1 0.2 0.3". Its own file so that the fuzz target of tests/fuzz compiles it.
#pragma once

#include <arrow/result.h>

#include <string_view>
#include <vector>

namespace tessera::cli {

// The numbers of `text`, in order; InvalidArgument (quoting `text`) for anything else.
arrow::Result<std::vector<float>> ParseVectorLiteral(std::string_view text);

}  // namespace tessera::cli
