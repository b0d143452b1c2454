#pragma once
// The seam between communication algorithms and the simulator. Collectives and the parameter-server
// protocol are straight-line code over this interface; the runtime implements it with SimGrid mailboxes,
// tests with threads and queues.

#include <span>
#include <vector>

namespace dtsim::comm {

/// Message payload: real values, 4 bytes each on the wire.
using Buffer = std::vector<float>;

/// Size of a buffer on the wire, in bytes.
inline double wire_bytes(const Buffer& buffer) { return 4.0 * static_cast<double>(buffer.size()); }

/// Point-to-point messaging among `size()` ranks; this endpoint is `rank()`.
class Transport {
 public:
  virtual ~Transport() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// Returns once `to` has received the whole message.
  virtual void send(int to, Buffer data) = 0;
  /// Returns once a message from `from` has arrived.
  virtual Buffer recv(int from) = 0;
  /// Sends to `to` while receiving from `from`; returns once both are done.
  virtual Buffer send_recv(int to, Buffer data, int from) = 0;
  /// Receives one message from each rank in `from`, all at once; results in the order of `from`.
  virtual std::vector<Buffer> recv_from_each(std::span<const int> from) = 0;
  /// Sends `data[i]` to `to[i]` for every i, all at once; returns once all are delivered.
  virtual void send_to_each(std::span<const int> to, std::vector<Buffer> data) = 0;
  /// Sends `data[i]` to `to[i]` and receives one message from each rank in `from`, all at once; returns
  /// once everything has arrived. Results in the order of `from`.
  virtual std::vector<Buffer> exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) = 0;
};

}  // namespace dtsim::comm
