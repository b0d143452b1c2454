#include "sim/app/check_plugin_command.hpp"

#include "sim/app/isolated_call.hpp"
#include "sim/app/plugin_loader.hpp"
#include "sim/app/strategy_training_check.hpp"
#include "sim/comm/all_to_all.hpp"
#include "sim/core/rng.hpp"
#include "sim/runtime/network/collective_run.hpp"
#include "topologies/mesh.hpp"
#include "topologies/ring.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>

namespace dtsim::app {
namespace {

const topologies::LinkSpec kLink{core::BytesPerSecond(1.25e9), core::Seconds(5e-6)};  // 10 Gb/s, 5 us

/// A plug-in's collective algorithm, as "operation/name".
struct Entry {
  comm::Operation operation = comm::Operation::allreduce;
  std::string name;
  [[nodiscard]] std::string qualified() const { return fmt::format("{}/{}", comm::to_string(operation), name); }
};

/// The registries with the plug-in loaded: only ever called in a child process.
checks::Registries loaded(const std::filesystem::path& plugin) {
  checks::Registries registries = checks::make_builtin_registries();
  load_plugins({plugin}, registries);
  return registries;
}

std::unique_ptr<comm::CollectiveAlgorithm> make(const std::filesystem::path& plugin, const Entry& entry) {
  return loaded(plugin).collectives.of(entry.operation).find(entry.name).factory.make();
}

/// The inputs the property tests use: whole numbers, so that every order of adding gives the same bits.
std::vector<std::vector<float>> whole_number_inputs(int ranks, std::size_t elements) {
  std::vector<std::vector<float>> inputs(static_cast<std::size_t>(ranks), std::vector<float>(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i) inputs[static_cast<std::size_t>(r)][i] = static_cast<float>(r + 1 + i % 7);
  }
  return inputs;
}

/// The first element a rank ends with that the operation does not define so, or "" when all are right.
std::string wrong_values(comm::Operation operation, const std::vector<std::vector<float>>& inputs,
                         const std::vector<std::vector<float>>& results) {
  const int ranks = static_cast<int>(inputs.size());
  const std::size_t elements = inputs.front().size();
  const auto sum = [&](std::size_t i) {
    double total = 0.0;
    for (const auto& input : inputs) total += input[i];
    return static_cast<float>(total);
  };
  for (int r = 0; r < ranks; ++r) {
    const auto& got = results[static_cast<std::size_t>(r)];
    if (got.size() != elements) return fmt::format("rank {} ends with {} elements, not {}", r, got.size(), elements);
    const comm::ChunkBounds own = comm::chunk_bounds(elements, ranks, r);
    for (std::size_t i = 0; i < elements; ++i) {
      std::optional<float> expected;
      switch (operation) {
        case comm::Operation::allreduce: expected = sum(i); break;
        case comm::Operation::reduce_scatter:
          if (i >= own.begin && i < own.end) expected = sum(i);
          break;
        case comm::Operation::allgather:
          for (int owner = 0; owner < ranks; ++owner) {
            const comm::ChunkBounds chunk = comm::chunk_bounds(elements, ranks, owner);
            if (i >= chunk.begin && i < chunk.end) expected = inputs[static_cast<std::size_t>(owner)][i];
          }
          break;
        case comm::Operation::broadcast: expected = inputs.front()[i]; break;
        case comm::Operation::reduce:
          if (r == 0) expected = sum(i);
          break;
        case comm::Operation::all_to_all: {
          // Piece j of rank r is piece r of rank j; what follows the last piece stays.
          const std::size_t piece = comm::all_to_all_piece(elements, ranks);
          const std::size_t from = piece == 0 ? static_cast<std::size_t>(ranks) : i / piece;
          expected = std::cmp_less(from, ranks) ? inputs[from][static_cast<std::size_t>(r) * piece + i % piece]
                                                : inputs[static_cast<std::size_t>(r)][i];
          break;
        }
      }
      if (expected && got[i] != *expected) {
        return fmt::format("rank {} element {} is {:g}, expected {:g}", r, i, got[i], *expected);
      }
    }
  }
  return "";
}

topology::TopologyGraph uncontended(const std::string& kind, int ranks) {
  return kind == "ring" ? topologies::build_ring(ranks, kLink) : topologies::build_mesh(ranks, kLink);
}

std::string bytes_text(double bytes) {
  return bytes >= 1048576.0 ? fmt::format("{:g} MiB", bytes / 1048576.0) : fmt::format("{:g} KiB", bytes / 1024.0);
}

/// One case of the values check, run in a child: "" when right.
std::string values_case(const std::filesystem::path& plugin, const Entry& entry, int ranks, std::size_t elements) {
  const auto algorithm = make(plugin, entry);
  const auto inputs = whole_number_inputs(ranks, elements);
  const std::string topology = algorithm->uncontended_on() == "ring" ? "ring" : "mesh";
  const runtime::CollectiveOutcome outcome =
      runtime::simulate_collective(uncontended(topology, ranks), scenario::NetworkModel::AlphaBeta, *algorithm, inputs);
  return wrong_values(entry.operation, inputs, outcome.results);
}

/// One rank count of the closed-form check, run in a child: "" when every size is within 0.1%.
std::string closed_form_case(const std::filesystem::path& plugin, const Entry& entry, int ranks) {
  const auto algorithm = make(plugin, entry);
  const std::string kind = algorithm->uncontended_on();
  if (kind != "ring" && kind != "mesh") {
    return fmt::format("uncontended_on() says '{}': it must be \"ring\" or \"mesh\"", kind);
  }
  std::vector<runtime::CollectiveCase> cases;
  for (double size = 1024.0; size <= 33554432.0; size *= 8.0) cases.push_back({algorithm.get(), static_cast<std::size_t>(size / 4), false});
  const std::vector<double> times =
      runtime::time_collective_cases(uncontended(kind, ranks), scenario::NetworkModel::AlphaBeta, cases);
  const comm::AlphaBeta cost{kLink.latency, kLink.bandwidth};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double size = 4.0 * static_cast<double>(cases[i].elements);
    const double predicted = algorithm->predicted_time(ranks, core::Bytes(size), cost).value();
    if (!(std::abs(times[i] - predicted) <= 1e-3 * std::abs(predicted)) || predicted <= 0.0) {
      return fmt::format("on a {} of {} ranks, {}: simulated {:.6g} s, predicted_time() {:.6g} s", kind, ranks,
                         bytes_text(size), times[i], predicted);
    }
  }
  return "";
}

/// What one run of the determinism check produced: its time and a hash of every rank's bits.
std::string fingerprint_case(const std::filesystem::path& plugin, const Entry& entry) {
  const auto algorithm = make(plugin, entry);
  const int ranks = 5;
  const std::string topology = algorithm->uncontended_on() == "ring" ? "ring" : "mesh";
  const runtime::CollectiveOutcome outcome = runtime::simulate_collective(
      uncontended(topology, ranks), scenario::NetworkModel::AlphaBeta, *algorithm, whole_number_inputs(ranks, 4099));
  std::string bits;
  for (const auto& result : outcome.results) {
    bits.append(reinterpret_cast<const char*>(result.data()), result.size() * sizeof(float));
  }
  return fmt::format("{:.17g} s, {:016x}", outcome.simulated_s, core::stable_hash(bits));
}

/// A check's verdict line, and whether the algorithm is still worth running (it did not hang).
struct CheckVerdict {
  bool passed = false;
  bool hung = false;
  std::string line;
};

/// How a case's child ended, when it did not return: the verdict's tag and reason.
std::pair<std::string, std::string> failure(const IsolatedOutcome& outcome) {
  using Status = IsolatedOutcome::Status;
  const std::string tag = outcome.status == Status::timed_out ? "HANG" : outcome.status == Status::crashed ? "CRASH" : "FAIL";
  return {tag, outcome.status == Status::threw ? "threw: " + outcome.text : outcome.text};
}

/// Runs `cases` in order, each in a child, stopping at the first that does not return "".
CheckVerdict run_cases(const std::string& check, const std::string& passed_line,
                  const std::vector<std::pair<std::string, std::function<std::string()>>>& cases,
                  std::chrono::milliseconds limit) {
  for (const auto& [label, work] : cases) {
    const IsolatedOutcome outcome = call_isolated(work, limit);
    using Status = IsolatedOutcome::Status;
    if (outcome.status == Status::finished && outcome.text.empty()) continue;
    const auto [tag, why] = failure(outcome);
    return {false, outcome.status == Status::timed_out, fmt::format("  {:<5} {}: {}{}", tag, check, label, why)};
  }
  return {true, false, fmt::format("  PASS  {}: {}", check, passed_line)};
}

/// A sync strategy's checks: it trains (the validation loss falls to 80% of where it starts, or lower), and
/// two runs write the same files.
std::vector<CheckVerdict> check_strategy(const std::filesystem::path& plugin, const std::string& name,
                                    std::chrono::milliseconds limit) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / fmt::format("dtsim-check-plugin-{}-{}", ::getpid(), name);
  const auto work = [=] { return to_text(train_with_strategy(plugin, name, folder)); };
  std::vector<CheckVerdict> verdicts;
  const IsolatedOutcome first = call_isolated(work, limit);
  std::filesystem::remove_all(folder);  // a child that crashed or hung left it
  if (first.status != IsolatedOutcome::Status::finished) {
    const auto [tag, why] = failure(first);
    verdicts.push_back({false, tag == "HANG", fmt::format("  {:<5} trains: {}", tag, why)});
    return verdicts;
  }
  const StrategyTraining run = strategy_training_from_text(first.text);
  const std::string measured =
      fmt::format("validation loss {:.4g} -> {:.4g} in {} iterations (logistic regression, 4 workers, 2 epochs, on "
                  "{} {})",
                  run.initial_val_loss, run.final_val_loss, run.iterations,
                  run.architecture == "allreduce" ? "an" : "a", run.architecture);
  const bool learned = std::isfinite(run.final_val_loss) && run.final_val_loss <= 0.8 * run.initial_val_loss;
  verdicts.push_back({learned, false,
                      learned ? fmt::format("  PASS  trains: {}", measured)
                              : fmt::format("  FAIL  trains: {}; expected at most 80% of the initial loss", measured)});
  const IsolatedOutcome second = call_isolated(work, limit);
  std::filesystem::remove_all(folder);
  if (second.status != IsolatedOutcome::Status::finished) {
    const auto [tag, why] = failure(second);
    verdicts.push_back({false, tag == "HANG", fmt::format("  {:<5} deterministic: the second run: {}", tag, why)});
  } else if (strategy_training_from_text(second.text).fingerprint != run.fingerprint) {
    verdicts.push_back({false, false, "  FAIL  deterministic: two runs of the same scenario and seed wrote different "
                                      "summary.json or metrics.csv"});
  } else {
    verdicts.push_back({true, false, "  PASS  deterministic: two runs write the same summary.json and metrics.csv, "
                                     "byte for byte"});
  }
  return verdicts;
}

