#pragma once
// Errors in user input, each pointing at the place in the input that caused it.

#include <exception>
#include <string>
#include <vector>

namespace dtsim::core {

/// A place in an input file. Line and column are 1-based; 0 means "unknown" (the whole file).
struct SourcePosition {
  std::string file;
  int line = 0;
  int column = 0;
};

/// One problem in the input: where, which key (dotted path, may be empty), what, and how to fix it.
struct Diagnostic {
  SourcePosition where;
  std::string key;
  std::string message;
  std::string hint;

  /// "file:line:col: error: key: message" and, when there is a hint, "\n  hint: ...".
  [[nodiscard]] std::string format() const;
};

/// Raised for bad user input (exit status 2). Carries every problem found, not only the first.
class InputError : public std::exception {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  explicit InputError(Diagnostic diagnostic);
  [[nodiscard]] const char* what() const noexcept override { return text_.c_str(); }
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
  std::string text_;
};

/// Collects diagnostics while reading a file, so that all of them can be reported in one run.
class DiagnosticSink {
 public:
  void error(SourcePosition where, std::string key, std::string message, std::string hint = {});
  [[nodiscard]] bool empty() const { return diagnostics_.empty(); }
  /// Throws InputError holding every diagnostic collected, if there is any.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace dtsim::core
