// ICU's C functions that full-text analysis uses, from libicuuc opened on first use
// (util/shared_library.h) instead of linked: only commands that analyze text need ICU, and a
// linked ICU cost every tessera process about 0.7 ms at start (docs/benchmarks.md, "Process
// start"). The C API, not ICU's C++ classes, because C functions can be bound by name; ICU
// versions its symbols (u_foldCase is u_foldCase_72), and the names bound are those of the
// headers compiled against, so a library of another ICU version fails to load with a message
// naming the missing symbols, never misbehaves.
#pragma once

#include <arrow/result.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/utext.h>
#include <unicode/utypes.h>

namespace tessera::index::text {

struct IcuLibrary {
  // Character properties and case.
  decltype(&u_charType) char_type = nullptr;
  decltype(&u_isUWhiteSpace) is_white_space = nullptr;
  decltype(&u_foldCase) fold_case = nullptr;
  decltype(&u_tolower) to_lower = nullptr;
  decltype(&u_errorName) error_name = nullptr;
  // Decompositions, for ASCII folding.
  decltype(&unorm2_getNFKDInstance) nfkd_instance = nullptr;
  decltype(&unorm2_getNFDInstance) nfd_instance = nullptr;
  decltype(&unorm2_getDecomposition) decomposition = nullptr;
  // Word boundaries (the icu tokenizer) over UTF-8 text.
  decltype(&ubrk_open) break_open = nullptr;
  decltype(&ubrk_close) break_close = nullptr;
  decltype(&ubrk_setUText) break_set_text = nullptr;
  decltype(&ubrk_first) break_first = nullptr;
  decltype(&ubrk_next) break_next = nullptr;
  decltype(&ubrk_getRuleStatus) break_rule_status = nullptr;
  decltype(&utext_openUTF8) text_open_utf8 = nullptr;
  decltype(&utext_close) text_close = nullptr;
};

// The library, loaded on the first call; Internal (naming the file and the loader's message, or
// the symbols it lacks) when it cannot be, on this call and every later one. Analyzer and
// Tokenizer construction call it, so that text analysis fails there, with the reason.
arrow::Result<const IcuLibrary*> LoadIcu();

// The loaded library, for code that runs once an analyzer exists (character classes, case
// folding): loads it if nobody has; aborts with LoadIcu's message if it cannot be loaded, which
// only code that skipped LoadIcu's check can reach.
const IcuLibrary& Icu();

}  // namespace tessera::index::text
