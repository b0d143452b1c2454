#include "models/text_corpus.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>
#include <unordered_map>

namespace dtsim::models {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& message, const std::string& hint = "") {
  throw core::InputError(core::Diagnostic{core::SourcePosition(source), "", message, hint});
}

/// The whole file, inflated when it is gzip-compressed (zlib reads plain files through unchanged).
std::string read_all(const std::filesystem::path& file) {
  constexpr const char* kPathHint = "check the path (relative paths start at the scenario's folder)";
  if (const std::string problem = core::input_file_problem(file, core::kDataFileLimit); !problem.empty()) {
    fail(file.string(), "cannot read this data file: " + problem, kPathHint);
  }
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> in(gzopen(file.c_str(), "rb"), gzclose);
  if (in == nullptr) fail(file.string(), "cannot read this data file", kPathHint);
  std::string out;
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    const int got = gzread(in.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
    int error = Z_OK;
    gzerror(in.get(), &error);
    // zlib hands out what it could inflate, then says the stream ended early: never train on part of a file.
    if (got < 0 || (error != Z_OK && error != Z_STREAM_END)) {
      fail(file.string(), error == Z_BUF_ERROR ? "the gzip file is truncated (it ends before its last block)"
                                               : "the file is damaged (not valid gzip data)",
           "download or compress it again");
    }
    if (got == 0) return out;
    if (out.size() + static_cast<std::size_t>(got) > core::kDataFileLimit) {
      fail(file.string(), fmt::format("the text inflates to more than {}", core::describe_size(core::kDataFileLimit)),
           "use a smaller corpus");
    }
    out.append(buffer.data(), static_cast<std::size_t>(got));
  }
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

TokenizedText tokenize(const std::string& text, std::size_t vocabulary, const std::string& source) {
  // First pass: count every word, so that ids can be ranks by frequency.
  std::unordered_map<std::string, std::size_t> counts;
  std::vector<std::vector<std::string>> sentences(1);
  std::string word;
  const auto end_word = [&] {
    if (word.empty()) return;
    ++counts[word];
    sentences.back().push_back(std::move(word));
    word.clear();
  };
  for (const char c : text) {
    if (is_letter(c)) {
      word.push_back(lower(c));
      continue;
    }
    end_word();
    if (c == '\n' && !sentences.back().empty()) sentences.emplace_back();
  }
  end_word();
  if (counts.empty()) fail(source, "the text holds no words (runs of letters A-Z)");

  std::vector<std::pair<std::string, std::size_t>> ranked(counts.begin(), counts.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  ranked.resize(std::min(ranked.size(), vocabulary));
  TokenizedText out;
  std::unordered_map<std::string, std::uint32_t> ids;
  for (const auto& [text_of_word, count] : ranked) {
    ids.emplace(text_of_word, static_cast<std::uint32_t>(out.words.size()));
    out.words.push_back(text_of_word);
  }
  for (const std::vector<std::string>& sentence : sentences) {
    std::vector<std::uint32_t> kept;
    for (const std::string& w : sentence) {
      if (const auto it = ids.find(w); it != ids.end()) kept.push_back(it->second);
    }
    if (!kept.empty()) out.sentences.push_back(std::move(kept));
  }
  return out;
}

TokenizedText read_text_corpus(const std::filesystem::path& file, std::size_t vocabulary) {
  return tokenize(read_all(file), vocabulary, file.string());
}

std::int64_t word_id(const TokenizedText& text, const std::string& word) {
  const auto it = std::find(text.words.begin(), text.words.end(), word);
  return it == text.words.end() ? -1 : static_cast<std::int64_t>(it - text.words.begin());
}

}  // namespace dtsim::models
