// Stop-word lists: the Snowball project's lists (https://snowballstem.org/), as data. A list is
// spelled as the language writes it (lower case, accents kept); the analyzer passes every word
// through its own lower_case/ascii_folding steps before comparing, so a list matches terms
// whatever those steps do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera::index::text {

// The words of `language`'s list (lower case, e.g. "english"), or an empty vector when it has
// none.
std::vector<std::string_view> StopWordList(std::string_view language);

// Whether `language` has a stop-word list.
bool HasStopWordList(std::string_view language);

}  // namespace tessera::index::text
