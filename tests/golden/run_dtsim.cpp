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
  result.err = read_file(capture / "err");
  std::filesystem::remove_all(capture);
  return result;
}

}  // namespace dtsim::testing
