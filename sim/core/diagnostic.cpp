#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>

namespace dtsim::core {

std::string Diagnostic::format() const {
  std::string out = where.file;
  if (where.line > 0) out += fmt::format(":{}:{}", where.line, where.column);
  out += ": error: ";
  if (!key.empty()) out += key + ": ";
  out += message;
  if (!hint.empty()) out += "\n  hint: " + hint;
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
  diagnostics_.push_back(Diagnostic{std::move(where), std::move(key), std::move(message), std::move(hint)});
}

void DiagnosticSink::throw_if_any() const {
  if (!diagnostics_.empty()) throw InputError(diagnostics_);
}

}  // namespace dtsim::core
