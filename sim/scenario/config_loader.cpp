#include "sim/scenario/config_loader.hpp"

#include "sim/core/input_file.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/scenario/sweep.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace dtsim::scenario {
namespace {

// Bounds that keep hostile input (deep nesting, alias bombs) from exhausting the stack or memory;
// no hand-written scenario comes near them.
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxNodes = 200'000;

/// Why `text` is not plain UTF-8 text without control characters (tab and newline allowed), or "".
/// Such bytes cannot be echoed into summary.json or written back by `dtsim explain` unchanged.
std::string text_problem(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\t' && byte != '\n') || byte == 0x7F) {
        return fmt::format("contains the control character 0x{:02X} at byte {}", byte, i);
      }
      ++i;
      continue;
    }
    const int length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte < 0xE0 ? 2 : 0;
    bool valid = length > 0 && i + static_cast<std::size_t>(length) <= text.size();
    for (int k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!valid) return fmt::format("is not UTF-8 text (byte 0x{:02X} at byte {})", byte, i);
    i += static_cast<std::size_t>(length);
  }
  return {};
}

class YamlConverter {
 public:
  YamlConverter(core::SourcePosition file, core::DiagnosticSink& sink) : file_(std::move(file)), sink_(&sink) {}

  ConfigNode convert(const YAML::Node& node, int depth) {
    ConfigNode out;
    out.where = position(node.Mark());
    if (++nodes_ > kMaxNodes) {
      report_once(out.where, fmt::format("the document has more than {} values", kMaxNodes),
                  "a scenario is a few dozen lines; check for YAML aliases that expand each other");
      return out;
    }
    if (depth > kMaxDepth) {
      report_once(out.where, fmt::format("values are nested more than {} levels deep", kMaxDepth), "");
      return out;
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        out.kind = ConfigNode::Kind::Scalar;
        out.scalar = node.Scalar();
        if (const std::string problem = text_problem(out.scalar); !problem.empty()) {
          sink_->error(out.where, "", fmt::format("the value {}", problem), "write plain text");
        }
        break;
      case YAML::NodeType::Sequence:
        out.kind = ConfigNode::Kind::List;
        for (const auto& item : node) out.items.push_back(convert(item, depth + 1));
        break;
      case YAML::NodeType::Map:
        out.kind = ConfigNode::Kind::Map;
        for (const auto& entry : node) add_entry(out, entry.first, entry.second, depth);
        break;
      default: break;
    }
    return out;
  }

 private:
  void add_entry(ConfigNode& map, const YAML::Node& key, const YAML::Node& value, int depth) {
    const core::SourcePosition key_where = position(key.Mark());
    if (!key.IsScalar()) {
      sink_->error(key_where, "", "a key must be a plain name, not a list or mapping", "write `name: value`");
      return;
    }
    if (const std::string problem = text_problem(key.Scalar()); !problem.empty()) {
      sink_->error(key_where, "", fmt::format("the key {}", problem), "write plain text");
      return;
    }
    if (const ConfigEntry* first = map.find_entry(key.Scalar())) {
      sink_->error(key_where, key.Scalar(),
                   fmt::format("duplicate key; it was already given at line {}", first->key_where.line),
                   "remove one of the two");
      return;
    }
    map.entries.push_back(ConfigEntry{key.Scalar(), key_where, convert(value, depth + 1)});
  }

  core::SourcePosition position(const YAML::Mark& mark) const {
    core::SourcePosition where = file_;
    // yaml-cpp marks are 0-based and -1 when unknown.
    if (mark.line >= 0) {
      where.line = mark.line + 1;
      where.column = mark.column + 1;
    }
    return where;
  }

  void report_once(const core::SourcePosition& where, std::string message, std::string hint) {
    if (limit_reported_) return;
    limit_reported_ = true;
    sink_->error(where, "", std::move(message), std::move(hint));
  }

  core::SourcePosition file_;
  core::DiagnosticSink* sink_;
  std::size_t nodes_ = 0;
  bool limit_reported_ = false;
};

std::optional<std::string> read_text(const std::filesystem::path& path, std::string& reason) {
  auto text = core::read_input_file(path, core::kScenarioFileLimit, reason);
  if (text && text->find('\0') != std::string::npos) {
    reason = "it is a binary file, not YAML text";
    return std::nullopt;
  }
  return text;
}

core::SourcePosition at(const core::SourcePosition& file, const YAML::Mark& mark) {
  core::SourcePosition where = file;
  if (mark.line >= 0) {
    where.line = mark.line + 1;
    where.column = mark.column + 1;
  }
  return where;
}

