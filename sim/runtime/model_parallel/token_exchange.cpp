#include "sim/runtime/model_parallel/token_exchange.hpp"

#include <stdexcept>

namespace dtsim::runtime {
namespace {

void append_row(std::vector<float>& out, const models::RowMatrix& m, Eigen::Index row) {
  out.insert(out.end(), m.row(row).data(), m.row(row).data() + m.cols());
}

/// Rows of one sender's message, `skip` values in, into each local expert's matrix at the rows its earlier
/// senders left free.
void scatter(std::span<const float> message, std::size_t skip, const std::vector<std::size_t>& counts,
             std::vector<std::size_t>& filled, std::vector<models::RowMatrix>& by_expert) {
  std::size_t at = skip;
  for (std::size_t e = 0; e < counts.size(); ++e) {
    const auto columns = static_cast<std::size_t>(by_expert[e].cols());
    for (std::size_t r = 0; r < counts[e]; ++r, at += columns) {
      by_expert[e].row(static_cast<Eigen::Index>(filled[e]++)) =
          Eigen::Map<const Eigen::RowVectorXf>(message.data() + at, static_cast<Eigen::Index>(columns));
    }
  }
}

std::vector<std::size_t> totals(const Arrivals& arrivals, std::size_t experts) {
  std::vector<std::size_t> out(experts, 0);
  for (const std::vector<std::size_t>& counts : arrivals.counts) {
    for (std::size_t e = 0; e < experts; ++e) out[e] += counts[e];
  }
  return out;
}

std::size_t rows_of(const std::vector<std::size_t>& counts) {
  std::size_t out = 0;
  for (const std::size_t c : counts) out += c;
  return out;
}

}  // namespace

SlotsByDevice slots_by_device(const models::Routing& routing, std::size_t per_device, int devices) {
  SlotsByDevice out(static_cast<std::size_t>(devices));
  for (std::size_t e = 0; e < per_device * out.size(); ++e) {
    const std::vector<std::size_t> slots = models::slots_of(routing, e);
    std::vector<std::size_t>& to = out[e / per_device];
    to.insert(to.end(), slots.begin(), slots.end());
  }
  return out;
}

std::vector<comm::Buffer> slot_messages(const models::RowMatrix& values, const models::Routing& routing,
                                        const SlotsByDevice& by_device, std::size_t per_device) {
  std::vector<comm::Buffer> out;
  out.reserve(by_device.size());
  for (std::size_t j = 0; j < by_device.size(); ++j) {
    std::vector<float> message(per_device, 0.0F);
    for (const std::size_t t : by_device[j]) {
      // Counts are small whole numbers, exact in a float.
      if (per_device > 0) message[routing.expert[t] - j * per_device] += 1.0F;
      append_row(message, values, static_cast<Eigen::Index>(t));
    }
    out.emplace_back(std::move(message));
  }
  return out;
}

Arrivals read_tokens(const std::vector<comm::Buffer>& received, std::size_t per_device, std::size_t width) {
  Arrivals out;
  for (const comm::Buffer& message : received) {
    const std::span<const float> values = message.values();
    if (values.size() < per_device) throw std::invalid_argument("a token message without its counts");
    std::vector<std::size_t>& counts = out.counts.emplace_back();
    for (std::size_t e = 0; e < per_device; ++e) counts.push_back(static_cast<std::size_t>(values[e]));
    if (values.size() != per_device + rows_of(counts) * width) {
      throw std::invalid_argument("a token message's length does not match its counts");
    }
  }
  const std::vector<std::size_t> rows = totals(out, per_device);
  for (std::size_t e = 0; e < per_device; ++e) {
    out.tokens.emplace_back(static_cast<Eigen::Index>(rows[e]), static_cast<Eigen::Index>(width));
  }
  std::vector<std::size_t> filled(per_device, 0);
  for (std::size_t s = 0; s < received.size(); ++s) scatter(received[s].values(), per_device, out.counts[s], filled, out.tokens);
  return out;
}

std::vector<models::RowMatrix> rows_by_expert(const Arrivals& arrivals, const std::vector<comm::Buffer>& received,
                                              std::size_t columns) {
  const std::size_t experts = arrivals.tokens.size();
  const std::vector<std::size_t> rows = totals(arrivals, experts);
  std::vector<models::RowMatrix> out;
  for (std::size_t e = 0; e < experts; ++e) {
    out.emplace_back(static_cast<Eigen::Index>(rows[e]), static_cast<Eigen::Index>(columns));
  }
  std::vector<std::size_t> filled(experts, 0);
  for (std::size_t s = 0; s < received.size(); ++s) {
    if (received[s].size() != rows_of(arrivals.counts[s]) * columns) {
      throw std::invalid_argument("a message's length does not match the tokens its sender sent");
    }
    scatter(received[s].values(), 0, arrivals.counts[s], filled, out);
  }
  return out;
}

std::vector<comm::Buffer> replies(const Arrivals& arrivals, const std::vector<models::RowMatrix>& results) {
  std::vector<comm::Buffer> out;
  std::vector<std::size_t> taken(results.size(), 0);
  for (const std::vector<std::size_t>& counts : arrivals.counts) {
    std::vector<float> message;
    for (std::size_t e = 0; e < results.size(); ++e) {
      for (std::size_t r = 0; r < counts[e]; ++r) append_row(message, results[e], static_cast<Eigen::Index>(taken[e]++));
    }
    out.emplace_back(std::move(message));
  }
  return out;
}

models::RowMatrix in_slot_order(const std::vector<comm::Buffer>& returned, const SlotsByDevice& by_device,
                                std::size_t slots, std::size_t columns) {
  models::RowMatrix out(static_cast<Eigen::Index>(slots), static_cast<Eigen::Index>(columns));
  for (std::size_t j = 0; j < by_device.size(); ++j) {
    if (returned[j].size() != by_device[j].size() * columns) {
      throw std::invalid_argument("a reply's length does not match the tokens sent");
    }
    const std::span<const float> values = returned[j].values();
    for (std::size_t i = 0; i < by_device[j].size(); ++i) {
      out.row(static_cast<Eigen::Index>(by_device[j][i])) =
          Eigen::Map<const Eigen::RowVectorXf>(values.data() + i * columns, static_cast<Eigen::Index>(columns));
    }
  }
  return out;
}

}  // namespace dtsim::runtime
