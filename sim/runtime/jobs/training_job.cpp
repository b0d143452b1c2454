#include "sim/runtime/jobs/training_job.hpp"

#include "models/pipeline_plan.hpp"
#include "sim/scenario/expert_grid.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include "sim/runtime/context/job_pause.hpp"
#include "sim/runtime/data_parallel/allreduce_worker.hpp"
#include "sim/runtime/data_parallel/hybrid_actors.hpp"
#include "sim/runtime/data_parallel/mirrored_ranks.hpp"
#include "sim/runtime/data_parallel/parameter_server_actors.hpp"
#include "sim/runtime/model_parallel/mixture_worker.hpp"
#include "sim/runtime/model_parallel/model_parallel_worker.hpp"
#include "sim/runtime/model_parallel/split_mlp_worker.hpp"
#include "sim/runtime/model_parallel/timing_only_worker.hpp"
#include "sim/runtime/network/background_traffic.hpp"
#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/network/network_backend.hpp"
#include "sim/runtime/observe/energy_meter.hpp"
#include "sim/runtime/observe/run_recorder.hpp"
#include "sim/runtime/recovery/checkpoint_transfer.hpp"
#include "sim/runtime/recovery/elastic_group.hpp"
#include "sim/runtime/recovery/link_failures.hpp"
#include "sim/runtime/setup/platform_spec.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <thread>
#include <optional>
#include <stdexcept>
#include <utility>

