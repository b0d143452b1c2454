// libFuzzer target: any bytes given to the scenario reader must end in a scenario or an InputError,
// never a crash, a hang, a leak or undefined behaviour. Successful reads are also written back out
// (explain) and read again, the round trip `dtsim explain` promises.

#include "sim/scenario/config_yaml.hpp"
#include "sim/scenario/resolved_json.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dtsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const scenario::LoadOptions no_files{.allow_includes = false, .confine = std::nullopt};
  scenario::ScenarioDocument document;
  try {
    document = scenario::read_scenario_document_text(dtsim::test::scenario_format(), text, "fuzz.yaml", no_files);
  } catch (const core::InputError& error) {
    // Every report names the file it is about.
    if (error.diagnostics().empty() || error.diagnostics().front().where.file.empty()) std::abort();
    return 0;
  }
  const std::string explained = scenario::to_yaml(document.resolved);
  try {
    const auto again = scenario::read_scenario_document_text(dtsim::test::scenario_format(), explained, "fuzz.yaml", no_files);
    if (again.points.size() != document.points.size()) std::abort();
    for (std::size_t i = 0; i < again.points.size(); ++i) {
      auto a = scenario::resolved_json(dtsim::test::scenario_format().schema(), again.points[i].resolved);
      auto b = scenario::resolved_json(dtsim::test::scenario_format().schema(), document.points[i].resolved);
      if (a != b) std::abort();
    }
  } catch (const core::InputError&) {
    std::abort();  // what explain prints must read back
  }
  return 0;
}
