#include "sim/runtime/worker_group.hpp"

namespace dtsim::runtime {

WorkerGroup::WorkerGroup(const TrainingContext& context, const std::string& name, std::vector<int> members,
                         int position, const Meter& meter)
    : members_(std::move(members)),
      transport_(std::make_unique<S4uTransport>(name, position, static_cast<int>(members_.size()), meter)) {
  const std::span<const int> all = context.setup->graph.worker_machines();
  for (const int member : members_) machines_.push_back(all[static_cast<std::size_t>(member)]);
  transport_->set_hosts(members_);
  transport_->set_machines(machines_);
  transport_->set_traffic(context.traffic);
}

}  // namespace dtsim::runtime
