#include "sim/scenario/schema_validator.hpp"

#include "sim/core/name_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace dtsim::scenario {
namespace {

constexpr double kSmallestNumber = 1e-30;
constexpr double kLargestNumber = 1e30;

std::string join_or(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += values[i];
  }
  return out;
}

bool looks_integral(const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string format_bound(double value) { return fmt::format("{}", value); }

/// "at least 1", "greater than 0": the lower end of a Number's range.
std::string lower_bound_text(const SchemaNode& schema) {
  return schema.min_exclusive ? fmt::format("greater than {}", format_bound(schema.number_min))
                              : fmt::format("at least {}", format_bound(schema.number_min));
}

/// The range of a Number as its messages state it: "greater than 0 and at most 100", "a whole number of at least 1
/// and at most 1e+18".
std::string range_text(const SchemaNode& schema) {
  std::string range = lower_bound_text(schema);
  if (!std::isinf(schema.number_max)) range += fmt::format(" and at most {}", format_bound(schema.number_max));
  return schema.whole_number ? "a whole number of " + range : range;
}

/// What a Number accepts that the engine can compute with: its range cut to the magnitudes from kSmallestNumber
/// to kLargestNumber, with 0 where the range holds it.
std::string computable_range(const SchemaNode& schema) {
  const bool takes_zero = schema.number_min < 0.0 || (schema.number_min == 0.0 && !schema.min_exclusive);
  const double largest = std::min(std::max(-schema.number_min, schema.number_max), kLargestNumber);
  std::string range;
  if (schema.number_min < 0.0) {
    range = fmt::format("of a magnitude from {} to {}", format_bound(kSmallestNumber), format_bound(largest));
  } else if (schema.number_min < kSmallestNumber) {
    range = fmt::format("at least {} and at most {}", format_bound(kSmallestNumber), format_bound(largest));
  } else {
    range = fmt::format("{} and at most {}", lower_bound_text(schema), format_bound(largest));
  }
  return takes_zero ? "0, or " + range : range;
}

class Validator {
 public:
  Validator(core::DiagnosticSink& sink, core::DiagnosticSink* unsupported)
      : sink_(&sink), unsupported_(unsupported == nullptr ? &sink : unsupported) {}

  ConfigNode validate(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    switch (schema.kind) {
      case ValueKind::Map: return validate_map(value, schema, path);
      case ValueKind::Dictionary: return validate_dictionary(value, schema, path);
      case ValueKind::List: return validate_list(value, schema, path);
      default: return validate_scalar(value, schema, path);
    }
  }

 private:
  void error(const core::SourcePosition& where, const std::string& key, std::string message, std::string hint = {}) {
    sink_->error(where, key, std::move(message), std::move(hint));
  }

  bool expect(const ConfigNode& value, ConfigNode::Kind kind, const SchemaNode& schema, const std::string& path) {
    if (value.kind == kind) return true;
    std::string hint;
    if (!schema.example.empty()) hint = fmt::format("for example `{}: {}`", schema.key, schema.example);
    error(value.where, path, fmt::format("expected {}, got {}", expected_value(schema), describe(value)), hint);
    return false;
  }

  /// The value a sibling key has (as written, or its default), or nullopt when it has neither.
  static std::optional<std::string> sibling_value(const ConfigNode& map, const SchemaNode& schema,
                                                  const std::string& sibling) {
    if (const ConfigNode* written = map.find(sibling); written != nullptr && written->is_scalar()) {
      return written->scalar;
    }
    const SchemaNode* declared = schema.child(sibling);
    if (declared != nullptr && !declared->default_value.empty()) return declared->default_value;
    return std::nullopt;
  }

  static bool applies(const SchemaNode& child, const ConfigNode& map, const SchemaNode& schema) {
    if (child.only_when.sibling.empty()) return true;
    const auto actual = sibling_value(map, schema, child.only_when.sibling);
    return actual && std::find(child.only_when.values.begin(), child.only_when.values.end(), *actual) !=
                         child.only_when.values.end();
  }

  ConfigNode validate_map(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    ConfigNode input = value;
    if (input.is_null()) input.kind = ConfigNode::Kind::Map;
    if (!expect(input, ConfigNode::Kind::Map, schema, path)) return {};
    ConfigNode out = ConfigNode::make_map(input.where);
    for (const auto& entry : input.entries) {
      if (schema.child(entry.key) != nullptr) continue;
      std::vector<std::string> known;
      for (const auto& child : schema.children) known.push_back(child.key);
      std::string hint = fmt::format("valid keys here: {}", core::join_names(known));
      if (const auto closest = core::closest_name(entry.key, known)) hint = fmt::format("did you mean '{}'?", *closest);
      error(entry.key_where, dotted_key(path, entry.key), "unknown key", hint);
    }
    for (const auto& child : schema.children) {
      const std::string child_path = dotted_key(path, child.key);
      const bool applicable = applies(child, input, schema);
      if (const ConfigEntry* entry = input.find_entry(child.key)) {
        if (!applicable) report_inapplicable(*entry, child, input, schema, child_path);
        if (child.planned) {
          unsupported_->error(entry->key_where, child_path, "not supported yet",
                              "dtsim checks this key but cannot simulate it yet; remove it");
        }
        out.entries.push_back(ConfigEntry{child.key, entry->key_where, validate(entry->value, child, child_path)});
        continue;
      }
      if (!applicable || child.planned) continue;
      if (child.required) {
        std::string hint;
        if (!child.example.empty()) hint = fmt::format("add `{}: {}`", child.key, child.example);
        error(input.where, child_path, "missing required key", hint);
        continue;
      }
      ConfigNode filled = defaults_of(child, input.where);
      if (!filled.is_null()) out.entries.push_back(ConfigEntry{child.key, input.where, std::move(filled)});
    }
    return out;
  }

  void report_inapplicable(const ConfigEntry& entry, const SchemaNode& child, const ConfigNode& map,
                           const SchemaNode& schema, const std::string& child_path) {
    const std::string& sibling = child.only_when.sibling;
    const auto actual = sibling_value(map, schema, sibling);
    const std::string here = actual ? fmt::format("here it is {}", *actual) : "here it is not set";
    error(entry.key_where, child_path,
          fmt::format("applies only when {} is {}; {}", sibling, join_or(child.only_when.values), here),
          fmt::format("remove {}, or set {} to {}", child.key, sibling, child.only_when.values.front()));
  }

  /// The defaults of a key nobody wrote: a default value, or a mapping of its children's defaults.
  static ConfigNode defaults_of(const SchemaNode& schema, const core::SourcePosition& where) {
    if (!schema.default_value.empty()) {
      ConfigNode node = ConfigNode::make_scalar(schema.default_value, where);
      node.defaulted = true;
      return node;
    }
    if (schema.kind != ValueKind::Map) return {};
    ConfigNode out = ConfigNode::make_map(where);
    out.defaulted = true;
    for (const auto& child : schema.children) {
      if (child.planned || !applies(child, out, schema)) continue;
      // A section with a required key (one that applies, given the defaults so far) cannot be completed
      // from defaults; leave it out.
      if (child.required) return {};
      ConfigNode filled = defaults_of(child, where);
      if (!filled.is_null()) out.entries.push_back(ConfigEntry{child.key, where, std::move(filled)});
    }
    return out.entries.empty() ? ConfigNode{} : out;
  }

  ConfigNode validate_dictionary(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    if (!expect(value, ConfigNode::Kind::Map, schema, path)) return {};
    ConfigNode out = ConfigNode::make_map(value.where);
    for (const auto& entry : value.entries) {
      const std::string entry_path = dotted_key(path, entry.key);
      if (entry.key.empty()) error(entry.key_where, path, "a name must not be empty");
      out.entries.push_back(ConfigEntry{entry.key, entry.key_where, validate(entry.value, schema.children.front(), entry_path)});
    }
    return out;
  }

  ConfigNode validate_list(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    if (!expect(value, ConfigNode::Kind::List, schema, path)) return {};
    ConfigNode out = value;
    out.items.clear();
    for (std::size_t i = 0; i < value.items.size(); ++i) {
      out.items.push_back(validate(value.items[i], schema.children.front(), fmt::format("{}[{}]", path, i)));
    }
    return out;
  }

  ConfigNode validate_scalar(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    if (schema.kind == ValueKind::FileList) return value;  // resolved by the loader before validation
    if (schema.kind == ValueKind::AnyScalar && is_scalar_list(value)) return value;  // a list key's sweep value
    if (!expect(value, ConfigNode::Kind::Scalar, schema, path)) return value;
    const std::string& text = value.scalar;
    switch (schema.kind) {
      case ValueKind::Choice: check_choice(value, schema, path); break;
      case ValueKind::Integer: check_integer(value, schema, path); break;
      case ValueKind::Number: check_number(value, schema, path); break;
      case ValueKind::Boolean:
        if (text != "true" && text != "false") {
          error(value.where, path, fmt::format("expected true or false, got \"{}\"", text));
        }
        break;
      case ValueKind::Quantity: check_quantity(value, schema, path); break;
      default: break;
    }
    return value;
  }

  void check_choice(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    const std::string& name = value.scalar;
    const std::string supported = fmt::format("supported {} names: {}", schema.choice_label,
                                              core::join_names(schema.supported_choices()));
    if (const Choice* choice = schema.choice(name)) {
      if (choice->planned) {
        unsupported_->error(value.where, path, fmt::format("{} '{}' is not supported yet", schema.choice_label, name),
                            supported);
      }
      return;
    }
    std::string hint = fmt::format("valid {} names: {}", schema.choice_label, core::join_names(schema.supported_choices()));
    std::vector<std::string> planned;
    for (const auto& c : schema.choices) {
      if (c.planned) planned.push_back(c.name);
    }
    if (!planned.empty()) hint += fmt::format("; not supported yet: {}", core::join_names(planned));
    // A close name is the likely fix; the whole list (which grows with every plug-in) only when there is none.
    if (const auto closest = core::closest_name(name, schema.all_choices())) hint = fmt::format("did you mean '{}'?", *closest);
    error(value.where, path, fmt::format("unknown {} '{}'", schema.choice_label, name), hint);
  }

  void check_integer(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    const auto parsed = parse_integer(value.scalar);
    if (!parsed && !looks_integral(value.scalar)) {
      error(value.where, path, fmt::format("expected a whole number, got \"{}\"", value.scalar));
      return;
    }
    if (!parsed || *parsed < schema.integer_min || *parsed > schema.integer_max) {
      error(value.where, path,
            fmt::format("must be between {} and {}, got {}", schema.integer_min, schema.integer_max, value.scalar));
    }
  }

  void check_number(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    const auto parsed = parse_number(value.scalar);
    if (!parsed) {
      error(value.where, path, fmt::format("expected {}, got \"{}\"", expected_value(schema), value.scalar));
      return;
    }
    // The key's own range first: a value outside it is refused with the range the key accepts, not with the
    // wider bounds below.
    if (!check_range(*parsed, value, schema, path)) return;
    // Subnormal and astronomically large factors turn into infinite or zero times in the engine, which
    // SimGrid aborts on; no rate, fraction or factor of a real cluster is outside these bounds.
    if (*parsed != 0.0 && (std::fabs(*parsed) < kSmallestNumber || std::fabs(*parsed) > kLargestNumber)) {
      error(value.where, path, fmt::format("must be {}, got {}", computable_range(schema), value.scalar),
            "the simulator cannot compute with it; no cluster comes near it");
      return;
    }
    if (schema.whole_number && *parsed != std::floor(*parsed)) {
      error(value.where, path, fmt::format("must be a whole number, got {}", value.scalar),
            fmt::format("a count has no fraction: use {:.0f} or {:.0f}", std::floor(*parsed), std::ceil(*parsed)));
    }
  }

  /// Reports a value outside the key's range; whether it is inside.
  bool check_range(double parsed, const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    const bool below = schema.min_exclusive ? parsed <= schema.number_min : parsed < schema.number_min;
    if (!below && parsed <= schema.number_max) return true;
    // A count's example shows the size such a count usually has, which a value outside its range is far from.
    std::string hint;
    if (schema.whole_number && !schema.example.empty()) {
      hint = fmt::format("for example `{}: {}`", schema.key, schema.example);
    }
    error(value.where, path, fmt::format("must be {}, got {}", range_text(schema), value.scalar), hint);
    return false;
  }

  void check_quantity(const ConfigNode& value, const SchemaNode& schema, const std::string& path) {
    try {
      const double parsed = core::parse_quantity(schema.unit, value.scalar);
      if (schema.min_exclusive && parsed <= schema.number_min) {
        error(value.where, path, fmt::format("must be greater than zero, got \"{}\"", value.scalar));
      }
    } catch (const core::UnitError& unit_error) {
      error(value.where, path, unit_error.what(), unit_error.hint());
    }
  }

  core::DiagnosticSink* sink_;
  core::DiagnosticSink* unsupported_;
};

}  // namespace

