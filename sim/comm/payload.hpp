#pragma once
// What collectives move and work on. In runs with real math a payload carries float values; in timing-only
// runs (model profiles, collective benchmarks) it carries only its element count, so the same message
// schedules run without memory that grows with ranks x model size.

#include <cstddef>
#include <span>
#include <vector>

namespace dtsim::comm {

/// A message of `size()` floats, 4 bytes each on the wire; `values()` is empty when it carries only a count.
class Buffer {
 public:
  Buffer() = default;
  /// A message carrying `values`.
  explicit Buffer(std::vector<float> values) : values_(std::move(values)), size_(values_.size()) {}
  /// A timing-only message: `elements` floats on the wire, none in memory.
  [[nodiscard]] static Buffer sized(std::size_t elements);

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool has_values() const { return values_.size() == size_ && size_ > 0; }
  [[nodiscard]] std::span<const float> values() const { return values_; }
  /// Moves the values out; the buffer keeps its size.
  [[nodiscard]] std::vector<float> take_values() { return std::move(values_); }

  friend bool operator==(const Buffer&, const Buffer&) = default;

 private:
  std::vector<float> values_;
  std::size_t size_ = 0;
};

/// Size of a message on the wire, in bytes.
inline double wire_bytes(const Buffer& buffer) { return 4.0 * static_cast<double>(buffer.size()); }

/// The data a collective works on in place: a span of real values, or in timing-only runs a count alone.
class Block {
 public:
  Block(std::span<float> values) : values_(values), size_(values.size()) {}  // NOLINT(google-explicit-constructor)
  Block(std::vector<float>& values) : Block(std::span<float>(values)) {}     // NOLINT(google-explicit-constructor)
  /// A timing-only block of `elements` floats.
  [[nodiscard]] static Block sized(std::size_t elements);

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool has_values() const { return values_.size() == size_ && size_ > 0; }
  [[nodiscard]] std::span<float> values() const { return values_; }

  /// Elements [begin, end).
  [[nodiscard]] Block part(std::size_t begin, std::size_t end) const;
  /// A message holding a copy of this block (only its size when timing-only).
  [[nodiscard]] Buffer copy() const;
  /// Adds `message` elementwise. Throws std::invalid_argument when the sizes differ, std::logic_error
  /// when one has values and the other does not.
  void add(const Buffer& message) const;
  /// Overwrites this block with `message`; throws as add() does.
  void assign(const Buffer& message) const;
  /// Sets every element to zero.
  void zero() const;

 private:
  Block(std::span<float> values, std::size_t size) : values_(values), size_(size) {}
  std::span<float> values_;
  std::size_t size_;
};

}  // namespace dtsim::comm
