// The English corpus of the full-text tests and bench/fts: WordNet's synsets and their glosses,
// read from the Debian package wordnet-base (/usr/share/wordnet/data.{noun,verb,adj,adv}; the
// bootstrap installs it). Missing files are an error naming the package, never an empty corpus,
// so a test on it fails instead of passing vacuously.
//
// Invariants: synsets come in file order (noun, verb, adj, adv; within a file by offset) with
// ids 0, 1, 2, ... in that order; every synset has at least one lemma and a non-empty gloss.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"

namespace tessera::testing {

inline constexpr const char* kWordNetDirectory = "/usr/share/wordnet";
inline constexpr const char* kWordNetPackage = "wordnet-base";

struct Synset {
  int64_t id = 0;
  // Lemmas as WordNet spells them, with '_' between the words of a collocation
  // ("physical_entity") and adjective markers ("(a)", "(p)", "(ip)") removed.
  std::vector<std::string> words;
  std::string gloss;  // the text after " | ", trailing blanks removed
};

// Every synset of the four data files. NotFound naming the file and kWordNetPackage when one is
// missing; Corrupt naming the file and line for a synset line that does not parse.
arrow::Result<std::vector<Synset>> ReadWordNet(const std::string& directory = kWordNetDirectory);

// Every synset once the corpus was read (read once per process); the error as ReadWordNet's.
arrow::Result<const std::vector<Synset>*> WordNet();

// `count` synsets spread evenly over the whole corpus (every part of speech), in id order.
std::vector<Synset> SpreadSample(const std::vector<Synset>& synsets, size_t count);

// The lemmas as one text: each lemma's '_' replaced by a space, lemmas joined by spaces.
std::string WordsText(const Synset& synset);

// id int64, words string, gloss string.
std::shared_ptr<arrow::Schema> WordNetSchema();
std::shared_ptr<arrow::RecordBatch> WordNetBatch(const std::vector<Synset>& synsets);

// A dataset at `uri` of `synsets` in `fragments` fragments of equal size (the last one shorter).
arrow::Result<std::shared_ptr<dataset::Dataset>> CreateWordNetDataset(
    const std::string& uri, const std::vector<Synset>& synsets, int fragments);
// Appends `synsets` in `fragments` fragments.
arrow::Result<std::shared_ptr<dataset::Dataset>> AppendWordNet(const dataset::Dataset& dataset,
                                                               const std::vector<Synset>& synsets,
                                                               int fragments);

}  // namespace tessera::testing
