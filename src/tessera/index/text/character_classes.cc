#include "tessera/index/text/character_classes.h"

#include <unicode/uchar.h>

namespace tessera::index::text::character_classes_detail {

bool IsNonAsciiWordCharacter(UChar32 code_point) {
  return (U_GET_GC_MASK(code_point) & (U_GC_L_MASK | U_GC_M_MASK | U_GC_ND_MASK)) != 0;
}

bool IsNonAsciiWhitespace(UChar32 code_point) { return u_isUWhiteSpace(code_point) != 0; }

}  // namespace tessera::index::text::character_classes_detail
