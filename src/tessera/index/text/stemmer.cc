#include "tessera/index/text/stemmer.h"

#include <libstemmer.h>

#include <algorithm>
#include <climits>

#include "tessera/index/text/analyzer.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

// libstemmer spells its languages in lower case; the list is static data of the library.
std::vector<std::string> ListStemmers() {
  std::vector<std::string> languages;
  for (const char** name = sb_stemmer_list(); *name != nullptr; ++name) {
    languages.emplace_back(*name);
  }
  std::sort(languages.begin(), languages.end());
  languages.erase(std::unique(languages.begin(), languages.end()), languages.end());
  return languages;
}

std::string JoinLanguages(const std::vector<std::string>& languages) {
  std::string text;
  for (const auto& language : languages) text += (text.empty() ? "" : ", ") + language;
  return text;
}

}  // namespace

std::vector<std::string> StemmerLanguages() {
  static const std::vector<std::string> languages = ListStemmers();
  return languages;
}

bool HasStemmer(std::string_view language) {
  static const std::vector<std::string> languages = ListStemmers();
  return std::binary_search(languages.begin(), languages.end(), language);
}

arrow::Result<std::unique_ptr<Stemmer>> Stemmer::Make(std::string_view language) {
  if (!HasStemmer(language)) {
    return InvalidArgument("no Snowball stemmer for language '", language,
                           "'; the stemmer languages are: ", JoinLanguages(StemmerLanguages()));
  }
  const std::string name(language);
  sb_stemmer* stemmer = sb_stemmer_new(name.c_str(), "UTF_8");
  if (stemmer == nullptr) {
    return Error(ErrorKind::kResourceExhausted, "cannot create the Snowball stemmer for '",
                 language, "' (out of memory)");
  }
  return std::unique_ptr<Stemmer>(new Stemmer(stemmer));
}

Stemmer::~Stemmer() { sb_stemmer_delete(stemmer_); }

std::string_view Stemmer::Stem(std::string_view word) {
  if (word.size() > static_cast<size_t>(INT_MAX)) return word;
  const sb_symbol* stem = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word.data()),
                                          static_cast<int>(word.size()));
  if (stem == nullptr) return word;
  return std::string_view(reinterpret_cast<const char*>(stem),
                          static_cast<size_t>(sb_stemmer_length(stemmer_)));
}

}  // namespace tessera::index::text
