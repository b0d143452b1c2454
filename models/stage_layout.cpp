#include "models/stage_layout.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstddef>

namespace dtsim::models {
namespace {

/// The longest layout read: past it a repeat count is refused rather than expanded.
constexpr std::size_t kMostLayers = 1U << 20U;

/// `text` with "(...)*n" and "x*n" written out, or an error.
bool expand(std::string_view text, std::string& out, std::string& error) {
  for (std::size_t i = 0; i < text.size();) {
    std::string unit;
    if (text[i] == '(') {
      const std::size_t close = text.find(')', i);
      if (close == std::string_view::npos) {
        error = "a '(' without its ')'";
        return false;
      }
      unit = std::string(text.substr(i + 1, close - i - 1));
      if (unit.find('(') != std::string::npos) {
        error = "a repeat inside a repeat";
        return false;
      }
      i = close + 1;
    } else {
      unit = std::string(1, text[i]);
      ++i;
    }
    std::size_t times = 1;
    if (i < text.size() && text[i] == '*') {
      std::size_t end = i + 1;
      times = 0;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0 && times <= kMostLayers) {
        times = times * 10 + static_cast<std::size_t>(text[end] - '0');
        ++end;
      }
      if (end == i + 1 || times == 0) {
        error = "a '*' without a count of 1 or more after it";
        return false;
      }
      i = end;
    }
    if (times > kMostLayers || out.size() + unit.size() * times > kMostLayers) {
      error = fmt::format("it spells out more than {} layers", kMostLayers);
      return false;
    }
    for (std::size_t k = 0; k < times; ++k) out += unit;
  }
  return true;
}

}  // namespace

StageLayout read_stage_layout(std::string_view layout) {
  StageLayout out;
  std::string spelled;
  if (!expand(layout, spelled, out.error)) return out;
  std::vector<std::string> stages{""};
  for (const char c : spelled) {
    if (c == '|') {
      stages.emplace_back();
    } else if (c != ' ') {
      stages.back() += c;
    }
  }
  for (std::size_t s = 0; s < stages.size(); ++s) {
    int blocks = 0;
    for (std::size_t k = 0; k < stages[s].size(); ++k) {
      const char c = stages[s][k];
      if (c == 't') {
        ++blocks;
      } else if (c == 'E' && (s != 0 || k != 0)) {
        out.error = "the embedding ('E') opens the first stage, and only there";
      } else if (c == 'L' && (s + 1 != stages.size() || k + 1 != stages[s].size())) {
        out.error = "the loss ('L') closes the last stage, and only there";
      } else if (c == 'm') {
        out.error = "a multi-token prediction layer ('m'), which no layer table here has";
      } else if (c != 'E' && c != 'L') {
        out.error = fmt::format("'{}', which is none of E, t, L, |, ( ) and *", c);
      }
      if (!out.error.empty()) return out;
    }
    out.blocks.push_back(blocks);
  }
  return out;
}

}  // namespace dtsim::models
