// Chakra execution traces: ASTRA-sim's own example files read, and written back byte for byte; a trace dtsim
// writes read back whole; and the files that are no trace refused.

#include "sim/traces/chakra_trace.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace dtsim::traces {
namespace {

std::filesystem::path example(const std::string& name) {
  return std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/data/chakra" / name;
}

std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path written(const std::string& name, const std::string& bytes) {
  const std::filesystem::path folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "chakra";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / name, std::ios::binary) << bytes;
  return folder / name;
}

TEST(ChakraTrace, AstraSimsMicrobenchmarksReadAndWriteBackByteForByte) {
  for (const char* name : {"all_reduce.0.et", "all_reduce.1.et", "all_to_all.0.et"}) {
    const ChakraTrace trace = read_chakra_trace(example(name));
    EXPECT_EQ(trace.version, "0.0.4") << name;
    ASSERT_EQ(trace.nodes.size(), 1U) << name;
    const ChakraNode& node = trace.nodes.front();
    EXPECT_EQ(node.type, ChakraNodeType::collective);
    EXPECT_EQ(*node.comm_size, 1'048'576);
    EXPECT_FALSE(node.is_cpu_op);
    EXPECT_EQ(encode_chakra_trace(trace), bytes_of(example(name))) << name;
  }
  EXPECT_EQ(*read_chakra_trace(example("all_to_all.0.et")).nodes.front().comm_type,
            static_cast<int>(ChakraCollective::all_to_all));
}

TEST(ChakraTrace, ACustomCollectivesSendsReceivesAndComputeAreRead) {
  const ChakraTrace trace = read_chakra_trace(example("custom_allreduce.0.et"));
  ASSERT_EQ(trace.nodes.size(), 35U);
  int sends = 0, receives = 0, computes = 0;
  for (const ChakraNode& n : trace.nodes) {
    sends += n.type == ChakraNodeType::send ? 1 : 0;
    receives += n.type == ChakraNodeType::receive ? 1 : 0;
    computes += n.type == ChakraNodeType::compute ? 1 : 0;
  }
  EXPECT_EQ(sends, 14);
  EXPECT_EQ(receives, 14);
  EXPECT_EQ(computes, 7);
  EXPECT_EQ(*trace.nodes[0].comm_dst, 1);
  EXPECT_EQ(*trace.nodes[1].comm_src, 7);
  EXPECT_EQ(trace.nodes[1].data_deps, std::vector<std::uint64_t>{0});
  EXPECT_EQ(trace.nodes[2].duration_micros, 7U);
}

TEST(ChakraTrace, WhatDtsimWritesReadsBackWhole) {
  ChakraTrace trace;
  ChakraNode forward = chakra_node(0, "layer0.fwd", ChakraNodeType::compute);
  forward.duration_micros = 120;
  forward.num_ops = 123'456'789'012;
  forward.tensor_size = 4096;
  ChakraNode reduce = chakra_node(1, "gradients", ChakraNodeType::collective, {0});
  reduce.comm_type = static_cast<int>(ChakraCollective::all_reduce);
  reduce.comm_size = 1 << 30;
  ChakraNode send = chakra_node(2, "activations", ChakraNodeType::send, {0, 1});
  send.comm_dst = 3;
  send.comm_tag = 17;
  send.comm_size = 65536;
  trace.nodes = {forward, reduce, send};
  const ChakraTrace back = read_chakra_trace(written("dtsim.0.et", encode_chakra_trace(trace)));
  EXPECT_EQ(back.version, kChakraVersion);
  ASSERT_EQ(back.nodes.size(), 3U);
  EXPECT_EQ(back.nodes[0].name, "layer0.fwd");
  EXPECT_EQ(*back.nodes[0].num_ops, 123'456'789'012);
  EXPECT_EQ(back.nodes[0].duration_micros, 120U);
  EXPECT_EQ(*back.nodes[1].comm_size, 1 << 30);
  EXPECT_EQ(back.nodes[2].data_deps, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(*back.nodes[2].comm_dst, 3);
  EXPECT_EQ(*back.nodes[2].comm_tag, 17);
  EXPECT_FALSE(back.nodes[2].comm_src.has_value());
  EXPECT_EQ(encode_chakra_trace(back), encode_chakra_trace(trace));
  EXPECT_EQ(chakra_rank_file("out/gpt", 12), std::filesystem::path("out/gpt.12.et"));
}

std::string refusal(const std::string& name, const std::string& bytes) {
  try {
    static_cast<void>(read_chakra_trace(written(name, bytes)));
  } catch (const core::InputError& error) {
    return error.diagnostics().front().message;
  }
  return "no error";
}

TEST(ChakraTrace, AFileThatIsNoTraceIsRefused) {
  const std::string whole = bytes_of(example("all_reduce.0.et"));
  EXPECT_EQ(refusal("empty.0.et", ""), "the file is empty: a Chakra trace begins with its GlobalMetadata");
  EXPECT_EQ(refusal("cut.0.et", whole.substr(0, whole.size() - 5)),
            "the message at byte 8 is cut short: 72 bytes announced");
  EXPECT_EQ(refusal("huge.0.et", whole.substr(0, 8) + std::string("\xff\xff\xff\xff\x0f", 5)),
            "the message at byte 8 claims 4294967295 bytes, more than the 64 MiB a node may hold");
  ChakraTrace orphan;
  orphan.nodes = {chakra_node(4, "x", ChakraNodeType::compute, {9})};
  EXPECT_EQ(refusal("orphan.0.et", encode_chakra_trace(orphan)),
            "node 4 depends on node 9, which the file does not hold");
  ChakraTrace twice;
  twice.nodes = {chakra_node(1, "a", ChakraNodeType::compute), chakra_node(1, "b", ChakraNodeType::compute)};
  EXPECT_EQ(refusal("twice.0.et", encode_chakra_trace(twice)), "node 1 ('b') appears twice");
}

}  // namespace
}  // namespace dtsim::traces
