// dtsim: the command line. The only place that chooses exit codes: 0 success, 2 bad input or usage,
// 1 internal failure.

#include "sim/app/document_commands.hpp"
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
  std::string point;
  CLI::App* run = app.add_subcommand("run", "simulate one scenario file (every point of its sweep) and write results");
  run->add_option("scenario", run_options.scenario_file, "scenario YAML file")->required();
  CLI::Option* output_option = run->add_option("-o,--output", output_folder, "result folder (default: out/<scenario name>)");
  CLI::Option* seed_option = run->add_option("--seed", seed, "random seed, overriding the scenario's");
  CLI::Option* point_option = run->add_option("--point", point, "run only this sweep point (as named by `explain`)");
  run->add_flag("-q,--quiet", run_options.quiet, "print nothing but errors");

  std::vector<std::filesystem::path> validate_files;
  CLI::App* validate = app.add_subcommand("validate", "check scenario files without simulating; prints ok or every error");
  validate->add_option("files", validate_files, "scenario YAML files")->required();

  std::filesystem::path explain_file;
  CLI::App* explain = app.add_subcommand("explain", "print a scenario as dtsim reads it: includes merged, defaults filled");
  explain->add_option("scenario", explain_file, "scenario YAML file")->required();

  std::string topic;
  CLI::App* list = app.add_subcommand("list", "list devices, topologies, collectives, sync strategies and models");
  list->add_option("topic", topic, "one of: devices, topologies, collectives, strategies, models")
      ->check(CLI::IsMember(dtsim::app::list_topics()));

  bool reference = false;
  CLI::App* schema = app.add_subcommand("schema", "print the JSON Schema of scenario files (for editors)");
  schema->add_flag("--reference", reference, "print the Markdown key reference instead");

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
      if (*point_option) run_options.point = point;
      dtsim::app::run_command(run_options, registries);
    } else if (validate->parsed()) {
      const auto result = dtsim::app::validate_command(validate_files, registries);
      fmt::print("{}", result.report);
      fmt::print(stderr, "{}", result.errors);
      return result.ok ? 0 : 2;
    } else if (explain->parsed()) {
      fmt::print("{}", dtsim::app::explain_command(explain_file, registries));
    } else if (schema->parsed()) {
      fmt::print("{}", dtsim::app::schema_command(reference));
    } else if (list->parsed()) {
      fmt::print("{}", dtsim::app::list_command(registries, topic));
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
