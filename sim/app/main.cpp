// dtsim: the command line. The only place that chooses exit codes: 0 success, 2 bad input or usage,
// 1 internal failure.

#include "sim/app/calibrate_command.hpp"
#include "sim/app/check_plugin_command.hpp"
#include "sim/app/collective_command.hpp"
#include "sim/app/compare_command.hpp"
#include "sim/app/document_commands.hpp"
#include "sim/app/interrupts.hpp"
#include "sim/app/list_command.hpp"
#include "sim/app/plugin_loader.hpp"
#include "sim/app/registries.hpp"
#include "sim/app/report_command.hpp"
#include "sim/app/scale_command.hpp"
#include "sim/app/slurm_sweep.hpp"
#include "sim/app/run_command.hpp"
#include "sim/app/scenario_data.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>

namespace {

/// A whole number from 0 to 2^64-1, written as such: CLI11 alone would wrap -1 and saturate larger values.
CLI::Validator seed_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "a seed is a whole number from 0 to 18446744073709551615, got '" + text + "'";
        }
        if (text.size() > 20 || (text.size() == 20 && text > "18446744073709551615")) {
          return "a seed is at most 18446744073709551615 (2^64-1), got " + text;
        }
        return {};
      },
      "SEED");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dtsim: simulate distributed machine-learning training on a modelled cluster"};
  app.set_version_flag("--version", std::string(dtsim::core::kDtsimVersion));
  app.require_subcommand(1);

  dtsim::app::RunCommandOptions run_options;
  // Plug-ins built outside dtsim (docs/course/plugins.md), for every command that looks names up.
  std::vector<std::filesystem::path> plugins;
  // --confine DIR: for scenarios written by someone else (a course grader, a notebook service), includes,
  // data, traces and plug-ins outside DIR are refused (README, "Running untrusted scenarios").
  std::filesystem::path confine_folder;
  const auto add_confine_option = [&confine_folder](CLI::App* command) {
    command->add_option("--confine", confine_folder,
                        "read no file outside this folder: includes, data, traces and plug-ins elsewhere are refused");
  };
  const auto add_plugin_option = [&plugins, &add_confine_option](CLI::App* command) {
    command->add_option("--plugin", plugins, "load a plug-in (a shared library built with dtsim_add_plugin); repeatable");
    add_confine_option(command);
  };
  std::string output_folder;
  std::uint64_t seed = 0;
  std::string point;
  std::string sbatch_options;
  // `dtsim sweep` is `dtsim run` for a scenario with a sweep: the same options, bound to the same variables
  // (one subcommand is parsed).
  struct RunFlags {
    CLI::Option* output = nullptr;
    CLI::Option* seed = nullptr;
    CLI::Option* point = nullptr;
  };
  const auto add_run_options = [&](CLI::App* command) {
    RunFlags flags;
    command->add_option("scenario", run_options.scenario_file, "scenario YAML file")->required();
    flags.output = command->add_option("-o,--output", output_folder, "result folder (default: out/<scenario name>)");
    flags.seed = command->add_option("--seed", seed, "random seed, overriding the scenario's (0 to 2^64-1)")
                     ->check(seed_check());
    flags.point = command->add_option("--point", point, "run only this sweep point (as named by `explain`)");
    command->add_flag("-q,--quiet", run_options.quiet, "print nothing but errors");
    command->add_flag("--report", run_options.report, "also write report.html (as outputs.report: true)");
    command->add_flag("--force", run_options.force, "a sweep runs every point again, even those already done");
    command->add_option("-j,--jobs", run_options.jobs, "a sweep's points run at once (default: the cores)")
        ->check(CLI::Range(1, 1024));
    command->add_flag("--slurm", run_options.slurm,
                      "submit the sweep's points as a Slurm job array (sbatch --array), one task per point not done yet");
    command->add_flag("--every-rank", run_options.every_rank,
                      "network_model: analytical: simulate every worker even where all behave alike (the same "
                      "results, slower)");
    add_plugin_option(command);
    command->add_option("--sbatch", sbatch_options, "with --slurm: options for sbatch, such as \"--partition=debug "
                                                    "--time=00:30:00\"");
    return flags;
  };
  CLI::App* run = app.add_subcommand("run", "simulate one scenario file (every point of its sweep) and write results");
  const RunFlags run_flags = add_run_options(run);
  CLI::App* sweep = app.add_subcommand(
      "sweep", "run every point of a scenario's sweep: here (-j), or on a Slurm cluster (--slurm)");
  const RunFlags sweep_flags = add_run_options(sweep);

  std::vector<std::filesystem::path> validate_files;
  CLI::App* validate = app.add_subcommand("validate", "check scenario files without simulating; prints ok or every error");
  validate->add_option("files", validate_files, "scenario YAML files")->required();
  add_plugin_option(validate);

  std::filesystem::path explain_file;
  CLI::App* explain = app.add_subcommand("explain", "print a scenario as dtsim reads it: includes merged, defaults filled");
  explain->add_option("scenario", explain_file, "scenario YAML file")->required();
  add_plugin_option(explain);

  std::string topic;
  CLI::App* list = app.add_subcommand("list", "list devices, nodes, topologies, collectives, sync strategies, models and model profiles");
  list->add_option("topic", topic, "one of: devices, nodes, topologies, collectives, strategies, optimizers, models, profiles, data")
      ->check(CLI::IsMember(dtsim::app::list_topics()));
  add_plugin_option(list);

  dtsim::app::CollectiveOptions collective_options;
  int collective_ranks = 0;
  std::string scenario_for_collective;
  CLI::App* collective = app.add_subcommand("collective", "time a collective on a topology over a range of sizes");
  collective->add_option("--op", collective_options.operation, "allreduce, reduce_scatter, allgather, broadcast or reduce")->capture_default_str();
  collective->add_option("--algo", collective_options.algorithm, "algorithm, or all")->capture_default_str();
  CLI::Option* ranks_option = collective->add_option("--ranks", collective_ranks, "ranks (default: the scenario's workers, else 8)");
  collective->add_option("--sizes", collective_options.sizes, "SIZE or FROM:TO[:FACTOR], such as 1GiB or 1KiB:256MiB")->capture_default_str();
  CLI::Option* collective_scenario = collective->add_option("--scenario", scenario_for_collective,
                                                            "take the topology and network model from this scenario");
  collective->add_option("--topology", collective_options.topology, "topology kind")->capture_default_str();
  collective->add_flag("--unidirectional", collective_options.unidirectional, "one-way links (topologies with a `bidirectional` key, such as ring)");
  collective->add_option("--bandwidth", collective_options.bandwidth, "link bandwidth")->capture_default_str();
  collective->add_option("--latency", collective_options.latency, "link latency")->capture_default_str();
  collective->add_option("--arity", collective_options.arity, "switch fan-out (topologies with an `arity` key, such as tree and fat_tree)")->capture_default_str();
  collective->add_option("--k", collective_options.k, "ports per switch (k_ary_fat_tree: k^3/4 ranks at most)")
      ->capture_default_str();
  collective->add_option("--oversubscription", collective_options.oversubscription, "oversubscription (topologies with an `oversubscription` key)")
      ->capture_default_str();
  collective->add_option("--degree", collective_options.degree, "links per rank (topologies with a `degree` key, such as random_regular)");
  collective->add_option("--dimensions", collective_options.dimensions, "sizes such as 4x4 (topologies with a `dimensions` key, such as torus)");
  collective->add_option("--network-model", collective_options.network_model, "alpha_beta, tcp or analytical")->capture_default_str();
  bool round_by_round = false;
  collective->add_flag("--round-by-round", round_by_round,
                       "simulate every round of ring phases instead of one transfer per phase (same times, slower)");
  collective->add_option("--repeat", collective_options.repeat, "run each case N times in a row; rows give the mean")
      ->capture_default_str();
  collective->add_flag("--json", collective_options.json, "print the rows as JSON");
  add_plugin_option(collective);
  std::string collective_library;
  CLI::Option* library_option = collective->add_option(
      "--library", collective_library, "none or nccl: NCCL's launch, step and protocol costs on top (default: the scenario's, else none)");

  std::vector<std::filesystem::path> compare_folders;
  bool compare_csv = false;
  CLI::App* compare = app.add_subcommand(
      "compare", "finished runs side by side: time to target loss, final loss, staleness, waiting, bytes");
  compare->add_option("folders", compare_folders, "result folders written by `dtsim run`")->required();
  compare->add_flag("--csv", compare_csv, "print CSV instead of a table");

  std::vector<std::filesystem::path> report_folders;
  std::filesystem::path report_output;
  CLI::App* report = app.add_subcommand(
      "report", "report.html of finished runs: one run, a sweep's folder, or several runs on shared axes");
  report->add_option("folders", report_folders, "result folders written by `dtsim run`")->required();
  CLI::Option* report_output_option =
      report->add_option("-o,--output", report_output, "the file to write (default: DIR/report.html for one folder, "
                                                       "./report.html for several)");

  dtsim::app::ScaleOptions scale_options;
  std::filesystem::path scale_output;
  std::uint64_t scale_seed = 0;
  CLI::App* scale = app.add_subcommand(
      "scale", "a weak and strong scaling study: the scenario over worker counts, with speedup, efficiency and fits");
  scale->add_option("scenario", scale_options.scenario_file, "scenario YAML file")->required();
  scale->add_option("--workers", scale_options.workers, "worker counts, such as 1,2,4,8")
      ->required()
      ->delimiter(',')
      ->check(CLI::Range(1, 65536));
  scale->add_option("--mode", scale_options.mode, "weak (each worker keeps its batch), strong (the global batch "
                                                  "stays) or both")
      ->check(CLI::IsMember({"weak", "strong", "both"}))
      ->capture_default_str();
  CLI::Option* scale_output_option =
      scale->add_option("-o,--output", scale_output, "result folder (default: out/<scenario name>-scaling)");
  CLI::Option* scale_seed_option =
      scale->add_option("--seed", scale_seed, "random seed, overriding the scenario's")->check(seed_check());
  scale->add_option("-j,--jobs", scale_options.jobs, "points run at once (default: the cores)")->check(CLI::Range(1, 1024));
  scale->add_flag("--force", scale_options.force, "run every point again, even those already done");
  scale->add_flag("-q,--quiet", scale_options.quiet, "print nothing but errors");
  add_plugin_option(scale);

  dtsim::app::CalibrateOptions calibrate_options;
  std::filesystem::path calibrate_output;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "fit devices' sustained efficiencies and links' figures to measured iteration or collective times "
                   "and write a catalog; without --fit, compare predictions with the measurements (exit 1 when a row "
                   "is over its bound)");
  calibrate->add_option("measurements", calibrate_options.measurements,
                        "CSV with columns scenario (a YAML file, relative to the CSV), iteration_s (measured) and, "
                        "optionally, bound_percent; or a CSV with scenario,operation,size_B,busbw_GBps (or time_us); "
                        "or the output of an nccl-tests program (with --scenario)")
      ->required();
  std::string calibrate_scenario;
  CLI::Option* calibrate_scenario_option = calibrate->add_option(
      "--scenario", calibrate_scenario, "the cluster nccl-tests output was measured on (a scenario file)");
  calibrate->add_option("--fit", calibrate_options.fit,
                        "DEVICE.CLASS (such as a100.convolution), DEVICE, NODE_TYPE.intra_link.bandwidth, "
                        "NODE_TYPE.intra_link.latency, link.bandwidth or link.latency; repeatable");
  CLI::Option* calibrate_output_option =
      calibrate->add_option("-o,--output", calibrate_output, "the catalog file to write (YAML a scenario includes)");

  dtsim::app::CheckPluginOptions check_plugin_options;
  CLI::App* check_plugin = app.add_subcommand(
      "check-plugin", "run the collective property tests on a plug-in's algorithms and a training run of its sync "
                      "strategies, each case in a process of its own; exit 1 when a check fails");
  check_plugin->add_option("plugin", check_plugin_options.plugin, "the plug-in's shared library")->required();
  add_confine_option(check_plugin);
  check_plugin->add_option("--timeout", check_plugin_options.timeout_s, "seconds one case may take before it is "
                                                                        "stopped as a hang")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();

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

  dtsim::app::exit_on_interrupt();
  try {
    std::optional<std::filesystem::path> confine;
    if (!confine_folder.empty()) confine = dtsim::app::confinement_folder(confine_folder);
    if (check_plugin->parsed()) {
      dtsim::app::check_confined(check_plugin_options.plugin, confine);
      // Before anything else: its children are forks, and the plug-in is loaded only in them.
      const dtsim::app::CheckPluginReport graded = dtsim::app::check_plugin_command(check_plugin_options);
      if (!graded.refused.empty()) {
        fmt::print(stderr, "{}\n", graded.refused);
        return 2;
      }
      fmt::print("{}", graded.text);
      return graded.passed == graded.checks ? 0 : 1;
    }
    dtsim::app::Registries registries = dtsim::app::make_builtin_registries();
    dtsim::app::load_plugins(plugins, registries, confine);
    run_options.plugins = plugins;
    scale_options.plugins = plugins;
    run_options.confine = confine;
    scale_options.confine = confine;
    if (run->parsed() || sweep->parsed()) {
      const RunFlags& flags = run->parsed() ? run_flags : sweep_flags;
      if (*flags.output) run_options.output_folder = output_folder;
      if (*flags.seed) run_options.seed = seed;
      if (*flags.point) run_options.point = point;
      run_options.sbatch_options = dtsim::app::split_options(sbatch_options);
      if (!sbatch_options.empty() && !run_options.slurm) {
        fmt::print(stderr, "error: --sbatch: applies with --slurm\n  hint: add --slurm, or leave --sbatch out\n");
        return 2;
      }
      run_options.sweep_only = sweep->parsed();
      dtsim::app::run_command(run_options, registries);
    } else if (validate->parsed()) {
      const auto result = dtsim::app::validate_command(validate_files, registries, confine);
      fmt::print("{}", result.report);
      fmt::print(stderr, "{}", result.errors);
      return result.ok ? 0 : 2;
    } else if (explain->parsed()) {
      fmt::print("{}", dtsim::app::explain_command(explain_file, registries, confine));
    } else if (collective->parsed()) {
      if (*ranks_option) collective_options.ranks = collective_ranks;
      if (*collective_scenario) collective_options.scenario = scenario_for_collective;
      if (*library_option) collective_options.library = collective_library;
      collective_options.phase_shortcut = !round_by_round;
      fmt::print("{}", dtsim::app::collective_command(collective_options, registries));
    } else if (calibrate->parsed()) {
      if (*calibrate_output_option) calibrate_options.output = calibrate_output;
      if (*calibrate_scenario_option) calibrate_options.scenario = calibrate_scenario;
      int over_bound = 0;
      fmt::print("{}", dtsim::app::calibrate_command(calibrate_options, registries, &over_bound));
      if (over_bound > 0) return 1;
    } else if (compare->parsed()) {
      fmt::print("{}", dtsim::app::compare_command(compare_folders, compare_csv));
    } else if (scale->parsed()) {
      if (*scale_output_option) scale_options.output_folder = scale_output;
      if (*scale_seed_option) scale_options.seed = scale_seed;
      dtsim::app::scale_command(scale_options, registries);
    } else if (report->parsed()) {
      const std::filesystem::path written = dtsim::app::report_command(
          report_folders, *report_output_option ? std::optional(report_output) : std::nullopt);
      fmt::print("wrote {}\n", written.string());
    } else if (schema->parsed()) {
      fmt::print("{}", dtsim::app::schema_command(reference));
    } else if (list->parsed()) {
      fmt::print("{}", dtsim::app::list_command(registries, topic));
    }
    return 0;
  } catch (const dtsim::app::Interrupted& interrupted) {
    // The child that was running has said so already.
    return interrupted.exit_status();
  } catch (const dtsim::core::InputError& input_error) {
    fmt::print(stderr, "{}\n", input_error.what());
    return 2;
  } catch (const std::exception& failure) {
    fmt::print(stderr, "dtsim: internal error: {}\n", failure.what());
    return 1;
  }
}
