// The CLI's names for the cell renderings of tessera/util/value_text.h.
#pragma once

#include "tessera/util/value_text.h"

namespace tessera::cli {

using util::AppendDisplayValue;
using util::AppendJsonString;
using util::AppendJsonValue;
using util::AppendPlainValue;
using util::DisplayWidth;
using util::IsNumeric;
using util::kMaxDisplayWidth;

}  // namespace tessera::cli
