#pragma once
// MLCommons Chakra execution traces (the format ASTRA-sim reads): one file per rank, `<prefix>.<rank>.et`,
// a stream of protobuf messages each after its length as a varint, the GlobalMetadata first, then the nodes.
// The schema is sim/traces/chakra/et_def.proto; this header speaks of nodes without protobuf's types.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::traces {

/// The schema's NodeType, by its numbers.
enum class ChakraNodeType : int {
  invalid = 0,
  metadata = 1,
  memory_load = 2,
  memory_store = 3,
  compute = 4,
  send = 5,
  receive = 6,
  collective = 7
};

/// The schema's CollectiveCommType, by its numbers.
enum class ChakraCollective : int {
  all_reduce = 0,
  reduce = 1,
  all_gather = 2,
  gather = 3,
  scatter = 4,
  broadcast = 5,
  all_to_all = 6,
  reduce_scatter = 7,
  reduce_scatter_block = 8,
  barrier = 9
};

/// One node, with the attributes ASTRA-sim reads (each written as ASTRA-sim's generators write it: integers
/// as int64, ranks and tags as int32, is_cpu_op as a bool).
struct ChakraNode {
  std::uint64_t id = 0;
  std::string name;
  ChakraNodeType type = ChakraNodeType::invalid;
  std::vector<std::uint64_t> data_deps;
  std::vector<std::uint64_t> ctrl_deps;
  std::uint64_t duration_micros = 0;
  bool is_cpu_op = false;
  std::optional<std::int64_t> num_ops;      ///< a compute node's operations
  std::optional<std::int64_t> tensor_size;  ///< a compute node's bytes moved
  std::optional<std::int64_t> comm_type;    ///< a collective's ChakraCollective
  std::optional<std::int64_t> comm_size;    ///< bytes a collective, send or receive moves
  std::optional<std::int64_t> comm_src;
  std::optional<std::int64_t> comm_dst;
  std::optional<std::int64_t> comm_tag;
  std::string pg_name;  ///< a collective's process group ("" or "0": every rank)
};

/// A node of `type` depending on `data_deps`, with no attribute set.
inline ChakraNode chakra_node(std::uint64_t id, std::string name, ChakraNodeType type,
                              std::vector<std::uint64_t> data_deps = {}) {
  ChakraNode out;
  out.id = id;
  out.name = std::move(name);
  out.type = type;
  out.data_deps = std::move(data_deps);
  return out;
}

struct ChakraTrace {
  std::string version;  ///< GlobalMetadata's
  std::vector<ChakraNode> nodes;
};

/// The schema version dtsim writes: the one MLCommons' generator writes at its current release.
inline constexpr const char* kChakraVersion = "1.0.0";

/// The bytes of `trace` as a .et file: GlobalMetadata, then each node, each after its length.
std::string encode_chakra_trace(const ChakraTrace& trace);

/// Reads one rank's .et file. Throws core::InputError naming the file (and the message's byte offset) when
/// it cannot be read, is cut short, holds a message that is no Chakra message, repeats a node id, or names
/// a dependency it does not hold.
ChakraTrace read_chakra_trace(const std::filesystem::path& path);

/// The file of rank `rank` of the traces `prefix` names: `<prefix>.<rank>.et`.
std::filesystem::path chakra_rank_file(const std::filesystem::path& prefix, int rank);

}  // namespace dtsim::traces
