// dtsim: the command line. The only place that chooses exit codes: 0 success, 2 bad input or usage,
// 1 internal failure.

#include "analysis/run_columns.hpp"
#include "sim/app/calibrate_command.hpp"
#include "sim/app/chakra_export.hpp"
#include "sim/app/chakra_replay.hpp"
#include "sim/app/check_plugin_command.hpp"
#include "sim/app/collective_command.hpp"
#include "sim/app/compare_command.hpp"
#include "sim/app/document_commands.hpp"
#include "sim/app/interrupts.hpp"
#include "sim/app/list_command.hpp"
#include "sim/app/plan_command.hpp"
#include "sim/app/plugin_loader.hpp"
#include "sim/app/report_command.hpp"
#include "sim/app/run_command.hpp"
#include "sim/app/scale_command.hpp"
#include "sim/app/slurm_sweep.hpp"
#include "sim/checks/registries.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/name_match.hpp"
#include "sim/core/units.hpp"
#include "sim/core/version.hpp"
#include "sim/plan/plan_candidates.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace app = dtsim::app;
namespace checks = dtsim::checks;
namespace planner = dtsim::planner;
using Path = std::filesystem::path;

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

/// `value` with its thousands grouped ("65,536"), as the messages write counts.
std::string grouped(int value) {
  std::string digits = std::to_string(value);
  for (std::size_t end = digits.size(); end > 3; end -= 3) digits.insert(end - 3, ",");
  return digits;
}

/// A count from `least` to `most` in plain decimal digits, as `what` ("a device count") is given. CLI11 alone reads
/// C's base prefixes (0x10 as 16, 010 as 8) and calls 1e3 and abc "not in range"; a leading zero or sign is refused
/// for the same reason.
CLI::Validator count_check(const std::string& what, int least, int most) {
  return CLI::Validator(
      [what, least, most](const std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
                            (text.front() != '0' || text == "0");
        // Every bound here has 5 digits at most: a longer number is above it, and may not fit an int.
        if (digits && text.size() <= 5 && std::stoi(text) >= least && std::stoi(text) <= most) return {};
        return fmt::format("{} is a whole number from {} to {}, given in plain decimal digits, got '{}'", what,
                           grouped(least), grouped(most), text);
      },
      "N");
}

/// Options of the commands that look names up: plug-ins built outside dtsim (docs/course/plugins.md), and
/// --confine DIR, for scenarios written by someone else (a course grader, a notebook service): includes, data,
/// traces and plug-ins outside DIR are refused (README, "Running untrusted scenarios").
struct CommonOptions {
  std::vector<Path> plugins;
  Path confine_folder;
};

void add_confine_option(CLI::App* command, CommonOptions& common) {
  command->add_option("--confine", common.confine_folder,
                      "read no file outside this folder: includes, data, traces and plug-ins elsewhere are refused");
}

void add_plugin_option(CLI::App* command, CommonOptions& common) {
  command->add_option("--plugin", common.plugins, "load a plug-in (a shared library built with dtsim_add_plugin); repeatable");
  add_confine_option(command, common);
}

/// What a parsed command line gives every subcommand: the confinement folder, the plug-ins, and the
/// registries with the plug-ins loaded, built on first use (`check-plugin` loads its plug-in only in the
/// children it forks).
class Invocation {
 public:
  Invocation(std::optional<Path> confine, std::vector<Path> plugins)
      : confine_(std::move(confine)), plugins_(std::move(plugins)) {}
  [[nodiscard]] const std::optional<Path>& confine() const { return confine_; }
  [[nodiscard]] const std::vector<Path>& plugins() const { return plugins_; }
  checks::Registries& registries() {
    if (!registries_) {
      registries_ = std::make_unique<checks::Registries>(checks::make_builtin_registries());
      app::load_plugins(plugins_, *registries_, confine_);
    }
    return *registries_;
  }

