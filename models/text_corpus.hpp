#pragma once
// Text as word ids: tokenizing a corpus and keeping its most frequent words.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dtsim::models {

/// Sentences of word ids into `words`; ids are ranks by frequency (0 = most frequent).
struct TokenizedText {
  std::vector<std::string> words;
  std::vector<std::vector<std::uint32_t>> sentences;
};

/// Reads a text file (plain, or gzip-compressed when the name ends in .gz), one sentence per line. Words are
/// runs of ASCII letters, lowercased; everything else separates them. Keeps the `vocabulary` most frequent
/// words (ties broken alphabetically) and drops the rest from the sentences. Throws core::InputError naming
/// the file when it cannot be read or holds no words.
TokenizedText read_text_corpus(const std::filesystem::path& file, std::size_t vocabulary);

/// The same from text already in memory, `source` naming it in errors.
TokenizedText tokenize(const std::string& text, std::size_t vocabulary, const std::string& source);

/// The id of `word` in `text`'s vocabulary, or -1.
std::int64_t word_id(const TokenizedText& text, const std::string& word);

}  // namespace dtsim::models
