#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace dtsim::core {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

std::string quoted_excerpt(std::string_view text, std::size_t longest) {
  if (text.size() <= longest) return fmt::format("\"{}\"", printable(text));
  return fmt::format("\"{}...\" ({} characters)", printable(text.substr(0, longest)), text.size());
}

std::string ExcerptOnce::got(std::string_view text) {
  if (spent_) return {};
  spent_ = true;
  return ", got " + quoted_excerpt(text, kLongest);
}

std::string format_position(const SourcePosition& where) {
  if (where.line <= 0) return printable(where.file);
  return fmt::format("{}:{}:{}", printable(where.file), where.line, where.column);
}

std::string Diagnostic::format() const {
  std::string out = format_position(where) + ": error: ";
  if (!key.empty()) out += printable(key) + ": ";
  out += printable(message);
  for (const auto& site : where.included_from) out += "\n  included from " + format_position(site);
  if (!hint.empty()) out += "\n  hint: " + printable(hint);
  return out;
}

InputError::InputError(std::vector<Diagnostic> diagnostics) : diagnostics_(std::move(diagnostics)) {
  for (const auto& diagnostic : diagnostics_) {
    if (!text_.empty()) text_ += '\n';
    text_ += diagnostic.format();
  }
}

InputError::InputError(Diagnostic diagnostic) : InputError(std::vector<Diagnostic>{std::move(diagnostic)}) {}

void DiagnosticSink::error(SourcePosition where, std::string key, std::string message, std::string hint) {
  for (const auto& seen : diagnostics_) {
    if (seen.where.file == where.file && seen.where.line == where.line && seen.where.column == where.column &&
        seen.key == key && seen.message == message) {
      return;
    }
  }
  diagnostics_.push_back(Diagnostic{std::move(where), std::move(key), std::move(message), std::move(hint)});
}

void DiagnosticSink::append(const DiagnosticSink& other) {
  for (const auto& d : other.diagnostics_) error(d.where, d.key, d.message, d.hint);
}

void DiagnosticSink::sort_by_position() {
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
}

void DiagnosticSink::throw_if_any() const {
  if (!diagnostics_.empty()) throw InputError(diagnostics_);
}

}  // namespace dtsim::core
