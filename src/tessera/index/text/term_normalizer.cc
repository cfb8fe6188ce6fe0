#include "tessera/index/text/term_normalizer.h"

#include <unicode/utf16.h>

#include <array>

#include "tessera/index/text/icu_library.h"
#include "tessera/index/text/utf8.h"

namespace tessera::index::text {

namespace {

// Distinct non-ASCII code points remembered per normalizer: enough for the alphabets of any
// corpus, bounded for text that cycles through all of Unicode.
constexpr size_t kMaxCachedCodePoints = 1 << 16;

constexpr std::array<char, 128> MakeAsciiLowerTable() {
  std::array<char, 128> table{};
  for (int c = 0; c < 128; ++c) {
    table[c] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  }
  return table;
}
constexpr std::array<char, 128> kAsciiLower = MakeAsciiLowerTable();

// Combining diacritical marks: what ascii_folding removes after decomposing.
bool IsCombiningDiacritic(UChar32 c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE20 && c <= 0xFE2F);
}

// Latin letters without a decomposition to their ASCII base (Lucene's ASCIIFoldingFilter maps
// the same ones).
std::string_view LatinBase(UChar32 c) {
  switch (c) {
    case 0x00C6:
      return "AE";  // Æ
    case 0x00E6:
      return "ae";  // æ
    case 0x0152:
      return "OE";  // Œ
    case 0x0153:
      return "oe";  // œ
    case 0x00DF:
      return "ss";  // ß
    case 0x1E9E:
      return "SS";  // ẞ
    case 0x00D8:
      return "O";  // Ø
    case 0x00F8:
      return "o";  // ø
    case 0x0141:
      return "L";  // Ł
    case 0x0142:
      return "l";  // ł
    case 0x013F:
      return "L";  // Ŀ
    case 0x0140:
      return "l";  // ŀ
    case 0x0110:
      return "D";  // Đ
    case 0x0111:
      return "d";  // đ
    case 0x00D0:
      return "D";  // Ð
    case 0x00F0:
      return "d";  // ð
    case 0x00DE:
      return "TH";  // Þ
    case 0x00FE:
      return "th";  // þ
    case 0x0131:
      return "i";  // ı
    case 0x0126:
      return "H";  // Ħ
    case 0x0127:
      return "h";  // ħ
    case 0x0166:
      return "T";  // Ŧ
    case 0x0167:
      return "t";  // ŧ
    case 0x014A:
      return "N";  // Ŋ
    case 0x014B:
      return "n";  // ŋ
    case 0x0138:
      return "q";  // ĸ
    case 0x0149:
      return "n";  // ŉ
    case 0x0180:
      return "b";  // ƀ
    case 0x0253:
      return "b";  // ɓ
    case 0x0188:
      return "c";  // ƈ
    case 0x0257:
      return "d";  // ɗ
    case 0x0192:
      return "f";  // ƒ
    case 0x0260:
      return "g";  // ɠ
    case 0x0268:
      return "i";  // ɨ
    case 0x0199:
      return "k";  // ƙ
    case 0x019A:
      return "l";  // ƚ
    case 0x0272:
      return "n";  // ɲ
    case 0x0275:
      return "o";  // ɵ
    case 0x01A5:
      return "p";  // ƥ
    case 0x01AD:
      return "t";  // ƭ
    case 0x0289:
      return "u";  // ʉ
    case 0x01B4:
      return "y";  // ƴ
    case 0x01B5:
      return "Z";  // Ƶ
    case 0x01B6:
      return "z";  // ƶ
    case 0x0225:
      return "z";  // ȥ
    default:
      return {};
  }
}

// Simple case folding; a character folding has no simple mapping for but lower case has
// (U+0130 İ, whose folding is two characters) takes its lower case, so that no capital survives.
UChar32 FoldCase(UChar32 c) {
  const IcuLibrary& icu = Icu();
  const UChar32 folded = icu.fold_case(c, U_FOLD_CASE_DEFAULT);
  return folded != c ? folded : icu.to_lower(c);
}

}  // namespace

