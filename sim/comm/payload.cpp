#include "sim/comm/payload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dtsim::comm {
namespace {

void require_matching(const Block& block, const Buffer& message) {
  if (block.size() != message.size()) {
    throw std::invalid_argument(fmt::format("message of {} elements for a block of {}", message.size(), block.size()));
  }
  // Mixing real and timing-only data would silently drop values.
  if (block.has_values() != message.has_values()) throw std::logic_error("real and timing-only data mixed in one collective");
}

}  // namespace

Buffer Buffer::sized(std::size_t elements) {
  Buffer buffer;
  buffer.size_ = elements;
  return buffer;
}

Block Block::sized(std::size_t elements) { return {std::span<float>(), elements}; }

Block Block::part(std::size_t begin, std::size_t end) const {
  if (begin > end || end > size_) throw std::out_of_range(fmt::format("part [{}, {}) of a block of {}", begin, end, size_));
  if (!has_values()) return {std::span<float>(), end - begin};
  return Block(values_.subspan(begin, end - begin));
}

Buffer Block::copy() const {
  if (!has_values()) return Buffer::sized(size_);
  return Buffer(std::vector<float>(values_.begin(), values_.end()));
}

void Block::add(const Buffer& message) const {
  require_matching(*this, message);
  if (!has_values()) return;
  const std::span<const float> incoming = message.values();
  for (std::size_t i = 0; i < size_; ++i) values_[i] += incoming[i];
}

void Block::assign(const Buffer& message) const {
  require_matching(*this, message);
  if (!has_values()) return;
  std::copy(message.values().begin(), message.values().end(), values_.begin());
}

void Block::zero() const { std::fill(values_.begin(), values_.end(), 0.0F); }

}  // namespace dtsim::comm