 private:
  std::optional<Path> confine_;
  std::vector<Path> plugins_;
  std::unique_ptr<checks::Registries> registries_;
};

/// A subcommand: its CLI11 entry, and what it does once the line is parsed, returning the exit status. Its
/// options' values live in the state its action holds.
struct Subcommand {
  CLI::App* command = nullptr;
  std::function<int(Invocation&)> run;
};

/// `dtsim run`, and `dtsim sweep` (the same options: `run` for a scenario with a sweep).
Subcommand add_run(CLI::App& cli, CommonOptions& common, const std::string& name, const std::string& description,
                   bool sweep_only) {
  struct State {
    app::RunCommandOptions options;
    std::string output_folder;
    std::uint64_t seed = 0;
    std::string point;
    std::string sbatch;
    Path study_scenario;
    Path origin;
    CLI::Option* output = nullptr;
    CLI::Option* seed_given = nullptr;
    CLI::Option* point_given = nullptr;
    CLI::Option* study_scenario_given = nullptr;
    CLI::Option* origin_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(name, description);
  command->add_option("scenario", s->options.scenario_file, "scenario YAML file")->required();
  s->output = command->add_option("-o,--output", s->output_folder, "result folder (default: out/<scenario name>)");
  s->seed_given = command->add_option("--seed", s->seed, "random seed, overriding the scenario's (0 to 2^64-1)")
                      ->check(seed_check());
  s->point_given = command->add_option("--point", s->point, "run only this sweep point (as named by `explain`)");
  command->add_flag("-q,--quiet", s->options.quiet, "print nothing but errors");
  command->add_flag("--report", s->options.report, "also write report.html (as outputs.report: true)");
  command->add_flag("--force", s->options.force, "a sweep runs every point again, even those already done");
  command->add_option("-j,--jobs", s->options.jobs, "a sweep's points run at once (default: the cores)")
      ->check(CLI::Range(1, 1024));
  command->add_flag("--slurm", s->options.slurm,
                    "submit the sweep's points as a Slurm job array (sbatch --array), one task per point not done yet");
  command->add_flag("--every-rank", s->options.every_rank,
                    "network_model: analytical or closed_form: simulate every worker even where all behave alike "
                    "(the same results, slower)");
  command->add_option("--threads", s->options.threads,
                      "threads for the real math of the workers' gradients (default: the cores; 1: none besides the "
                      "simulation's); the results do not depend on it")
      ->check(CLI::Range(1, 1024));
  command->add_flag("--values-by-message", s->options.values_by_message,
                    "a model trained for real: send every value of its collectives by message instead of computing them "
                    "apart (the same results, slower)");
  add_plugin_option(command, common);
  command->add_option("--sbatch", s->sbatch, "with --slurm: options for sbatch, such as \"--partition=debug "
                                             "--time=00:30:00\"");
  // A study's points read its generated scenario from the sweep's staging folder (sweep_runner.cpp): dtsim tells
  // them the scenario the study was given, which the generated one includes, and the name the generated one will
  // have. Hidden from --help: dtsim passes them to itself.
  s->study_scenario_given =
      command->add_option("--study-scenario", s->study_scenario, "a study's scenario, read outside --confine")->group("");
  s->origin_given = command->add_option("--origin", s->origin, "the scenario's name in the results")->group("");
  return {command, [s, sweep_only](Invocation& at) {
            app::RunCommandOptions options = s->options;
            options.plugins = at.plugins();
            options.confine = at.confine();
            if (*s->output) options.output_folder = s->output_folder;
            if (*s->seed_given) options.seed = s->seed;
            if (*s->point_given) options.point = s->point;
            if (*s->study_scenario_given) options.study_scenario = s->study_scenario;
            if (*s->origin_given) options.origin_file = s->origin;
            options.sbatch_options = app::split_options(s->sbatch);
            if (!s->sbatch.empty() && !options.slurm) {
              fmt::print(stderr, "error: --sbatch: applies with --slurm\n  hint: add --slurm, or leave --sbatch out\n");
              return 2;
            }
            options.sweep_only = sweep_only;
            app::run_command(options, at.registries());
            return 0;
          }};
}

Subcommand add_validate(CLI::App& cli, CommonOptions& common) {
  struct State {
    std::vector<Path> files;
    bool json = false;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand("validate", "check scenario files without simulating; prints ok or every error");
  command->add_option("files", s->files, "scenario YAML files")->required();
  command->add_flag("--json", s->json,
                    "print every error as a JSON record (file, line, column, key, message, hint, included_from) on "
                    "stdout, in one array: [] when every file is valid");
  add_plugin_option(command, common);
  return {command, [s](Invocation& at) {
            const auto result = app::validate_command(s->files, at.registries(), at.confine());
            // With --json the records are the whole report: stdout holds nothing else, for a program to read.
            if (s->json) {
              fmt::print("{}", app::diagnostics_json(result.diagnostics));
            } else {
              fmt::print("{}", result.report);
              fmt::print(stderr, "{}", result.errors);
            }
            return result.ok ? 0 : 2;
          }};
}

Subcommand add_explain(CLI::App& cli, CommonOptions& common) {
  const auto file = std::make_shared<Path>();
  CLI::App* command = cli.add_subcommand("explain", "print a scenario as dtsim reads it: includes merged, defaults filled");
  command->add_option("scenario", *file, "scenario YAML file")->required();
  add_plugin_option(command, common);
  return {command, [file](Invocation& at) {
            fmt::print("{}", app::explain_command(*file, at.registries(), at.confine()));
            return 0;
          }};
}

Subcommand add_list(CLI::App& cli, CommonOptions& common) {
  const auto topic = std::make_shared<std::string>();
  CLI::App* command =
      cli.add_subcommand("list", "list devices, nodes, topologies, collectives, sync strategies, models and model profiles");
  command->add_option("topic", *topic, "one of: devices, nodes, topologies, collectives, strategies, optimizers, models, profiles, data")
      ->check(CLI::IsMember(app::list_topics()));
  add_plugin_option(command, common);
  return {command, [topic](Invocation& at) {
            fmt::print("{}", app::list_command(at.registries(), *topic));
            return 0;
          }};
}

/// The network models' names, for --network-model's help.
std::string network_model_names() {
  std::vector<std::string> names;
  for (const auto& model : dtsim::scenario::network_models()) names.emplace_back(model.name);
  return dtsim::core::join_names(names);
}

/// `dtsim collective`'s topology options (the keys of the topologies that have them).
void add_collective_topology_options(CLI::App* command, app::CollectiveOptions& options) {
  command->add_option("--topology", options.topology, "topology kind")->capture_default_str();
  command->add_flag("--unidirectional", options.unidirectional, "one-way links (topologies with a `bidirectional` key, such as ring)");
  command->add_option("--bandwidth", options.bandwidth, "link bandwidth")->capture_default_str();
  command->add_option("--latency", options.latency, "link latency")->capture_default_str();
  command->add_option("--arity", options.arity, "switch fan-out (topologies with an `arity` key, such as tree and fat_tree)")->capture_default_str();
  command->add_option("--k", options.k, "ports per switch (k_ary_fat_tree: k^3/4 ranks at most)")->capture_default_str();
  command->add_option("--oversubscription", options.oversubscription, "oversubscription (topologies with an `oversubscription` key)")
      ->capture_default_str();
  command->add_option("--degree", options.degree, "links per rank (topologies with a `degree` key, such as random_regular)");
  command->add_option("--dimensions", options.dimensions, "sizes such as 4x4 (topologies with a `dimensions` key, such as torus)");
}

Subcommand add_collective(CLI::App& cli, CommonOptions& common) {
  struct State {
    app::CollectiveOptions options;
    int ranks = 0;
    std::string scenario;
    std::string library;
    std::string network_model;
    std::string point;
    bool round_by_round = false;
    CLI::Option* ranks_given = nullptr;
    CLI::Option* network_model_given = nullptr;
    CLI::Option* point_given = nullptr;
    CLI::Option* scenario_given = nullptr;
    CLI::Option* library_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand("collective", "time a collective on a topology over a range of sizes");
  command->add_option("--op", s->options.operation, "allreduce, reduce_scatter, allgather, broadcast, reduce or all_to_all")->capture_default_str();
  command->add_option("--algo", s->options.algorithm, "algorithm, or all")->capture_default_str();
  s->ranks_given = command->add_option("--ranks", s->ranks, "ranks (default: the scenario's workers, else 8)");
  command->add_option("--sizes", s->options.sizes, "SIZE or FROM:TO[:FACTOR], such as 1GiB or 1KiB:256MiB")->capture_default_str();
  s->scenario_given = command->add_option("--scenario", s->scenario, "take the topology and network model from this scenario");
  s->point_given = command->add_option("--point", s->point, "with --scenario: this sweep point (as named by `explain`)");
  add_collective_topology_options(command, s->options);
  s->network_model_given = command->add_option("--network-model", s->network_model,
                                                network_model_names() + " (default: the scenario's, else alpha_beta)");
  command->add_flag("--round-by-round", s->round_by_round,
                    "simulate every round of ring phases instead of one transfer per phase (same times, slower)");
  command->add_option("--repeat", s->options.repeat, "run each case N times in a row; rows give the mean")
      ->capture_default_str();
  command->add_flag("--json", s->options.json, "print the rows as JSON");
  add_plugin_option(command, common);
  s->library_given = command->add_option(
      "--library", s->library, "none or nccl: NCCL's launch, step and protocol costs on top (default: the scenario's, else none)");
  return {command, [s, command](Invocation& at) {
            app::CollectiveOptions options = s->options;
            if (*s->ranks_given) options.ranks = s->ranks;
            if (*s->network_model_given) options.network_model = s->network_model;
            if (*s->point_given) options.point = s->point;
            for (const char* name : {"--topology", "--unidirectional", "--bandwidth", "--latency", "--arity", "--k",
                                     "--oversubscription", "--degree", "--dimensions"}) {
              if (command->get_option(name)->count() > 0) options.topology_options_given.emplace_back(name);
            }
            if (*s->scenario_given) options.scenario = s->scenario;
            if (*s->library_given) options.library = s->library;
            options.phase_shortcut = !s->round_by_round;
            fmt::print("{}", app::collective_command(options, at.registries()));
            return 0;
          }};
}

Subcommand add_compare(CLI::App& cli) {
  struct State {
    std::vector<Path> folders;
    bool csv = false;
    std::vector<std::string> columns;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(
      "compare", "finished runs side by side: time to target loss, final loss, staleness, waiting, bytes");
  command->add_option("folders", s->folders, "result folders written by `dtsim run` (none with --columns help)");
  command->add_flag("--csv", s->csv, "print CSV instead of a table");
  command->add_option("--columns", s->columns, "the columns to show, such as layout,iteration_s,tokens_per_s,mfu,peak_memory "
                                               "(`--columns help` lists them)")
      ->delimiter(',')
      ->allow_extra_args(false);
  return {command, [s](Invocation& at) {
            if (s->columns.size() == 1 && s->columns.front() == "help") {
              fmt::print("{}", dtsim::analysis::columns_help());
              return 0;
            }
            if (s->folders.empty()) {
              throw dtsim::core::InputError(dtsim::core::Diagnostic{dtsim::core::SourcePosition("dtsim compare"), "folders",
                                                                    "no result folders given",
                                                                    "give the folders `dtsim run` wrote"});
            }
            fmt::print("{}", app::compare_command(s->folders, s->csv, s->columns, at.registries()));
            return 0;
          }};
}

Subcommand add_report(CLI::App& cli) {
  struct State {
    std::vector<Path> folders;
    Path output;
    CLI::Option* output_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(
      "report", "report.html of finished runs: one run, a sweep's folder, or several runs on shared axes");
  command->add_option("folders", s->folders, "result folders written by `dtsim run`")->required();
  s->output_given = command->add_option("-o,--output", s->output, "the file to write (default: DIR/report.html for one folder, "
                                                                  "./report.html for several)");
  return {command, [s](Invocation& at) {
            const Path written = app::report_command(s->folders, *s->output_given ? std::optional(s->output) : std::nullopt,
                                                     at.registries());
            fmt::print("wrote {}\n", written.string());
            return 0;
          }};
}

/// A size with its unit ("70GiB"), as the scenario language writes sizes.
CLI::Validator size_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        try {
          if (dtsim::core::parse_size(text).value() <= 0.0) return "a memory size above zero, such as 70GiB";
        } catch (const std::exception& error) {
          return std::string(error.what()) + " (a size such as 70GiB)";
        }
        return {};
      },
      "SIZE");
}

/// The names `table` gives its values, for CLI11's IsMember.
template <typename Enum>
std::vector<std::string> names_of(const std::vector<dtsim::scenario::NamedValue<Enum>>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.emplace_back(entry.name);
  return out;
}

/// The options that fix a plan's choices (`--tensor 8 --zero 1 ...`) and cap its memory, shared by `dtsim plan`
/// and `dtsim scale --plan`; given() gives what was given.
struct PlanSpaceFlags {
  std::string max_memory;
  std::string recomputation;
  std::string schedule;
  std::map<std::string, int> fixed;
  bool keep_placement = false;

  /// Adds the options to `command`; returns them.
  std::vector<CLI::Option*> add_to(CLI::App* command) {
    std::vector<CLI::Option*> out;
    out.push_back(command->add_flag("--keep-placement", keep_placement,
                                    "keep the scenario's placement order instead of trying every order of the degrees"));
    out.push_back(command->add_option("--max-memory", max_memory, "the memory a device may use, below its capacity (such as 70GiB)")
                      ->check(size_check()));
    // A flag for each degree the planner tries, in its order (the data degree is what the others leave).
    for (const dtsim::scenario::ParallelAxis axis : dtsim::scenario::listing_order()) {
      const dtsim::scenario::AxisEntry& entry = dtsim::scenario::axis_entry(axis);
      if (entry.tries == nullptr) continue;
      std::string words(entry.name);
      std::replace(words.begin(), words.end(), '_', ' ');
      const bool vowel = std::string_view("aeiou").find(words.front()) != std::string_view::npos;
      const std::string what = (vowel ? "an " : "a ") + words + " degree";
      int& value = fixed[std::string(entry.name)];
      out.push_back(command->add_option(planner::degree_flag(axis), value, "fix the " + words + " degree")
                        ->check(count_check(what, 1, 65536)));
    }
    out.push_back(command->add_option("--microbatches", fixed["microbatches"], "fix the microbatches count")
                      ->check(count_check("a micro-batch count", 1, 65536)));
    out.push_back(
        command->add_option("--zero", fixed["zero"], "fix the zero stage")->check(count_check("a ZeRO stage", 0, 3)));
    out.push_back(command->add_option("--recomputation", recomputation, "fix the recomputation")
                      ->check(CLI::IsMember(names_of(dtsim::scenario::recomputations()))));
    out.push_back(command->add_option("--schedule", schedule, "fix the pipeline schedule")
                      ->check(CLI::IsMember(names_of(dtsim::scenario::pipeline_schedules()))));
    return out;
  }

  /// What the flags given on `command` fix, for app::plan_space and app::memory_cap (which the command line and
  /// Python share).
  [[nodiscard]] app::PlanSpaceArguments given(const CLI::App* command) const {
    const auto given_count = [&](const std::string& flag, const std::string& key) -> std::optional<int> {
      return command->count(flag) > 0 ? std::optional<int>(fixed.at(key)) : std::nullopt;
    };
    const auto text = [](const std::string& value) {
      return value.empty() ? std::nullopt : std::optional<std::string>(value);
    };
    app::PlanSpaceArguments out;
    for (const dtsim::scenario::ParallelAxis axis : dtsim::scenario::listing_order()) {
      const std::string name(dtsim::scenario::axis_entry(axis).name);
      if (fixed.contains(name) && command->count(planner::degree_flag(axis)) > 0) out.degrees[name] = fixed.at(name);
    }
    out.microbatches = given_count("--microbatches", "microbatches");
    out.zero = given_count("--zero", "zero");
    out.recomputation = text(recomputation);
    out.schedule = text(schedule);
    out.keep_placement = keep_placement;
    out.max_memory = text(max_memory);
    return out;
  }
};

Subcommand add_scale(CLI::App& cli, CommonOptions& common) {
  struct State {
    app::ScaleOptions options;
    PlanSpaceFlags plan;
    Path output;
    std::uint64_t seed = 0;
    CLI::Option* output_given = nullptr;
    CLI::Option* seed_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(
      "scale", "a weak and strong scaling study: the scenario over worker counts, with speedup, efficiency and fits");
  command->add_option("scenario", s->options.scenario_file, "scenario YAML file")->required();
  command->add_option("--workers", s->options.workers, "worker counts, such as 1,2,4,8")
      ->required()
      ->delimiter(',')
      ->check(count_check("a worker count", 1, 65536));
  command->add_option("--mode", s->options.mode, "weak (each worker keeps its batch), strong (the global batch "
                                                 "stays) or both")
      ->check(CLI::IsMember({"weak", "strong", "both"}))
      ->capture_default_str();
  CLI::Option* plan = command->add_flag("--plan", s->options.plan, "split each worker count as `dtsim plan` ranks best by "
                                                                    "its estimate (weak scaling then keeps the batch per device)");
  for (CLI::Option* fixing : s->plan.add_to(command)) fixing->needs(plan);
  s->output_given = command->add_option("-o,--output", s->output, "result folder (default: out/<scenario name>-scaling)");
  s->seed_given = command->add_option("--seed", s->seed, "random seed, overriding the scenario's")->check(seed_check());
  command->add_option("-j,--jobs", s->options.jobs, "points run at once (default: the cores)")->check(CLI::Range(1, 1024));
  command->add_flag("--force", s->options.force, "run every point again, even those already done");
  command->add_flag("-q,--quiet", s->options.quiet, "print nothing but errors");
  add_plugin_option(command, common);
  return {command, [s, command](Invocation& at) {
            app::ScaleOptions options = s->options;
            const app::PlanSpaceArguments fixed = s->plan.given(command);
            options.space = app::plan_space(fixed, "dtsim scale");
            options.max_memory_bytes = app::memory_cap(fixed, "dtsim scale");
            options.plugins = at.plugins();
            options.confine = at.confine();
            if (*s->output_given) options.output_folder = s->output;
            if (*s->seed_given) options.seed = s->seed;
            app::scale_command(options, at.registries());
            return 0;
          }};
}

Subcommand add_plan(CLI::App& cli, CommonOptions& common) {
  struct State {
    app::PlanOptions options;
    PlanSpaceFlags plan;
    Path output;
    std::uint64_t seed = 0;
    CLI::Option* output_given = nullptr;
    CLI::Option* seed_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(
      "plan", "the best ways to split a model over N devices: screened by memory, ranked by an estimate, the best simulated");
  command->add_option("scenario", s->options.scenario_file, "scenario YAML file (a profile model)")->required();
  command->add_option("--gpus", s->options.devices, "device counts, such as 256,512,1024")
      ->required()
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(count_check("a device count", 1, 65536));
  command->add_option("--top", s->options.top, "candidates simulated per device count")->check(CLI::Range(1, 1000))->capture_default_str();
  command->add_option("--objective", s->options.objective, "what the best plan maximizes: tokens_per_s, or minimizes: cost, energy (per token)")
      ->check(CLI::IsMember({"tokens_per_s", "cost", "energy"}))
      ->capture_default_str();
  static_cast<void>(s->plan.add_to(command));
  s->output_given = command->add_option("-o,--output", s->output, "result folder (default: out/<scenario name>-plan)");
  s->seed_given = command->add_option("--seed", s->seed, "random seed, overriding the scenario's")->check(seed_check());
  command->add_option("-j,--jobs", s->options.jobs, "simulations at once (default: the cores)")->check(CLI::Range(1, 1024));
  command->add_flag("--force", s->options.force, "simulate every plan again, even those already done");
  command->add_flag("-q,--quiet", s->options.quiet, "print nothing but errors");
  add_plugin_option(command, common);
  return {command, [s, command](Invocation& at) {
            app::PlanOptions options = s->options;
            options.plugins = at.plugins();
            options.confine = at.confine();
            if (*s->output_given) options.output_folder = s->output;
            if (*s->seed_given) options.seed = s->seed;
            const app::PlanSpaceArguments fixed = s->plan.given(command);
            options.max_memory_bytes = app::memory_cap(fixed, "dtsim plan");
            options.space = app::plan_space(fixed, "dtsim plan");
            app::plan_command(options, at.registries());
            return 0;
          }};
}

Subcommand add_calibrate(CLI::App& cli) {
  struct State {
    app::CalibrateOptions options;
    Path output;
    std::string scenario;
    CLI::Option* output_given = nullptr;
    CLI::Option* scenario_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(
      "calibrate", "fit devices' sustained efficiencies and links' figures to measured iteration or collective times "
                   "and write a catalog; without --fit, compare predictions with the measurements (exit 1 when a row "
                   "is over its bound)");
  command
      ->add_option("measurements", s->options.measurements,
                   "CSV with columns scenario (a YAML file, relative to the CSV), iteration_s (measured) and, "
                   "optionally, bound_percent; or a CSV with scenario,operation,size_B,busbw_GBps (or time_us); "
                   "or the output of an nccl-tests program (with --scenario); or a PyTorch profiler trace of a few "
                   "steps on one GPU, plain or gzipped (with --scenario: its model)")
      ->required();
  s->scenario_given = command->add_option("--scenario", s->scenario,
                                          "the cluster nccl-tests output was measured on, or the traced model "
                                          "on the traced device (a scenario file)");
  command
      ->add_option("--step-marker", s->options.step_marker,
                   "a profiler trace's step annotations: the host annotations whose names begin with this")
      ->capture_default_str();
  command->add_option("--fit", s->options.fit,
                      "DEVICE.CLASS (such as a100.convolution), DEVICE, NODE_TYPE.intra_link.bandwidth, "
                      "NODE_TYPE.intra_link.latency, link.bandwidth or link.latency; repeatable");
  s->output_given = command->add_option(
      "-o,--output", s->output, "the catalog file to write (YAML a scenario includes); never one of the inputs");
  return {command, [s](Invocation& at) {
            app::CalibrateOptions options = s->options;
            if (*s->output_given) options.output = s->output;
            if (*s->scenario_given) options.scenario = s->scenario;
            int over_bound = 0;
            fmt::print("{}", app::calibrate_command(options, at.registries(), &over_bound));
            return over_bound > 0 ? 1 : 0;
          }};
}

Subcommand add_chakra(CLI::App& cli) {
  struct State {
    app::ChakraExportOptions options;
    std::filesystem::path replay;
    CLI::Option* output_given = nullptr;
    CLI::Option* replay_given = nullptr;
  };
  const auto s = std::make_shared<State>();
  CLI::App* command = cli.add_subcommand(
      "chakra", "write the work each rank of a timing-only data-parallel scenario does in an iteration as MLCommons "
                "Chakra execution traces (PREFIX.RANK.et, as ASTRA-sim reads them), or replay such a trace on the "
                "scenario's cluster");
  command->add_option("scenario", s->options.scenario, "the scenario file")->required();
  s->output_given = command->add_option("-o,--output", s->options.prefix, "write the traces: PREFIX of the rank files (folders are made)");
  s->replay_given = command->add_option("--replay", s->replay, "replay the traces PREFIX (rank 0's file) on the scenario's cluster");
  s->output_given->excludes(s->replay_given);
  return {command, [s](Invocation& at) {
            if (*s->replay_given) {
              fmt::print("{}", app::chakra_replay_command({s->replay, s->options.scenario}, at.registries()));
              return 0;
            }
            if (!*s->output_given) throw CLI::RequiredError("-o,--output or --replay");
            fmt::print("{}", app::chakra_export_command(s->options, at.registries()));
            return 0;
          }};
}

Subcommand add_check_plugin(CLI::App& cli, CommonOptions& common) {
  const auto options = std::make_shared<app::CheckPluginOptions>();
  CLI::App* command = cli.add_subcommand(
      "check-plugin", "run the collective property tests on a plug-in's algorithms and a training run of its sync "
                      "strategies, each case in a process of its own; exit 1 when a check fails");
  command->add_option("plugin", options->plugin, "the plug-in's shared library")->required();
  add_confine_option(command, common);
  command->add_option("--timeout", options->timeout_s, "seconds one case may take before it is "
                                                       "stopped as a hang")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  return {command, [options](Invocation& at) {
            app::check_confined(options->plugin, at.confine());
            // Before the registries: its children are forks, and the plug-in is loaded only in them.
            const app::CheckPluginReport graded = app::check_plugin_command(*options);
            if (!graded.refused.empty()) {
              fmt::print(stderr, "{}\n", graded.refused);
              return 2;
            }
            fmt::print("{}", graded.text);
            return graded.passed == graded.checks ? 0 : 1;
          }};
}

Subcommand add_schema(CLI::App& cli) {
  const auto reference = std::make_shared<bool>(false);
  CLI::App* command = cli.add_subcommand("schema", "print the JSON Schema of scenario files (for editors)");
  command->add_flag("--reference", *reference, "print the Markdown key reference instead");
  return {command, [reference](Invocation& at) {
            fmt::print("{}", app::schema_command(*reference, at.registries()));
            return 0;
          }};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"dtsim: simulate distributed machine-learning training on a modelled cluster"};
  cli.set_version_flag("--version", std::string(dtsim::core::kDtsimVersion));
  cli.require_subcommand(1);
  CommonOptions common;
  // In the order `dtsim --help` lists them.
  const std::vector<Subcommand> subcommands{
      add_run(cli, common, "run", "simulate one scenario file (every point of its sweep) and write results", false),
      add_run(cli, common, "sweep", "run every point of a scenario's sweep: here (-j), or on a Slurm cluster (--slurm)",
              true),
      add_validate(cli, common),
      add_explain(cli, common),
      add_list(cli, common),
      add_collective(cli, common),
      add_compare(cli),
      add_report(cli),
      add_scale(cli, common),
      add_plan(cli, common),
      add_calibrate(cli),
      add_chakra(cli),
      add_check_plugin(cli, common),
      add_schema(cli)};
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return cli.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return cli.exit(version);
  } catch (const CLI::ParseError& usage) {
    cli.exit(usage);
    return 2;
  }

  app::exit_on_interrupt();
  try {
    std::optional<Path> confine;
    if (!common.confine_folder.empty()) confine = checks::confinement_folder(common.confine_folder);
    Invocation invocation(std::move(confine), common.plugins);
    for (const Subcommand& subcommand : subcommands) {
      if (subcommand.command->parsed()) return subcommand.run(invocation);
    }
    return 0;
  } catch (const app::Interrupted& interrupted) {
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