/// The line where a second YAML document starts (after a `---` or `...` marker at column 0 that follows
/// content), or 0. Found by its markers, which YAML allows nowhere else at column 0, so that a file of a
/// million `---` lines is refused without parsing a million documents.
int second_document_line(const std::string& text) {
  bool content = false;
  bool ended = false;
  int line = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string_view row(text.data() + begin, end - begin);
    begin = end + 1;
    ++line;
    const auto marker = [&](std::string_view mark) {
      return row.starts_with(mark) && (row.size() == 3 || row[3] == ' ' || row[3] == '\t' || row[3] == '\r');
    };
    const std::size_t first = row.find_first_not_of(" \t\r");
    const bool blank = first == std::string_view::npos || row[first] == '#';
    if (marker("---")) {
      if (content || ended) return line;
      continue;
    }
    if (marker("...")) {
      ended = content = true;
      continue;
    }
    if (blank || row.starts_with("%")) continue;
    if (ended) return line;
    content = true;
  }
  return 0;
}

/// `text` with each carriage return that no line feed follows made a line feed. YAML breaks lines at a lone
/// carriage return too (files saved with classic Mac OS line endings), and yaml-cpp does not: it would read such a
/// file as one line, a comment that hides everything or a mapping it cannot parse. Line numbers stay YAML's.
std::string with_line_feeds(std::string text) {
  for (std::size_t at = text.find('\r'); at != std::string::npos; at = text.find('\r', at + 1)) {
    if (at + 1 == text.size() || text[at + 1] != '\n') text[at] = '\n';
  }
  return text;
}

/// YAML forbids tabs in indentation, and yaml-cpp's message for them ("illegal map value", "end of map not
/// found") does not say so: name the first line indented with a tab.
std::string tab_hint(const std::string& text) {
  int line = 1;
  bool indenting = true;
  for (const char c : text) {
    if (c == '\n') {
      ++line;
      indenting = true;
    } else if (indenting && c == '\t') {
      return fmt::format("line {} is indented with a tab; YAML indents with spaces only", line);
    } else if (c != ' ') {
      indenting = false;
    }
  }
  return {};
}

bool has_scenario_section(const ConfigNode& tree, const SchemaNode& schema) {
  return std::any_of(tree.entries.begin(), tree.entries.end(),
                     [&](const ConfigEntry& entry) { return schema.child(entry.key) != nullptr; });
}

class IncludeResolver {
 public:
  IncludeResolver(const SchemaNode& schema, core::DiagnosticSink& sink, const LoadOptions& options)
      : schema_(&schema), sink_(&sink), options_(options) {}

