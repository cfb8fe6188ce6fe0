#include "tessera/index/text/character_classes.h"

#include "tessera/index/text/icu_library.h"

namespace tessera::index::text::character_classes_detail {

bool IsNonAsciiWordCharacter(UChar32 code_point) {
  return (U_MASK(Icu().char_type(code_point)) & (U_GC_L_MASK | U_GC_M_MASK | U_GC_ND_MASK)) != 0;
}

bool IsNonAsciiWhitespace(UChar32 code_point) { return Icu().is_white_space(code_point) != 0; }

}  // namespace tessera::index::text::character_classes_detail
