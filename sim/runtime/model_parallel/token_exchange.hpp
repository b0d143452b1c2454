#pragma once
// How the devices of an expert group pack the rows they exchange (runtime::MixtureWorker). Device j of a group
// of `devices` holds experts [j m, (j + 1) m), m = experts / devices. A device sends each device the rows of
// its slots routed to that device's experts, by expert and then slot; the tokens themselves lead with one
// count per expert of the receiver, so that it knows which rows are whose. Every later message between the
// two (the experts' outputs, their gradients, the tokens' gradients) carries the same rows in the same order.

#include "models/mixture_passes.hpp"
#include "sim/comm/payload.hpp"

#include <vector>

namespace dtsim::runtime {

/// Per device of the group, the slots of `routing` bound for its experts, by expert then slot.
using SlotsByDevice = std::vector<std::vector<std::size_t>>;
SlotsByDevice slots_by_device(const models::Routing& routing, std::size_t per_device, int devices);

/// The rows of `values` (one per slot) for each device, in its slots' order; with `per_device`, each message
/// led by the count of its rows for each of the receiver's experts.
std::vector<comm::Buffer> slot_messages(const models::RowMatrix& values, const models::Routing& routing,
                                        const SlotsByDevice& by_device, std::size_t per_device = 0);

/// The tokens a device received, one message from each device of the group (its own included).
struct Arrivals {
  std::vector<std::vector<std::size_t>> counts;  ///< [sender][local expert]: rows
  std::vector<models::RowMatrix> tokens;         ///< [local expert]: its tokens, senders in order
};
/// Reads the token messages (slot_messages() with counts) of every sender, rows of `width` values. Throws
/// std::invalid_argument when a message's length does not match its counts.
Arrivals read_tokens(const std::vector<comm::Buffer>& received, std::size_t per_device, std::size_t width);

/// Messages without counts (each sender's rows of `columns` values, in the order it sent its tokens) as one
/// matrix per local expert, senders in order.
std::vector<models::RowMatrix> rows_by_expert(const Arrivals& arrivals, const std::vector<comm::Buffer>& received,
                                              std::size_t columns);
/// The replies to each sender: its tokens' rows of `results` (one matrix per local expert), in its order.
std::vector<comm::Buffer> replies(const Arrivals& arrivals, const std::vector<models::RowMatrix>& results);
/// The replies of every device of the group, rows of `columns` values, put back in slot order.
models::RowMatrix in_slot_order(const std::vector<comm::Buffer>& returned, const SlotsByDevice& by_device,
                                std::size_t slots, std::size_t columns);

}  // namespace dtsim::runtime
