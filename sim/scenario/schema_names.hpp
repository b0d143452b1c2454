#pragma once
// The schema's vocabulary (sim/core/schema.hpp) under the names the scenario layer has always used.

#include "sim/core/schema.hpp"

namespace dtsim::scenario {

using core::Choice;
using core::Condition;
using core::SchemaNode;
using core::Unit;
using core::ValueKind;

using core::any_scalar;
using core::boolean;
using core::choice_of;
using core::dictionary_of;
using core::expected_value;
using core::file_list;
using core::integer;
using core::list_of;
using core::map_of;
using core::number;
using core::quantity;
using core::text;

}  // namespace dtsim::scenario
