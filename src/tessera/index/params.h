// Index parameters: string key/value pairs as users write them (`--param num_partitions=64`,
// SQL PROPERTIES(...)), validated and normalized by the family that owns them.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::index {

using Params = std::map<std::string, std::string>;

// Typed access with precise errors: "index parameter 'num_partitions' of IVF_FLAT must be an
// integer in [1, 65536], got 'abc'".
arrow::Result<int64_t> IntegerParam(const Params& params, std::string_view family,
                                    std::string_view key, int64_t default_value, int64_t min,
                                    int64_t max);
arrow::Result<double> RealParam(const Params& params, std::string_view family, std::string_view key,
                                double default_value, double min, double max);
// One of `allowed` (case-insensitive); returns the canonical (lower-case) spelling.
arrow::Result<std::string> ChoiceParam(const Params& params, std::string_view family,
                                       std::string_view key, std::string_view default_value,
                                       std::initializer_list<std::string_view> allowed);
// InvalidArgument naming the first key of `params` not in `known`, and listing `known`.
arrow::Status RejectUnknownParams(const Params& params, std::string_view family,
                                  const std::vector<std::string_view>& known);

// Parses "k=v" items (CLI flags) into Params, keys in lower case; InvalidArgument for items
// without '=' and for a key given twice (in any case), which would otherwise silently keep one.
arrow::Result<Params> ParseParamList(const std::vector<std::string>& items);

// "k1=v1, k2=v2" in key order (empty for no parameters): parameters in messages and listings.
std::string DescribeParams(const Params& params);

}  // namespace tessera::index
