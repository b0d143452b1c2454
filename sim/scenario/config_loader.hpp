#pragma once
// Reads YAML text or files into ConfigNode trees, following `include:` lines. Every problem goes to
// the sink with its file:line:col (and include chain); nothing is thrown for bad input.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema_names.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace dtsim::scenario {

/// How many files deep `include:` may nest (a file including one that includes another: 2).
inline constexpr std::size_t kIncludeDepthLimit = 32;

struct LoadOptions {
  /// When false, `include:` is an error: for text that has no place on disk (the fuzzer, tests).
  bool allow_includes = true;
  /// `--confine DIR` (canonical): an included file outside it is an error, and is not read.
  std::optional<std::filesystem::path> confine;
  /// The scenario named on the command line of a study (`dtsim plan`, `dtsim scale`), which the scenario the study
  /// generates includes: read outside `confine`, as `dtsim run` reads the file named on its command line. The files
  /// it includes are confined all the same.
  std::optional<std::filesystem::path> study_scenario;
  /// A sweep's problems name the points they are in (sweep.hpp's named_by_point): for a sweep a study generates,
  /// whose points the user never wrote.
  bool name_points = false;
};

/// Parses `text`, named `file_name` in messages and used as the base for relative includes. The
/// top-level `include:` (a file name or a list of them) is replaced by the included files' contents,
/// merged in order, with the including file's own keys applied last: each must hold sections of `schema`
/// (the scenario format), and sections the schema replaces whole are not merged key by key. Returns a Null
/// node when the text cannot be read as YAML at all.
ConfigNode load_config_text(const SchemaNode& schema, const std::string& text, const std::string& file_name,
                            core::DiagnosticSink& sink, const LoadOptions& options = {});

/// As load_config_text, reading the file first.
ConfigNode load_config_file(const SchemaNode& schema, const std::filesystem::path& path, core::DiagnosticSink& sink,
                            const LoadOptions& options = {});

}  // namespace dtsim::scenario
