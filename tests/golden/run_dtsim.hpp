#pragma once
// Runs the dtsim binary as a user would, capturing its exit status and output.

#include <filesystem>
#include <map>
#include <string>

namespace dtsim::testing {

struct CommandResult {
  int exit_status = -1;
  std::string out;
  std::string err;
};

/// `err` without the progress lines a plan's search writes every 10 s into a log (`  <n> devices: <i>/<total>
/// candidates screened (...)`): how many a search writes depends on the machine's speed, not on what it found.
std::string without_search_progress(const std::string& err);

/// Runs `dtsim <arguments>` (arguments are passed through the shell as written); its stderr without sanitizer notices
/// and search progress.
CommandResult run_dtsim(const std::string& arguments);

std::string read_file(const std::filesystem::path& path);

/// The content of every file under `folder`, by its path relative to it.
std::map<std::string, std::string> files_under(const std::filesystem::path& folder);

/// `err` without the notice AddressSanitizer prints when SimGrid switches to an actor's stack (three lines,
/// harmless): the sanitizer build runs the same tests, which compare dtsim's own messages exactly.
std::string without_sanitizer_notices(const std::string& err);

/// A fresh, empty folder for one test's outputs.
std::filesystem::path fresh_output_folder(const std::string& name);

inline std::filesystem::path scenario_path(const std::string& relative) {
  return std::filesystem::path(DTSIM_SOURCE_DIR) / "scenarios" / relative;
}

}  // namespace dtsim::testing