std::string dotted_key(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

ConfigNode validate_against(const ConfigNode& value, const SchemaNode& schema, const std::string& path,
                            core::DiagnosticSink& sink, core::DiagnosticSink* unsupported) {
  return Validator(sink, unsupported).validate(value, schema, path);
}

ConfigNode validate_scenario_document(const SchemaNode& schema, const ConfigNode& root, core::DiagnosticSink& sink,
                                      core::DiagnosticSink* unsupported) {
  if (!root.is_map()) {
    const std::string got = root.is_null() ? "the file is empty" : fmt::format("got {}", describe(root));
    core::SourcePosition file(root.where.file);
    file.included_from = root.where.included_from;
    sink.error(file, "",
               fmt::format("a scenario must be a YAML mapping (name:, cluster:, topology:, ...); {}", got),
               "start from scenarios/quickstart.yaml");
    return {};
  }
  const bool sections = std::any_of(root.entries.begin(), root.entries.end(),
                                    [&](const ConfigEntry& entry) { return schema.child(entry.key) != nullptr; });
  if (!root.entries.empty() && !sections) {
    // Named, not quoted: its keys may be the lines of a file that is not YAML at all (/etc/shadow), each of which an
    // unknown key's error would print.
    core::SourcePosition file(root.where.file);
    file.included_from = root.where.included_from;
    sink.error(file, "",
               fmt::format("a scenario must be a YAML mapping of scenario sections (name:, cluster:, topology:, ...); "
                           "none of the file's {} keys is one",
                           root.entries.size()),
               "start from scenarios/quickstart.yaml");
    return {};
  }
  return validate_against(root, schema, "", sink, unsupported);
}

bool is_scalar_list(const ConfigNode& value) {
  return value.is_list() && std::all_of(value.items.begin(), value.items.end(), [](const ConfigNode& item) { return item.is_scalar(); });
}

}  // namespace dtsim::scenario
