// Stemmer: one Snowball stemmer (libstemmer's sb_stemmer) for one language, owned (RAII). An
// sb_stemmer keeps its working buffer inside, so a Stemmer is not thread-safe: each Analyzer
// owns its own.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sb_stemmer;

namespace tessera::index::text {

struct Snowball;  // libstemmer's functions (stemmer.cc)

class Stemmer {
 public:
  // InvalidArgument listing the stemmer languages when `language` (lower case) has none;
  // Internal when libstemmer cannot be loaded.
  static arrow::Result<std::unique_ptr<Stemmer>> Make(std::string_view language);
  ~Stemmer();
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;

  // The stem of `word` (UTF-8, lower case as the stemmers expect). The view is valid until the
  // next call. A word the stemmer cannot take (out of memory, too long for an int) stays as is.
  std::string_view Stem(std::string_view word);

 private:
  Stemmer(const Snowball& snowball, sb_stemmer* stemmer) : snowball_(snowball), stemmer_(stemmer) {}
  const Snowball& snowball_;
  sb_stemmer* stemmer_;
};

// Whether `language` (lower case) has a Snowball stemmer; false for every language when
// libstemmer cannot be loaded, which StemmersAvailable reports.
bool HasStemmer(std::string_view language);

// OK when libstemmer is loaded (on first call); Internal naming the file and the fix if not.
arrow::Status StemmersAvailable();

}  // namespace tessera::index::text
