#include "run_dtsim.hpp"

#include "sim/core/rng.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace dtsim::testing {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

/// `text`'s lines for which `keep` (called once a line, in order) says true; a last line without its newline stays so.
template <class Keep>
std::string kept_lines(const std::string& text, Keep keep) {
  std::istringstream in(text);
  std::string out;
  std::string line;
  while (std::getline(in, line)) {
    if (keep(line)) out += line + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

}  // namespace

std::string without_search_progress(const std::string& err) {
  return kept_lines(err, [](const std::string& line) {
    return !(line.starts_with("  ") && line.find(" candidates screened (") != std::string::npos);
  });
}

std::string without_sanitizer_notices(const std::string& err) {
  int skip = 0;
  return kept_lines(err, [&skip](const std::string& line) {
    if (line.starts_with("==") && line.find("WARNING: ASan is ignoring requested __asan_handle_no_return") != std::string::npos) {
      skip = 3;
    }
    if (skip > 0 && (skip == 3 || line.starts_with("False positive error reports may follow") ||
                     line.starts_with("For details see https://github.com/google/sanitizers/issues/189"))) {
      --skip;
      return false;
    }
    skip = 0;
    return true;
  });
}

std::filesystem::path fresh_output_folder(const std::string& name) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "golden" / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

CommandResult run_dtsim(const std::string& arguments) {
  // Two tests may run the same command at once (CTest runs two processes): each process
  // captures into its own folder.
  const auto capture = fresh_output_folder("capture-" + std::to_string(::getpid()) + "-" +
                                           std::to_string(core::stable_hash(arguments)));
  const std::string command = std::string(DTSIM_BINARY) + " " + arguments + " > " + (capture / "out").string() +
                              " 2> " + (capture / "err").string();
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(capture / "out");
  result.err = without_search_progress(without_sanitizer_notices(read_file(capture / "err")));
  std::filesystem::remove_all(capture);
  return result;
}

std::map<std::string, std::string> files_under(const std::filesystem::path& folder) {
  std::map<std::string, std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) out[std::filesystem::relative(entry.path(), folder).string()] = read_file(entry.path());
  }
  return out;
}

}  // namespace dtsim::testing
