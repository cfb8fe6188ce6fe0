#include "tessera/index/text/stemmer.h"

#include <libstemmer.h>

#include <algorithm>
#include <climits>

#include "tessera/index/text/analyzer.h"
#include "tessera/status.h"
#include "tessera/util/shared_library.h"

#ifndef TESSERA_STEMMER_LIBRARY
#define TESSERA_STEMMER_LIBRARY "libstemmer.so.0d"
#endif

namespace tessera::index::text {

// libstemmer's functions, from the library opened on first use (util/shared_library.h): only
// commands that analyze text need it (to stem, or to list the languages when options are
// checked), and a linked one cost every process at start.
struct Snowball {
  decltype(&sb_stemmer_list) list = nullptr;
  decltype(&sb_stemmer_new) create = nullptr;
  decltype(&sb_stemmer_delete) destroy = nullptr;
  decltype(&sb_stemmer_stem) stem = nullptr;
  decltype(&sb_stemmer_length) length = nullptr;
};

namespace {

arrow::Result<Snowball> OpenSnowball() {
  ARROW_ASSIGN_OR_RAISE(
      auto library,
      util::SharedLibrary::Open({TESSERA_STEMMER_LIBRARY, "libstemmer.so.0d"}, ErrorKind::kInternal,
                                "libstemmer, which stemming analyzers need,",
                                "install libstemmer0d (scripts/bootstrap.sh does)"));
  Snowball snowball;
  library.Bind(&snowball.list, "sb_stemmer_list");
  library.Bind(&snowball.create, "sb_stemmer_new");
  library.Bind(&snowball.destroy, "sb_stemmer_delete");
  library.Bind(&snowball.stem, "sb_stemmer_stem");
  library.Bind(&snowball.length, "sb_stemmer_length");
  ARROW_RETURN_NOT_OK(library.Complete());
  return snowball;
}

arrow::Result<const Snowball*> LoadSnowball() {
  static const arrow::Result<Snowball> loaded = OpenSnowball();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

// libstemmer spells its languages in lower case; the list is static data of the library. None
// when the library cannot be loaded (Stemmer::Make says why).
std::vector<std::string> ListStemmers() {
  std::vector<std::string> languages;
  auto snowball = LoadSnowball();
  if (!snowball.ok()) return languages;
  for (const char** name = (*snowball)->list(); *name != nullptr; ++name) {
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

arrow::Status StemmersAvailable() { return LoadSnowball().status(); }

bool HasStemmer(std::string_view language) {
  static const std::vector<std::string> languages = ListStemmers();
  return std::binary_search(languages.begin(), languages.end(), language);
}

arrow::Result<std::unique_ptr<Stemmer>> Stemmer::Make(std::string_view language) {
  ARROW_ASSIGN_OR_RAISE(const Snowball* snowball, LoadSnowball());
  if (!HasStemmer(language)) {
    return InvalidArgument("no Snowball stemmer for language '", language,
                           "'; the stemmer languages are: ", JoinLanguages(StemmerLanguages()));
  }
  const std::string name(language);
  sb_stemmer* stemmer = snowball->create(name.c_str(), "UTF_8");
  if (stemmer == nullptr) {
    return Error(ErrorKind::kResourceExhausted, "cannot create the Snowball stemmer for '",
                 language, "' (out of memory)");
  }
  return std::unique_ptr<Stemmer>(new Stemmer(*snowball, stemmer));
}

Stemmer::~Stemmer() { snowball_.destroy(stemmer_); }

std::string_view Stemmer::Stem(std::string_view word) {
  if (word.size() > static_cast<size_t>(INT_MAX)) return word;
  const sb_symbol* stem = snowball_.stem(stemmer_, reinterpret_cast<const sb_symbol*>(word.data()),
                                         static_cast<int>(word.size()));
  if (stem == nullptr) return word;
  return std::string_view(reinterpret_cast<const char*>(stem),
                          static_cast<size_t>(snowball_.length(stemmer_)));
}

}  // namespace tessera::index::text
