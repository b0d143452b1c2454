#pragma once
// `dtsim check-plugin lib.so`: the property tests dtsim's own collective algorithms pass, run on a plug-in's
// (sim/app/plugin_api.hpp), and training runs of its sync strategies, each case in a process of its own under a
// time limit, so that a plug-in that crashes or hangs is reported as such. The report is what a lecturer grades
// from.

#include <filesystem>
#include <string>

namespace dtsim::app {

struct CheckPluginOptions {
  std::filesystem::path plugin;
  double timeout_s = 60.0;  ///< wall-clock limit of one case
};

struct CheckPluginReport {
  std::string text;
  int checks = 0;
  int passed = 0;
  std::string refused;  ///< why the file is not a plug-in dtsim can load (exit status 2); empty when checked
};

/// Loads the plug-in (in a child process) and checks every collective algorithm it registers: the values
/// every rank ends with, the simulated time against its declared closed form on the topology it names, and that
/// two runs agree bit for bit; and every sync strategy: a small training run with its example as training.sync
/// learns, and two runs write the same files. A file that is not a plug-in dtsim can load is `refused`, with
/// the reason.
CheckPluginReport check_plugin_command(const CheckPluginOptions& options);

}  // namespace dtsim::app
