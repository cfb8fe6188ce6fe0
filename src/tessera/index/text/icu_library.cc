#include "tessera/index/text/icu_library.h"

#include <unicode/uvernum.h>

#include <cstdio>
#include <cstdlib>

#include "tessera/status.h"
#include "tessera/util/shared_library.h"

#ifndef TESSERA_ICU_UC_LIBRARY
#define TESSERA_ICU_UC_LIBRARY "libicuuc.so"
#endif

// A function's symbol as ICU's headers rename it ("u_foldCase" -> "u_foldCase_72"): the argument
// is macro-expanded before it is quoted.
#define TESSERA_ICU_QUOTE(name) #name
#define TESSERA_ICU_SYMBOL(name) TESSERA_ICU_QUOTE(name)

namespace tessera::index::text {

namespace {

arrow::Result<IcuLibrary> OpenIcu() {
  ARROW_ASSIGN_OR_RAISE(
      auto library,
      util::SharedLibrary::Open(
          {TESSERA_ICU_UC_LIBRARY, "libicuuc.so." U_ICU_VERSION_SHORT}, ErrorKind::kInternal,
          "ICU's common library, which full-text analysis needs,",
          "install libicu" U_ICU_VERSION_SHORT " (scripts/bootstrap.sh installs libicu-dev)"));
  IcuLibrary icu;
#define TESSERA_BIND_ICU(slot, function) library.Bind(&icu.slot, TESSERA_ICU_SYMBOL(function))
  TESSERA_BIND_ICU(char_type, u_charType);
  TESSERA_BIND_ICU(is_white_space, u_isUWhiteSpace);
  TESSERA_BIND_ICU(fold_case, u_foldCase);
  TESSERA_BIND_ICU(to_lower, u_tolower);
  TESSERA_BIND_ICU(error_name, u_errorName);
  TESSERA_BIND_ICU(nfkd_instance, unorm2_getNFKDInstance);
  TESSERA_BIND_ICU(nfd_instance, unorm2_getNFDInstance);
  TESSERA_BIND_ICU(decomposition, unorm2_getDecomposition);
  TESSERA_BIND_ICU(break_open, ubrk_open);
  TESSERA_BIND_ICU(break_close, ubrk_close);
  TESSERA_BIND_ICU(break_set_text, ubrk_setUText);
  TESSERA_BIND_ICU(break_first, ubrk_first);
  TESSERA_BIND_ICU(break_next, ubrk_next);
  TESSERA_BIND_ICU(break_rule_status, ubrk_getRuleStatus);
  TESSERA_BIND_ICU(text_open_utf8, utext_openUTF8);
  TESSERA_BIND_ICU(text_close, utext_close);
#undef TESSERA_BIND_ICU
#undef TESSERA_ICU_SYMBOL
#undef TESSERA_ICU_QUOTE
  ARROW_RETURN_NOT_OK(library.Complete());
  return icu;
}

}  // namespace

arrow::Result<const IcuLibrary*> LoadIcu() {
  static const arrow::Result<IcuLibrary> loaded = OpenIcu();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

const IcuLibrary& Icu() {
  static const IcuLibrary* const icu = [] {
    auto loaded = LoadIcu();
    if (!loaded.ok()) {
      std::fprintf(stderr, "tessera: %s\n", loaded.status().ToString().c_str());
      std::abort();
    }
    return *loaded;
  }();
  return *icu;
}

}  // namespace tessera::index::text
