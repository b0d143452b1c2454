// dtsim: the command line. The only place that chooses exit codes: 0 success, 2 bad input or usage,
// 1 internal failure.

#include "sim/app/list_command.hpp"
#include "sim/app/registries.hpp"
#include "sim/app/run_command.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"dtsim: simulate distributed machine-learning training on a modelled cluster"};
  app.set_version_flag("--version", std::string(dtsim::core::kDtsimVersion));
  app.require_subcommand(1);

  dtsim::app::RunCommandOptions run_options;
  std::string output_folder;
  std::uint64_t seed = 0;
  CLI::App* run = app.add_subcommand("run", "simulate one scenario file and write its results");
  run->add_option("scenario", run_options.scenario_file, "scenario YAML file")->required();
  CLI::Option* output_option = run->add_option("-o,--output", output_folder, "result folder (default: out/<scenario name>)");
  CLI::Option* seed_option = run->add_option("--seed", seed, "random seed, overriding the scenario's");
  run->add_flag("-q,--quiet", run_options.quiet, "print nothing but errors");

  app.add_subcommand("list", "list the topologies, models and sync strategies this dtsim knows");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& usage) {
    app.exit(usage);
    return 2;
  }

  try {
    const dtsim::app::Registries registries = dtsim::app::make_builtin_registries();
    if (run->parsed()) {
      if (*output_option) run_options.output_folder = output_folder;
      if (*seed_option) run_options.seed = seed;
      dtsim::app::run_command(run_options, registries);
    } else {
      fmt::print("{}", dtsim::app::list_command(registries));
    }
    return 0;
  } catch (const dtsim::core::InputError& input_error) {
    fmt::print(stderr, "{}\n", input_error.what());
    return 2;
  } catch (const std::exception& failure) {
    fmt::print(stderr, "dtsim: internal error: {}\n", failure.what());
    return 1;
  }
}