  /// `file` carries the include chain that leads to this text.
  ConfigNode load(const std::string& file_text, const core::SourcePosition& file) {
    const std::string text = with_line_feeds(file_text);
    if (const int line = second_document_line(text); line > 0) {
      core::SourcePosition where = file;
      where.line = line;
      where.column = 1;
      sink_->error(where, "", "a second YAML document starts here; a scenario file holds one",
                   "put each scenario in a file of its own, or several runs in one file with sweep:");
      return {};
    }
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& parse_error) {
      sink_->error(at(file, parse_error.mark), "", fmt::format("not valid YAML: {}", parse_error.msg),
                   tab_hint(text));
      return {};
    }
    ConfigNode tree = YamlConverter(file, *sink_).convert(root, 0);
    if (!tree.is_map()) return tree;
    const ConfigEntry* include = tree.find_entry("include");
    if (include == nullptr) return tree;
    const ConfigEntry entry = *include;
    tree.erase("include");
    ConfigNode merged = ConfigNode::make_map(tree.where);
    const auto replaced_whole = [this](const std::string& path) {
      const SchemaNode* node = find_schema(*schema_, path);
      return node != nullptr && node->replaced_whole;
    };
    for (const ConfigNode* name : include_names(entry)) {
      ConfigNode included = load_included(*name, file);
      if (included.is_map()) merge_into(merged, included, replaced_whole);
    }
    merge_into(merged, tree, replaced_whole);
    return merged;
  }

  void push_active(const std::filesystem::path& path) { active_.push_back(canonical(path)); }

 private:
  static std::filesystem::path canonical(const std::filesystem::path& path) {
    std::error_code ignored;
    return std::filesystem::weakly_canonical(path, ignored);
  }

  /// Whether `canonical_path` is the scenario a study was given, which its generated scenario includes.
  [[nodiscard]] bool named_by_study(const std::filesystem::path& canonical_path) const {
    return options_.study_scenario && canonical(*options_.study_scenario) == canonical_path;
  }

  std::vector<const ConfigNode*> include_names(const ConfigEntry& entry) {
    std::vector<const ConfigNode*> names;
    if (entry.value.is_scalar()) names.push_back(&entry.value);
    for (const auto& item : entry.value.items) {
      if (item.is_scalar()) {
        names.push_back(&item);
      } else {
        sink_->error(item.where, "include", fmt::format("expected a file name, got {}", describe(item)));
      }
    }
    if (!entry.value.is_scalar() && !entry.value.is_list()) {
      sink_->error(entry.value.where, "include", fmt::format("expected a file name or a list of them, got {}",
                                                             describe(entry.value)),
                   "include: devices.yaml  or  include: [devices.yaml, topology.yaml]");
    }
    return names;
  }

  ConfigNode load_included(const ConfigNode& name, const core::SourcePosition& including) {
    if (!options_.allow_includes) {
      sink_->error(name.where, "include", "include is not available here", "include works in scenario files on disk");
      return {};
    }
    if (including.included_from.size() + 1 > kIncludeDepthLimit) {
      sink_->error(name.where, "include", fmt::format("includes nest more than {} files deep", kIncludeDepthLimit),
                   "include the shared files from one file, side by side: include: [a.yaml, b.yaml]");
      return {};
    }
    const std::filesystem::path path =
        (std::filesystem::path(including.file).parent_path() / name.scalar).lexically_normal();
    const std::filesystem::path canonical_path = canonical(path);
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (active_[i] != canonical_path) continue;
      std::string cycle;
      for (std::size_t j = i; j < active_.size(); ++j) cycle += active_[j].filename().string() + " -> ";
      sink_->error(name.where, "include", fmt::format("include cycle: {}{}", cycle, path.filename().string()),
                   "remove one of the includes in the cycle");
      return {};
    }
    if (options_.confine && !core::inside_folder(path, *options_.confine) && !named_by_study(canonical_path)) {
      sink_->error(name.where, "include",
                   fmt::format("'{}' is outside {}, the only folder this run may read (--confine)", path.string(),
                               options_.confine->string()),
                   "include files from the scenario's own folder, or confine the run to a folder that holds them");
      return {};
    }
    std::string reason;
    const auto text = read_text(path, reason);
    if (!text) {
      sink_->error(name.where, "include", fmt::format("cannot read included file '{}': {}", path.string(), reason),
                   "include paths are relative to the file that includes them");
      return {};
    }
    core::SourcePosition file(path.string());
    core::SourcePosition site = name.where;
    site.included_from.clear();
    file.included_from.push_back(site);
    file.included_from.insert(file.included_from.end(), name.where.included_from.begin(),
                              name.where.included_from.end());
    active_.push_back(canonical_path);
    ConfigNode tree = load(*text, file);
    active_.pop_back();
    if (!tree.is_map() && !tree.is_null()) {
      sink_->error(name.where, "include",
                   fmt::format("'{}' is not a scenario fragment: it holds {}, not a mapping of scenario sections",
                               path.string(), tree.is_list() ? "a list" : "a single text"),
                   "include names YAML files of scenario sections, such as cluster: or topology:");
      return {};
    }
    if (tree.is_map() && !tree.entries.empty() && !has_scenario_section(tree, *schema_)) {
      // Named, not quoted: its keys may be the lines of a file that is not YAML at all (/etc/shadow).
      sink_->error(name.where, "include",
                   fmt::format("'{}' is not a scenario fragment: none of its {} keys is a scenario section",
                               path.string(), tree.entries.size()),
                   "include names YAML files of scenario sections, such as cluster: or topology:");
      return {};
    }
    return tree;
  }

  const SchemaNode* schema_;
  core::DiagnosticSink* sink_;
  LoadOptions options_;
  std::vector<std::filesystem::path> active_;
};

}  // namespace

ConfigNode load_config_text(const SchemaNode& schema, const std::string& text, const std::string& file_name,
                            core::DiagnosticSink& sink, const LoadOptions& options) {
  IncludeResolver resolver(schema, sink, options);
  resolver.push_active(file_name);
  ConfigNode document = resolver.load(text, core::SourcePosition(file_name));
  points_as_axes(document, sink);
  return document;
}

ConfigNode load_config_file(const SchemaNode& schema, const std::filesystem::path& path, core::DiagnosticSink& sink,
                            const LoadOptions& options) {
  std::string reason;
  const auto text = read_text(path, reason);
  if (!text) {
    sink.error(core::SourcePosition(path.string()), "", fmt::format("cannot read scenario file: {}", reason));
    return {};
  }
  return load_config_text(schema, *text, path.string(), sink, options);
}

}  // namespace dtsim::scenario
