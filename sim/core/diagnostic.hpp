#pragma once
// Errors in user input, each pointing at the place in the input that caused it.

#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::core {

/// A place in an input file. Line and column are 1-based; 0 means "unknown" (the whole file).
struct SourcePosition {
  SourcePosition() = default;
  SourcePosition(std::string file_name, int line_number = 0, int column_number = 0)  // NOLINT(google-explicit-constructor)
      : file(std::move(file_name)), line(line_number), column(column_number) {}

  std::string file;
  int line = 0;
  int column = 0;
  /// Where `file` was included from, innermost first; empty for the file named on the command line.
  std::vector<SourcePosition> included_from;
};

/// `text` with control characters (a NUL, an escape sequence, a newline) written as \xNN: a message that
/// quotes a binary file or an odd file name prints as one readable line.
std::string printable(std::string_view text);

/// `text` in double quotes, cut to its first `longest` characters ("abc..." (N characters)) and printable:
/// an error quotes a file's content only as a short excerpt, whatever the file holds.
std::string quoted_excerpt(std::string_view text, std::size_t longest);

/// A reader of a table names at most this many bad rows: a long file that is no table would otherwise give an
/// error per line.
inline constexpr std::size_t kNamedProblems = 20;

/// A reader of a file quotes at most one excerpt of it in all its errors (a text that is no table would
/// otherwise be printed line by line): the first `got()` gives `, got "abc"`, every later one nothing.
class ExcerptOnce {
 public:
  /// Excerpts of table cells and lines are at most this long.
  static constexpr std::size_t kLongest = 24;
  [[nodiscard]] std::string got(std::string_view text);

 private:
  bool spent_ = false;
};

/// "file:line:col", or "file" when the line is unknown.
std::string format_position(const SourcePosition& where);

/// One problem in the input: where, which key (dotted path, may be empty), what, and how to fix it.
struct Diagnostic {
  SourcePosition where;
  std::string key;
  std::string message;
  std::string hint;

  /// "file:line:col: error: key: message", then "\n  included from f:l:c" per include level and, when
  /// there is a hint, "\n  hint: ...".
  [[nodiscard]] std::string format() const;
};

/// Raised for bad user input (exit status 2). Carries every problem found, not only the first.
class InputError : public std::exception {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  explicit InputError(Diagnostic diagnostic);
  [[nodiscard]] const char* what() const noexcept override { return text_.c_str(); }
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// Records every problem of `other` (duplicates kept once).
  void append(const class DiagnosticSink& other);
  /// Orders the problems by file, line and column, so that a report reads top to bottom.
  void sort_by_position();

 private:
  std::vector<Diagnostic> diagnostics_;
  std::string text_;
};

/// Collects diagnostics while reading a file, so that all of them can be reported in one run.
class DiagnosticSink {
 public:
  /// Records one problem; the same problem reported twice (say, by two sweep points) is kept once.
  void error(SourcePosition where, std::string key, std::string message, std::string hint = {});
  [[nodiscard]] bool empty() const { return diagnostics_.empty(); }
  [[nodiscard]] std::size_t size() const { return diagnostics_.size(); }
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// Records every problem of `other` (duplicates kept once).
  void append(const class DiagnosticSink& other);
  /// Orders the problems by file, line and column, so that a report reads top to bottom.
  void sort_by_position();
  /// Throws InputError holding every diagnostic collected, if there is any.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace dtsim::core