/// Two runs of the same case (p = 5, 4099 elements), each in a child: the same time and the same bits.
CheckVerdict determinism_verdict(const std::filesystem::path& plugin, const Entry& entry, std::chrono::milliseconds limit) {
  const IsolatedOutcome first = call_isolated([=] { return fingerprint_case(plugin, entry); }, limit);
  const IsolatedOutcome second = first.status == IsolatedOutcome::Status::finished
                                     ? call_isolated([=] { return fingerprint_case(plugin, entry); }, limit)
                                     : first;
  CheckVerdict verdict;
  if (first.status != IsolatedOutcome::Status::finished || second.status != IsolatedOutcome::Status::finished) {
    const IsolatedOutcome& bad = first.status != IsolatedOutcome::Status::finished ? first : second;
    verdict.hung = bad.status == IsolatedOutcome::Status::timed_out;
    verdict.line = fmt::format("  {:<5} deterministic: {}", verdict.hung ? "HANG" : "CRASH",
                               bad.status == IsolatedOutcome::Status::threw ? "threw: " + bad.text : bad.text);
  } else if (first.text != second.text) {
    verdict.line = fmt::format("  FAIL  deterministic: two runs differ ({} against {})", first.text, second.text);
  } else {
    verdict.passed = true;
    verdict.line = "  PASS  deterministic: two runs (p = 5, 4099 elements) give the same time and the same bits";
  }
  return verdict;
}

