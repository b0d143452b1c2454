#include "sim/checks/scenario_data.hpp"

#include "models/partitioning.hpp"
#include "sim/checks/host_memory.hpp"
#include "sim/core/input_file.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstdlib>
#include <system_error>

namespace dtsim::checks {
namespace {

datasets::DataContext data_context(const scenario::Scenario& s) {
  return {.seed = s.seed, .validation_fraction = s.data.validation_fraction, .data_folder = data_folder()};
}

core::View data_section(const scenario::Scenario& s) { return core::View(&s.data.section, "data"); }

}  // namespace

std::filesystem::path data_folder() {
  if (const char* set = std::getenv("DTSIM_DATA"); set != nullptr && *set != '\0') return set;
  // The file this code was loaded from: <prefix>/bin/dtsim, or <prefix>/lib/pythonX.Y/site-packages/dtsim/_dtsim*.so.
  Dl_info where{};
  if (::dladdr(reinterpret_cast<const void*>(&data_folder), &where) != 0 && where.dli_fname != nullptr) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::canonical(where.dli_fname, error);
    if (!error) {
      for (const char* up : {"..", "../../../.."}) {
        const std::filesystem::path installed = self.parent_path() / up / "share" / "dtsim" / "data";
        if (std::filesystem::is_regular_file(installed / "README.md", error)) return installed.lexically_normal();
      }
    }
  }
  return DTSIM_DATA_DIR;
}

std::filesystem::path confinement_folder(const std::filesystem::path& folder) {
  std::error_code error;
  const std::filesystem::path root = std::filesystem::canonical(folder, error);
  if (error || !std::filesystem::is_directory(root, error)) {
    core::Diagnostic d;
    d.where.file = folder.string();
    d.message = "--confine names no folder";
    d.hint = "give the folder a scenario may read files from";
    throw core::InputError(std::move(d));
  }
  return root;
}

void check_confined_output(const std::filesystem::path& folder, bool from_command_line, const core::SourcePosition& named_at,
                           const std::optional<std::filesystem::path>& confine) {
  // Whoever wrote a confined scenario chose its outputs.folder; only the one running dtsim may write elsewhere.
  if (!confine || from_command_line || core::inside_folder(folder, *confine)) return;
  core::Diagnostic d;
  d.where = named_at;
  d.key = named_at.line > 0 ? "outputs.folder" : "";
  d.message = fmt::format("the result folder {} is outside the folder --confine allows ({})", folder.string(),
                          confine->string());
  d.hint = "give the result folder with -o, or name one inside that folder";
  throw core::InputError(std::move(d));
}

scenario::LoadOptions confined_load(const std::optional<std::filesystem::path>& confine) {
  scenario::LoadOptions out;
  out.confine = confine;
  return out;
}

scenario::ScenarioDocument read_document_and_data(const scenario::ScenarioFormat& format, const std::filesystem::path& path,
                                                  const std::optional<std::string>& only_point,
                                                  const scenario::LoadOptions& load) {
  try {
    return scenario::read_scenario_document_file(format, path, only_point, load);
  } catch (const core::InputError& error) {
    if (load.confine) throw;  // the data file is read only once the scenario is sound and confined
    const std::optional<scenario::DataSection> sound = scenario::sound_data_section(format.schema(), path, error.diagnostics());
    const datasets::DataRegistry& data_sets = format.registries().data_sets;
    const core::ConfigNode* kind = sound ? sound->data.find("kind") : nullptr;
    if (kind == nullptr || !data_sets.contains(kind->scalar)) throw;
    const core::View section(&sound->data, "data");
    const datasets::DataContext context{.seed = sound->seed,
                                        .validation_fraction = section.filled_number("validation_fraction"),
                                        .data_folder = data_folder()};
    try {
      static_cast<void>(data_sets.find(kind->scalar).factory.load(section, context));
    } catch (const core::InputError& data_error) {
      std::vector<core::Diagnostic> all = error.diagnostics();
      all.insert(all.end(), data_error.diagnostics().begin(), data_error.diagnostics().end());
      throw core::InputError(std::move(all));
    }
    throw;
  }
}

LoadedData load_data(const scenario::Scenario& s, const datasets::DataRegistry& data_sets) {
  return data_sets.find(s.data.kind.value).factory.load(data_section(s), data_context(s));
}

std::size_t validation_count(const scenario::Scenario& s, const DataShape& data) {
  return models::held_out(data.samples, s.data.validation_fraction);
}

models::SplitDataset make_data(const scenario::Scenario& s, const datasets::DataRegistry& data_sets) {
  return datasets::make_data(data_sets.find(s.data.kind.value).factory, data_section(s), data_context(s));
}

void partition(const scenario::Scenario& s, const models::BatchSchedule& schedule, models::SplitDataset& data) {
  if (s.data.partitioning == models::Partitioning::Iid) return;
  models::reorder(data.train,
                  models::partition_order(data.train, schedule, s.data.partitioning, s.data.alpha, s.seed));
}

std::unique_ptr<models::TrainableModel> make_model(const scenario::Scenario& s, const DataShape& data,
                                                   const models::ModelRegistry& registry, core::DiagnosticSink& sink) {
  const std::string& model = s.model.kind.value;
  const std::string& kind = s.data.kind.value;
  const models::ModelPlugin& entry = registry.find(model).factory;
  if (entry.trains_on != data.kind) {
    const char* what = data.kind == SampleKind::Rating         ? "are ratings"
                       : data.kind == SampleKind::Cooccurrence ? "are word co-occurrences"
                                                               : "are labelled feature vectors";
    const std::string readers =
        models::model_names(registry, [&](const models::ModelPlugin& other) { return other.trains_on == data.kind; });
    sink.error(s.model.kind.where, "model.kind", fmt::format("'{}' cannot train on '{}' data, which {}", model, kind, what),
               "use model.kind: " + readers);
    return nullptr;
  }
  if (data.kind != SampleKind::Classified && s.data.partitioning != models::Partitioning::Iid) {
    sink.error(s.data.partitioning_at, "data.partitioning.kind",
               fmt::format("'{}' splits samples by label, and '{}' samples have none",
                           scenario::to_string(s.data.partitioning), kind),
               "use data.partitioning.kind: iid");
    return nullptr;
  }
  const core::View section(&s.model.section, "model");
  const models::ModelContext context{.data = data, .data_kind = kind, .seed = s.seed};
  const std::size_t reported = sink.size();
  if (entry.check) entry.check(section, context, sink);
  if (sink.size() > reported) return nullptr;
  // Built without its values (those come with initial_parameters()), so its size is known before allocating.
  std::unique_ptr<models::TrainableModel> built = entry.make(section, context);
  check_host_memory(s, *built, available_host_memory(), sink);
  if (sink.size() > reported) return nullptr;
  return built;
}

}  // namespace dtsim::checks