std::string TermNormalizer::Transform(UChar32 code_point) const {
  const UChar32 folded = lower_case_ ? FoldCase(code_point) : code_point;
  std::string out;
  if (!ascii_folding_) {
    AppendUtf8(folded, &out);
    return out;
  }
  // Each character of the decomposition, case-folded again (a compatibility decomposition can
  // produce capitals: "ℌ" → "H") and mapped to its Latin base.
  auto append_base = [&](UChar32 c) {
    if (lower_case_) c = FoldCase(c);
    std::string_view base = LatinBase(c);
    if (base.empty()) {
      AppendUtf8(c, &out);
      return;
    }
    for (char b : base) out.push_back(lower_case_ ? kAsciiLower[static_cast<unsigned char>(b)] : b);
  };
  // A combining accent of decomposed text ("e" + U+0301) goes like a precomposed one's.
  if (IsCombiningDiacritic(folded)) return out;
  // A decomposition is at most 18 UTF-16 units (U+FDFA's compatibility one).
  const IcuLibrary& icu = Icu();
  std::array<UChar, 64> decomposition;
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* nfkd = icu.nfkd_instance(&status);
  const UNormalizer2* nfd = icu.nfd_instance(&status);
  const int32_t length =
      U_FAILURE(status) ? -1
                        : icu.decomposition(nfkd, folded, decomposition.data(),
                                            static_cast<int32_t>(decomposition.size()), &status);
  if (U_FAILURE(status) || length < 0) {
    append_base(folded);
    return out;
  }
  bool dropped = false;
  for (int32_t i = 0; i < length;) {
    UChar32 c = 0;
    U16_NEXT(decomposition.data(), i, length, c);
    if (IsCombiningDiacritic(c)) {
      dropped = true;
      continue;
    }
    append_base(c);
  }
  // A canonical decomposition that removed no accent (a Hangul syllable into its jamo, a kana
  // and its voicing mark) only changes the spelling: keep the composed character.
  std::array<UChar, 64> canonical;
  status = U_ZERO_ERROR;
  if (!dropped &&
      icu.decomposition(nfd, folded, canonical.data(), static_cast<int32_t>(canonical.size()),
                        &status) >= 0 &&
      U_SUCCESS(status)) {
    out.clear();
    append_base(folded);
  }
  return out;
}

void TermNormalizer::AppendTransformed(UChar32 code_point, std::string* out) {
  auto found = cache_.find(code_point);
  if (found != cache_.end()) {
    out->append(found->second);
    return;
  }
  std::string transformed = Transform(code_point);
  out->append(transformed);
  if (cache_.size() < kMaxCachedCodePoints) cache_.emplace(code_point, std::move(transformed));
}

std::string_view TermNormalizer::Normalize(std::string_view token, std::string* buffer) {
  size_t ascii_prefix = 0;
  while (ascii_prefix < token.size() && static_cast<unsigned char>(token[ascii_prefix]) < 0x80) {
    ++ascii_prefix;
  }
  if (ascii_prefix == token.size() && !lower_case_) return token;
  buffer->clear();
  if (lower_case_) {
    for (size_t i = 0; i < ascii_prefix; ++i) {
      buffer->push_back(kAsciiLower[static_cast<unsigned char>(token[i])]);
    }
  } else {
    buffer->append(token.substr(0, ascii_prefix));
  }
  size_t offset = ascii_prefix;
  while (offset < token.size()) {
    const UChar32 c = DecodeNext(token, &offset);
    if (c < 0x80 && c >= 0) {
      buffer->push_back(lower_case_ ? kAsciiLower[c] : static_cast<char>(c));
    } else if (c == kInvalidCodePoint) {
      buffer->append(kReplacementCharacterUtf8);
    } else if (!lower_case_ && !ascii_folding_) {
      AppendUtf8(c, buffer);
    } else {
      AppendTransformed(c, buffer);
    }
  }
  return *buffer;
}

}  // namespace tessera::index::text