namespace dtsim::runtime {

namespace {

/// Expert parallelism: the all-to-alls each worker runs, by rank. Each micro-batch passes every mixture block
/// of a worker's chunks forward (tokens dispatched, outputs combined) and backward (their gradients), and
/// under full recomputation forward once more; under DualPipe each chunk runs one direction's half of them.
std::vector<std::int64_t> all_to_alls_by_worker(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  const scenario::ParallelismSpec& plan = scenario.training.parallelism;
  const std::int64_t per_block = scenario.training.recomputation == models::Recomputation::Full ? 6 : 4;
  std::vector<std::int64_t> out;
  for (int rank = 0; rank < scenario.cluster.workers; ++rank) {
    const int device = scenario::coordinates_of(plan, rank)[scenario::ParallelAxis::Pipeline];
    std::int64_t blocks = 0;
    for (int chunk = 0; chunk < models::chunks_per_device(plan.schedule, plan.virtual_stages); ++chunk) {
      const auto stage =
          static_cast<std::size_t>(models::chunk_place(plan.schedule, plan.pipeline, plan.virtual_stages, device, chunk).stage);
      for (std::size_t layer = setup.stage_layers[stage]; layer < setup.stage_layers[stage + 1]; ++layer) {
        blocks += setup.profile().layers[layer].exchange == models::TokenExchange::Dispatch ? 1 : 0;
      }
    }
    out.push_back(blocks * per_block * models::chunk_microbatches(plan.schedule, plan.microbatches) *
                  setup.total_iterations);
  }
  return out;
}

/// Uneven routing: every draw the expert groups make over the run (runtime::RoutingLoads draws the same).
metrics::RoutingRecord routing_record(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  const scenario::ParallelismSpec& plan = scenario.training.parallelism;
  const models::ModelProfile& profile = setup.profile();
  std::vector<int> blocks;
  for (const models::LayerProfile& layer : profile.layers) {
    if (layer.exchange == models::TokenExchange::Dispatch) blocks.push_back(layer.block);
  }
  const int experts = profile.shape.experts;
  // A draw routes every device's micro-batch of the group: its samples' tokens, top_k copies each; on the experts'
  // own grid, each tensor rank routes its share of them.
  const int groups = scenario::expert_groups_routing(plan);
  const int sharing = scenario::on_expert_grid(plan) ? plan.tensor * plan.context : 1;
  const double copies = static_cast<double>(plan.expert) * scenario.training.batch_per_worker / plan.microbatches *
                        profile.shape.sequence * profile.shape.top_k / sharing;
  metrics::RoutingRecord out;
  out.tokens_per_expert.assign(static_cast<std::size_t>(experts), 0.0);
  double draws = 0.0;
  double max_loads = 0.0;
  double max_works = 0.0;
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    for (int microbatch = 0; microbatch < plan.microbatches; ++microbatch) {
      for (const int block : blocks) {
        for (int group = 0; group < groups; ++group) {
          const models::RoutingDraw draw = models::draw_routing(scenario.training.routing, experts, profile.shape.top_k,
                                                                scenario.seed, {iteration, microbatch, block, group});
          std::vector<double> kept = draw.kept();
          std::sort(kept.begin(), kept.end(), std::greater<>());
          for (std::size_t e = 0; e < kept.size(); ++e) out.tokens_per_expert[e] += kept[e] * copies;
          const double ratio = draw.busiest_load(plan.expert);
          max_loads += ratio;
          out.busiest_load = std::max(out.busiest_load, ratio);
          const std::vector<double> loads = draw.rank_loads(plan.expert);
          const double work = *std::max_element(loads.begin(), loads.end());
          max_works += work;
          out.busiest_work = draws == 0.0 ? work : std::max(out.busiest_work, work);
          out.routed_tokens += copies;
          out.dropped_tokens += draw.dropped() * copies;
          draws += 1.0;
        }
      }
    }
  }
  for (double& tokens : out.tokens_per_expert) tokens /= std::max(1.0, draws);
  out.mean_max_load = draws > 0.0 ? max_loads / draws : 1.0;
  out.mean_max_work = draws > 0.0 ? max_works / draws : 1.0;
  return out;
}

/// A run's record before it runs: what the scenario and the setup say of it.
metrics::RunRecord fresh_record(const scenario::Scenario& scenario, const TrainingSetup& setup) {
  metrics::RunRecord record;
  record.simgrid_version = simgrid_version();
  record.iterations = setup.total_iterations;
  record.projected_iterations = setup.projected_iterations;
  record.optimizer_values = setup.make_optimizer(0)->state_per_parameter();
  record.memory = setup.memory;
  if (is_timing_only(setup.mode)) {
    record.model_flops_per_sample = setup.profile().training_flops();
    record.tokens_per_sample = setup.profile().shape.sequence;
    const scenario::ParallelismSpec& plan = scenario.training.parallelism;
    if (plan.pipeline > 1) {
      // ZB-H1's bubble depends on how the backward pass splits: read from the first stage's layers.
      double forward = 0.0;
      double weights = 0.0;
      double backward = 0.0;
      for (std::size_t layer = setup.stage_layers[0]; layer < setup.stage_layers[1]; ++layer) {
        const models::LayerProfile& l = setup.profile().layers[layer];
        forward += l.forward_flops;
        backward += l.backward_flops;
        weights += models::weight_gradient_flops(l);
      }
      record.bubble_closed_form =
          models::bubble_closed_form(plan.schedule, plan.pipeline, plan.microbatches, plan.virtual_stages,
                                     forward, backward - weights, weights);
    }
    record.samples_per_iteration =
        static_cast<std::int64_t>(scenario.training.batch_per_worker) * scenario.training.parallelism.data;
    if (plan.expert > 1) record.all_to_alls = all_to_alls_by_worker(scenario, setup);
    if (plan.expert > 1 && !scenario.training.routing.even()) record.routing = routing_record(scenario, setup);
  }
  if (setup.mode == RunMode::Experts) {
    // Dispatch and combine forward, their gradients backward, per micro-batch (MixtureWorker).
    const scenario::ParallelismSpec& plan = scenario.training.parallelism;
    record.all_to_alls.assign(static_cast<std::size_t>(scenario.cluster.workers),
                              4 * plan.microbatches * setup.total_iterations);
  }
  if (setup.mode == RunMode::Split && scenario.training.parallelism.pipeline > 1) {
    const scenario::ParallelismSpec& plan = scenario.training.parallelism;
    record.bubble_closed_form =
        models::bubble_closed_form(plan.schedule, plan.pipeline, plan.microbatches, 1, 0.0, 0.0, 0.0);
  }
  // A timing-only run has no data, so no epochs.
  record.iterations_per_epoch =
      is_timing_only(setup.mode) ? 0 : static_cast<std::int64_t>(setup.schedule.iterations_per_epoch());
  record.parameter_count =
      is_timing_only(setup.mode) ? static_cast<std::size_t>(std::llround(setup.profile().parameters())) : setup.model().parameter_count();
  record.active_parameter_count = is_timing_only(setup.mode)
                                      ? static_cast<std::size_t>(std::llround(setup.profile().active_parameters()))
                                      : setup.model().active_parameter_count();
  for (std::size_t rank = 0; rank < setup.graph.workers().size(); ++rank) {
    record.hosts.push_back({setup.graph.node(setup.graph.workers()[rank]).name, "worker"});
    record.hosts.back().site = setup.graph.worker_sites()[rank];
  }
  record.site_names.assign(setup.graph.site_names().begin(), setup.graph.site_names().end());
  for (const topology::NodeId node : setup.graph.servers()) record.hosts.push_back({setup.graph.node(node).name, "server"});
  return record;
}

/// Starts the run's actors: one per simulated worker, of the kind its run needs, and one per server shard.
/// `server_rows`: a hybrid's rows, which worker 0's evaluations read; `actors` gains each actor. Returns what the
/// devices of a model split for real share (null for the other runs).
std::shared_ptr<ShareAssembly> start_actors(EngineSession& session, const TrainingContext& context,
                                            const StandIns& stand_ins, models::Parameters& server_rows,
                                            std::vector<simgrid::s4u::ActorPtr>& actors) {
  const scenario::Scenario& scenario = *context.scenario;
  const TrainingSetup& setup = *context.setup;
  const auto workers = setup.graph.workers();
  const scenario::Architecture architecture = scenario.training.architecture;
  if (setup.mode == RunMode::Hybrid) server_rows = setup.model().initial_parameters();
  // A model trained for real split over devices: their shares assemble the whole for the evaluations.
  const std::shared_ptr<ShareAssembly> assembly =
      setup.mode == RunMode::Split || setup.mode == RunMode::Experts ? make_share_assembly(setup) : nullptr;
  for (const int r : stand_ins.simulated()) {
    simgrid::s4u::Host* host = session.host(workers[static_cast<std::size_t>(r)]);
    const std::string& name = host->get_name();
    actors.push_back([&]() -> simgrid::s4u::ActorPtr {
      switch (setup.mode) {
        case RunMode::DataParallel: return simgrid::s4u::Actor::create(name, host, AllreduceWorker(context, r));
        case RunMode::Split: return simgrid::s4u::Actor::create(name, host, SplitMlpWorker(context, r, assembly));
        case RunMode::Experts: return simgrid::s4u::Actor::create(name, host, MixtureWorker(context, r, assembly));
        case RunMode::ParameterServer: return simgrid::s4u::Actor::create(name, host, ParameterServerWorker(context, r));
        case RunMode::Hybrid: return simgrid::s4u::Actor::create(name, host, HybridWorker(context, r, &server_rows));
        case RunMode::TimingDataParallel: return simgrid::s4u::Actor::create(name, host, TimingOnlyWorker(context, r));
        case RunMode::TimingModelParallel: return simgrid::s4u::Actor::create(name, host, ModelParallelWorker(context, r));
      }
      throw std::logic_error("a run mode without actors");
    }());
  }
  if (scenario::has_servers(architecture)) {
    const auto servers = setup.graph.servers();
    if (static_cast<int>(servers.size()) < scenario.training.shards) {
      throw std::logic_error("an architecture with servers has fewer servers than shards");
    }
    for (int shard = 0; shard < scenario.training.shards; ++shard) {
      simgrid::s4u::Host* host = session.host(servers[static_cast<std::size_t>(shard)]);
      if (architecture == scenario::Architecture::Hybrid) {
        actors.push_back(simgrid::s4u::Actor::create(host->get_name(), host, HybridServer(context, shard, &server_rows)));
      } else {
        actors.push_back(simgrid::s4u::Actor::create(host->get_name(), host, ParameterServer(context, shard)));
      }
    }
  }
  return assembly;
}

/// The threads of a run's pool for its workers' real math: the setup's (the machine's cores by default), none for a
/// timing-only run or a model that computes on the simulation's thread only.
int pool_threads(const TrainingSetup& setup) {
  if (is_timing_only(setup.mode) || !setup.model().computes_concurrently()) return 1;
  return setup.threads > 0 ? setup.threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

/// Lock-step allreduce jobs with failures meet at the end of each iteration (FailureRecovery).
FailureMeetings failure_meetings(const scenario::Scenario& scenario, std::size_t workers) {
  FailureMeetings out;
  const bool meets = scenario.failures.enabled && scenario.training.architecture == scenario::Architecture::Allreduce &&
                     (!scenario.failures.events.empty() || scenario.failures.mtbf_s);
  if (meets && scenario.failures.elastic) {
    out.recovery = FailureRecovery::elastic;
    std::vector<int> everyone(workers);
    std::iota(everyone.begin(), everyone.end(), 0);
    out.elastic.members.push_back(std::move(everyone));
    out.elastic.meetings.push_back(simgrid::s4u::Barrier::create(static_cast<unsigned>(workers)));
  } else if (meets) {
    out.recovery = FailureRecovery::roll_back;
    out.everyone = simgrid::s4u::Barrier::create(static_cast<unsigned>(workers));
  }
  return out;
}

std::vector<std::string> names_of(const topology::TopologyGraph& graph, std::span<const topology::NodeId> nodes) {
  std::vector<std::string> out;
  for (const topology::NodeId node : nodes) out.push_back(graph.node(node).name);
  return out;
}

/// The links that fail and come back, as the scenario says: an actor on worker 0's host that only sleeps and
/// changes routes, a daemon, so that it ends with training.
void start_link_failures(EngineSession& session, const scenario::Scenario& scenario, const topology::TopologyGraph& graph,
                         RunObserver& observers) {
  if (scenario.failures.link_events.empty()) return;
  simgrid::s4u::Actor::create("link-failures", session.host(graph.workers()[0]),
                              LinkFailures(scenario.failures, graph, *session.platform().zone, observers))
      ->daemonize();
}

/// Each link direction's bytes, for links.csv.
void record_links(metrics::RunRecord& record, const topology::TopologyGraph& graph, const topology::LinkTraffic& traffic) {
  for (std::size_t id = 0; id < graph.link_count(); ++id) {
    const topology::LinkProperties& link = graph.link(id);
    const std::string& a = graph.node(graph.link_ends(id).a).name;
    const std::string& b = graph.node(graph.link_ends(id).b).name;
    record.links.push_back({link.name, link.link_class, a, b, link.bandwidth.value(), traffic.forward(id)});
    if (!link.one_way) record.links.push_back({link.name, link.link_class, b, a, link.bandwidth.value(), traffic.backward(id)});
  }
}

}  // namespace

struct TrainingJob::State {
  State(EngineSession& session, const scenario::Scenario& scenario, const TrainingSetup& setup,
        const ProgressCallback& progress, RunObserver* observer, std::string prefix);