/// A collective's three checks: its values, its closed form, its determinism; none after a hang.
std::vector<CheckVerdict> check_collective(const std::filesystem::path& plugin, const Entry& entry, std::chrono::milliseconds limit) {
  std::vector<std::pair<std::string, std::function<std::string()>>> values;
  for (const int ranks : {2, 3, 5, 8}) {
    for (const std::size_t elements : {std::size_t{1}, std::size_t{1000}, std::size_t{65537}}) {
      values.emplace_back(fmt::format("p = {}, {} elements: ", ranks, elements),
                          [=] { return values_case(plugin, entry, ranks, elements); });
    }
  }
  std::vector<std::pair<std::string, std::function<std::string()>>> closed_form;
  for (const int ranks : {2, 3, 5, 8, 16}) {
    closed_form.emplace_back("", [=] { return closed_form_case(plugin, entry, ranks); });
  }
  std::vector<CheckVerdict> verdicts;
  verdicts.push_back(run_cases("values", fmt::format("every rank ends with what {} defines (p = 2, 3, 5, 8; 1, 1000 and "
                                                     "65537 elements)",
                                                     comm::to_string(entry.operation)),
                               values, limit));
  if (!verdicts.back().hung) {
    verdicts.push_back(run_cases("closed form",
                                 "simulated time within 0.1% of predicted_time() where no messages share a link "
                                 "(p = 2, 3, 5, 8, 16; 1 KiB to 32 MiB)",
                                 closed_form, limit));
  }
  if (!verdicts.back().hung) verdicts.push_back(determinism_verdict(plugin, entry, limit));
  return verdicts;
}

}  // namespace

