#include "sim/traces/chakra_trace.hpp"

#include "et_def.pb.h"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <unordered_set>

namespace dtsim::traces {
namespace {

namespace pb = ChakraProtoMsg;

/// The longest message a rank's file may hold: a node of MLCommons' PyTorch converter is some 6 KiB; a
/// length beyond this is a damaged file, not a node.
constexpr std::uint32_t kMaxMessageBytes = 64U << 20U;

[[noreturn]] void refuse(const std::filesystem::path& path, std::string message, std::string hint) {
  throw core::InputError(
      core::Diagnostic{core::SourcePosition(path.string()), "", std::move(message), std::move(hint)});
}

void add_integer(pb::Node& node, const char* name, const std::optional<std::int64_t>& value, bool narrow) {
  if (!value) return;
  pb::AttributeProto* a = node.add_attr();
  a->set_name(name);
  // ASTRA-sim's generators write ranks and tags as int32, sizes and counts as int64.
  if (narrow) {
    a->set_int32_val(static_cast<std::int32_t>(*value));
  } else {
    a->set_int64_val(*value);
  }
}

pb::Node to_message(const ChakraNode& n) {
  pb::Node out;
  out.set_id(n.id);
  out.set_name(n.name);
  out.set_type(static_cast<pb::NodeType>(n.type));
  for (const std::uint64_t d : n.ctrl_deps) out.add_ctrl_deps(d);
  for (const std::uint64_t d : n.data_deps) out.add_data_deps(d);
  out.set_duration_micros(n.duration_micros);
  pb::AttributeProto* cpu = out.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(n.is_cpu_op);
  add_integer(out, "num_ops", n.num_ops, false);
  add_integer(out, "tensor_size", n.tensor_size, false);
  add_integer(out, "comm_type", n.comm_type, false);
  add_integer(out, "comm_size", n.comm_size, false);
  add_integer(out, "comm_src", n.comm_src, true);
  add_integer(out, "comm_dst", n.comm_dst, true);
  add_integer(out, "comm_tag", n.comm_tag, true);
  if (!n.pg_name.empty()) {
    pb::AttributeProto* pg = out.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val(n.pg_name);
  }
  return out;
}

/// An integer attribute's value, whichever integer type holds it (readers of Chakra accept any).
std::optional<std::int64_t> integer_of(const pb::AttributeProto& a) {
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val:
      return a.int32_val();
    case pb::AttributeProto::kInt64Val:
      return a.int64_val();
    case pb::AttributeProto::kUint32Val:
      return a.uint32_val();
    case pb::AttributeProto::kUint64Val:
      return static_cast<std::int64_t>(a.uint64_val());
    case pb::AttributeProto::kSint32Val:
      return a.sint32_val();
    case pb::AttributeProto::kSint64Val:
      return a.sint64_val();
    case pb::AttributeProto::kFixed32Val:
      return a.fixed32_val();
    case pb::AttributeProto::kFixed64Val:
      return static_cast<std::int64_t>(a.fixed64_val());
    case pb::AttributeProto::kSfixed32Val:
      return a.sfixed32_val();
    case pb::AttributeProto::kSfixed64Val:
      return a.sfixed64_val();
    case pb::AttributeProto::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      return std::nullopt;
  }
}

ChakraNode from_message(const pb::Node& m) {
  ChakraNode out;
  out.id = m.id();
  out.name = m.name();
  out.type = static_cast<ChakraNodeType>(m.type());
  out.ctrl_deps.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
  out.data_deps.assign(m.data_deps().begin(), m.data_deps().end());
  out.duration_micros = m.duration_micros();
  for (const pb::AttributeProto& a : m.attr()) {
    const std::string& name = a.name();
    if (name == "pg_name" && a.value_case() == pb::AttributeProto::kStringVal) out.pg_name = a.string_val();
    const std::optional<std::int64_t> value = integer_of(a);
    if (!value) continue;
    // The first attribute of a name counts, as ASTRA-sim's feeder reads it.
    const auto take = [&](std::optional<std::int64_t>& field) {
      if (!field) field = value;
    };
    if (name == "is_cpu_op") out.is_cpu_op = *value != 0;
    if (name == "num_ops") take(out.num_ops);
    if (name == "tensor_size") take(out.tensor_size);
    if (name == "comm_type") take(out.comm_type);
    if (name == "comm_size") take(out.comm_size);
    if (name == "comm_src") take(out.comm_src);
    if (name == "comm_dst") take(out.comm_dst);
    if (name == "comm_tag") take(out.comm_tag);
  }
  return out;
}

void append_delimited(const google::protobuf::MessageLite& message, std::string& out) {
  const std::string bytes = message.SerializeAsString();
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.WriteVarint32(static_cast<std::uint32_t>(bytes.size()));
  coded.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace

std::string encode_chakra_trace(const ChakraTrace& trace) {
  std::string out;
  pb::GlobalMetadata metadata;
  // An empty GlobalMetadata is 0 bytes, which Chakra's Python reader takes for the end of the file.
  metadata.set_version(trace.version.empty() ? kChakraVersion : trace.version);
  append_delimited(metadata, out);
  for (const ChakraNode& node : trace.nodes) append_delimited(to_message(node), out);
  return out;
}

ChakraTrace read_chakra_trace(const std::filesystem::path& path) {
  std::string reason;
  const std::optional<std::string> bytes = core::read_input_file(path, core::kDataFileLimit, reason);
  if (!bytes)
    refuse(path, "cannot read the Chakra trace: " + reason, "check the path: a rank's file is PREFIX.RANK.et");
  google::protobuf::io::ArrayInputStream stream(bytes->data(),
                                                static_cast<int>(std::min<std::size_t>(bytes->size(), INT32_MAX)));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT32_MAX);
  ChakraTrace out;
  std::unordered_set<std::uint64_t> ids;
  for (bool first = true;; first = false) {
    const int at = coded.CurrentPosition();
    std::uint32_t length = 0;
    if (!coded.ReadVarint32(&length)) {
      if (at == static_cast<int>(bytes->size()) && !first) break;
      refuse(path,
             first ? "the file is empty: a Chakra trace begins with its GlobalMetadata"
                   : fmt::format("the length of the message at byte {} is cut short", at),
             "write the trace again: each message is its length as a varint, then its bytes");
    }
    if (length > kMaxMessageBytes) {
      refuse(path,
             fmt::format("the message at byte {} claims {} bytes, more than the 64 MiB a node may hold", at, length),
             "the file is damaged, or no Chakra trace");
    }
    std::string message;
    if (!coded.ReadString(&message, static_cast<int>(length))) {
      refuse(path, fmt::format("the message at byte {} is cut short: {} bytes announced", at, length),
             "write the trace again");
    }
    if (first) {
      pb::GlobalMetadata metadata;
      if (!metadata.ParseFromString(message))
        refuse(path, "the first message is no GlobalMetadata", "give a Chakra .et file");
      out.version = metadata.version();
      continue;
    }
    pb::Node node;
    if (!node.ParseFromString(message))
      refuse(path, fmt::format("the message at byte {} is no Chakra node", at), "give a Chakra .et file");
    if (!ids.insert(node.id()).second) {
      refuse(path, fmt::format("node {} ('{}') appears twice", node.id(), node.name().substr(0, 40)),
             "give each node its own id");
    }
    out.nodes.push_back(from_message(node));
  }
  for (const ChakraNode& node : out.nodes) {
    for (const auto* deps : {&node.data_deps, &node.ctrl_deps}) {
      for (const std::uint64_t d : *deps) {
        if (ids.count(d) == 0) {
          refuse(path, fmt::format("node {} depends on node {}, which the file does not hold", node.id, d),
                 "a rank's file holds every node its nodes depend on");
        }
      }
    }
  }
  return out;
}

std::filesystem::path chakra_rank_file(const std::filesystem::path& prefix, int rank) {
  return std::filesystem::path(fmt::format("{}.{}.et", prefix.string(), rank));
}

}  // namespace dtsim::traces