  EngineSession* session;
  const scenario::Scenario* scenario;
  const TrainingSetup* setup;
  ProgressCallback progress;
  metrics::RunRecord record;
  RunRecorder recorder{record};
  ObserverList observers;
  // Ranks standing for others (worker 0 for all, or replica 0's for every replica): the record copies their
  // activity at the end, other observers (a timeline) hear their events once per rank they stand for.
  Mirroring mirroring;
  int worker_count;
  StandIns stand_ins;
  std::vector<std::string> worker_names;
  std::optional<MirroredRanks> mirrored_record;
  std::optional<MirroredRanks> mirrored_observer;
  topology::LinkTraffic traffic;
  PhaseShortcut shortcut;
  std::vector<StepSlowdown> step_slowdowns;
  std::optional<EnergyMeter> energy;
  FailureMeetings meetings;
  std::optional<TargetStop> target_stop;
  // The furthest iteration any worker finished: what a job that stopped early (a partition, a lost job) did.
  std::int64_t reached = 0;
  std::unique_ptr<AnalyticalNetwork> analytical;
  std::optional<GossipPeers> gossip;
  std::optional<WorkPool> pool;
  std::optional<comm::ValueMeetings> value_meetings;
  std::optional<TrainingContext> context;
  // Hybrid: the servers' rows, which worker 0's evaluations read (an observation, not a message).
  models::Parameters server_rows;
  std::shared_ptr<ShareAssembly> assembly;
  std::optional<JobPause> pause;
  /// Parameter-server workers out of lock step: each one's steps so far (TrainingContext::worker_steps).
  std::vector<std::int64_t> worker_steps;
};

TrainingJob::State::State(EngineSession& session_, const scenario::Scenario& scenario_, const TrainingSetup& setup_,
                          const ProgressCallback& progress_, RunObserver* observer, std::string prefix)
    : session(&session_),
      scenario(&scenario_),
      setup(&setup_),
      progress(progress_),
      record(fresh_record(scenario_, setup_)),
      mirroring(mirroring_of(scenario_, setup_)),
      worker_count(static_cast<int>(setup_.graph.workers().size())),
      stand_ins(scenario_.training.parallelism, worker_count, mirroring),
      worker_names(names_of(setup_.graph, setup_.graph.workers())),
      traffic(setup_.graph, session_.routes()),
      shortcut(setup_.graph, session_.routes(),
               std::vector<topology::NodeId>(setup_.graph.workers().begin(), setup_.graph.workers().end()),
               scenario_.topology.network_model == scenario::NetworkModel::Tcp),
      meetings(failure_meetings(scenario_, setup_.graph.workers().size())),
      analytical(network_backend(scenario_.topology.network_model).make_network(setup_.graph, session_.routes())) {
  const bool mirrored = mirroring != Mirroring::none;
  observers.add(mirrored ? mirrored_record.emplace(recorder, stand_ins, worker_names, false)
                         : static_cast<RunObserver&>(recorder));
  if (observer != nullptr && mirrored) observer = &mirrored_observer.emplace(*observer, stand_ins, worker_names, true);
  if (observer != nullptr) observers.add(*observer);
  for (int rank = 0; rank < worker_count; ++rank) step_slowdowns.emplace_back(scenario_.cluster.random_slowdowns, scenario_.seed, rank);
  if (scenario_.energy.enabled) energy.emplace(scenario_, setup_.graph, session_.platform(), record);
  if (energy && mirrored) energy->read_workers_from([this](int rank) { return stand_ins.stand_in(rank); }, worker_count);
  if (scenario_.training.stops_at_target()) {
    target_stop.emplace();
    target_stop->lock_step = setup_.mode == RunMode::DataParallel && setup_.sync->bulk_synchronous();
  }
  if (mirroring == Mirroring::replicas) analytical->set_replicas(stand_ins.stands_for_each());
  const bool timing_only = is_timing_only(setup_.mode);
  const ProgressCallback counting = [this, timing_only](const Progress& now) {
    reached = std::max(reached, now.iteration);
    if (analytical) analytical->flush(traffic);
    observers.on_iteration(now.iteration, now.sim_time_s, traffic);
    if (timing_only && std::cmp_greater(now.iteration, record.iteration_ends.size())) {
      record.iteration_ends.push_back(now.sim_time_s);
    }
    if (progress) progress(now);
  };
  if (setup_.mode == RunMode::DataParallel && setup_.sync->gossip()) gossip.emplace(setup_.graph, worker_count, scenario_.seed);
  if (const int threads = pool_threads(setup_); threads > 1) pool.emplace(threads);
  if (values_apart_in(scenario_, setup_)) value_meetings.emplace();
  const RunNetwork network{.traffic = &traffic,
                           .routes = nullptr,
                           .analytical = analytical.get(),
                           .shortcut = may_shorten_phases(scenario_, setup_) && !analytical ? &shortcut : nullptr,
                           .values = value_meetings ? &*value_meetings : nullptr,
                           .prefix = std::move(prefix)};
  context.emplace(TrainingContext{&scenario_, &setup_, &observers, counting, network, &step_slowdowns,
                                  energy ? &*energy : nullptr, &meetings, mirroring,
                                  target_stop ? &*target_stop : nullptr, pool ? &*pool : nullptr,
                                  gossip ? &*gossip : nullptr});
  // Out of lock step, worker 0's steps are not the samples the run has seen: its evaluations count everyone's.
  if (setup_.mode == RunMode::ParameterServer && !setup_.sync->lock_step()) {
    worker_steps.assign(static_cast<std::size_t>(worker_count), 0);
    context->worker_steps = &worker_steps;
  }
}

TrainingJob::TrainingJob(EngineSession& session, const scenario::Scenario& scenario, const TrainingSetup& setup,
                         const ProgressCallback& progress, RunObserver* observer, std::string prefix)
    : state_(std::make_unique<State>(session, scenario, setup, progress, observer, std::move(prefix))) {}

TrainingJob::~TrainingJob() = default;

JobPause& TrainingJob::make_preemptible(double checkpoint_bytes_per_s, std::function<void()> left) {
  State& s = *state_;
  // One copy of the whole model's state: replicas hold copies, the devices of a split model its parts.
  const double checkpoint_s = checkpoint_transfer_s(checkpoint_bytes_per_s, s.record.parameter_count, *s.setup->make_optimizer(0));
  s.pause.emplace(static_cast<int>(s.stand_ins.simulated().size()), checkpoint_s, s.setup->total_iterations, std::move(left));
  s.context->pause = &*s.pause;
  return *s.pause;
}

void TrainingJob::share_links(LinkSharing& sharing, int job) {
  if (state_->analytical) state_->analytical->share_links(sharing, job);
}

std::vector<simgrid::s4u::ActorPtr> TrainingJob::start() {
  std::vector<simgrid::s4u::ActorPtr> actors;
  state_->assembly = start_actors(*state_->session, *state_->context, state_->stand_ins, state_->server_rows, actors);
  return actors;
}

void TrainingJob::start_link_failures() {
  runtime::start_link_failures(*state_->session, *state_->scenario, state_->setup->graph, state_->observers);
}

metrics::RunRecord TrainingJob::finish(double end_s) {
  State& s = *state_;
  metrics::RunRecord& record = s.record;
  record.simulated_s = end_s;
  if (s.analytical) s.analytical->flush(s.traffic);
  if (record.partition || record.job_lost_s) record.iterations = s.reached;
  if (s.target_stop && s.target_stop->stopped) {
    record.iterations = *s.target_stop->stopped;
    record.stopped_at_target = true;
  }
  if (s.mirroring != Mirroring::none) {
    record.simulated_workers = static_cast<int>(s.stand_ins.simulated().size());
    copy_stand_ins(record, s.stand_ins);
  }
  if (s.energy) s.energy->finish(record);
  if (s.assembly && s.assembly->gate_loads) record.routing = s.assembly->gate_loads->record();
  record_links(record, s.setup->graph, s.traffic);
  return std::move(record);
}

}  // namespace dtsim::runtime