CheckPluginReport check_plugin_command(const CheckPluginOptions& options) {
  const std::filesystem::path plugin = std::filesystem::absolute(options.plugin);
  const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(options.timeout_s * 1000.0));
  // Even loading runs the plug-in's code: in a child too. It lists the collectives the plug-in adds.
  const IsolatedOutcome listing = call_isolated(
      [&] {
        checks::Registries registries = checks::make_builtin_registries();
        const LoadedPlugin added = load_plugins({plugin}, registries).front();
        std::string lines;
        for (const auto& [operation, name] : added.collectives)
          lines += fmt::format("C{}/{}\n", comm::to_string(operation), name);
        for (const auto& name : added.strategies) lines += "S" + name + "\n";
        for (const auto& entry : added.entries) lines += "E" + entry + "\n";
        return lines;
      },
      limit);
  CheckPluginReport report;
  if (listing.status != IsolatedOutcome::Status::finished) {
    // The loader's own message (file: error: ..., hint) when it refused the file; else how loading ended.
    report.refused = listing.status == IsolatedOutcome::Status::threw
                         ? listing.text
                         : fmt::format("{}: error: loading the plug-in {}", options.plugin.string(), listing.text);
    return report;
  }
  std::vector<Entry> collectives;
  std::vector<std::string> strategies;
  std::string entries;
  std::istringstream lines(listing.text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("E")) entries += (entries.empty() ? "" : ", ") + line.substr(1);
    if (line.starts_with("S")) strategies.push_back(line.substr(1));
    if (!line.starts_with("C")) continue;
    const std::size_t slash = line.find('/');
    collectives.push_back({*comm::operation_named(line.substr(1, slash - 1)), line.substr(slash + 1)});
  }
  report.text += fmt::format("dtsim check-plugin {}\nloaded: {}\n", options.plugin.string(), entries);

  for (const Entry& entry : collectives) {
    report.text += fmt::format("\n{}\n", entry.qualified());
    const std::vector<CheckVerdict> verdicts = check_collective(plugin, entry, limit);
    for (const CheckVerdict& verdict : verdicts) {
      report.text += verdict.line + "\n";
      report.passed += verdict.passed ? 1 : 0;
    }
    report.checks += 3;
    if (verdicts.size() < 3) report.text += "  SKIP  the checks after a hang\n";
  }
  for (const std::string& name : strategies) {
    report.text += fmt::format("\nsync strategy {}\n", name);
    const std::vector<CheckVerdict> verdicts = check_strategy(plugin, name, limit);
    for (const CheckVerdict& verdict : verdicts) {
      report.text += verdict.line + "\n";
      report.passed += verdict.passed ? 1 : 0;
    }
    report.checks += 2;
    if (verdicts.size() < 2) report.text += "  SKIP  deterministic: the first run did not finish\n";
  }
  report.text += fmt::format("\n{} of {} checks passed\n", report.passed, report.checks);
  return report;
}

}  // namespace dtsim::app
