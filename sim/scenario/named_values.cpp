#include "sim/scenario/named_values.hpp"

namespace dtsim::scenario {

const std::vector<NamedValue<NetworkModel>>& network_models() {
  static const std::vector<NamedValue<NetworkModel>> table{
      {NetworkModel::AlphaBeta, "alpha_beta", "textbook: latency + size / bandwidth, fair sharing"},
      {NetworkModel::Tcp, "tcp", "SimGrid's calibrated TCP model"},
      {NetworkModel::Analytical, "analytical",
       "alpha_beta, with each timing-only collective timed at once for the whole group by max-min sharing of its "
       "links, a pipeline's messages as flows, and workers that behave alike simulated as one (fast at scale)"},
      {NetworkModel::ClosedForm, "closed_form",
       "as analytical, with no contention: each collective takes its algorithm's closed form on its routes' "
       "bottleneck, each message its route's latency and bottleneck (the fastest estimate, for sweeps and "
       "planning)"},
  };
  return table;
}

const NetworkModelTraits& traits_of(NetworkModel model) {
  static const NetworkModelTraits message_by_message{};
  static const NetworkModelTraits analytical{.times_phases_at_once = true, .network_name = "analytical"};
  static const NetworkModelTraits closed_form{.times_phases_at_once = true, .shares_links = false,
                                              .network_name = "closed-form"};
  switch (model) {
    case NetworkModel::AlphaBeta:
    case NetworkModel::Tcp: return message_by_message;
    case NetworkModel::Analytical: return analytical;
    case NetworkModel::ClosedForm: return closed_form;
  }
  return message_by_message;
}

const std::vector<NamedValue<Architecture>>& architectures() {
  static const std::vector<NamedValue<Architecture>> table{
      {Architecture::Allreduce, "allreduce", "peer-to-peer collective"},
      {Architecture::ParameterServer, "parameter_server", "workers push to and pull from servers"},
      {Architecture::Hybrid, "hybrid", "dense parameters by allreduce, sparse ones through servers"},
  };
  return table;
}

const std::vector<NamedValue<Backend>>& backends() {
  static const std::vector<NamedValue<Backend>> table{
      {Backend::Auto, "auto", "CUDA when a device is present, otherwise CPU"},
      {Backend::Cpu, "cpu", "Eigen on the CPU"},
      {Backend::Cuda, "cuda", "CUDA kernels and cuBLAS (softmax_regression, mlp); an error without a device"},
  };
  return table;
}

std::string_view to_string(NetworkModel model) { return name_of(network_models(), model); }
std::string_view to_string(Architecture architecture) { return name_of(architectures(), architecture); }
std::string_view to_string(Backend backend) { return name_of(backends(), backend); }

}  // namespace dtsim::scenario
