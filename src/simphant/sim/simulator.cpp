#include "simphant/sim/simulator.hpp"

#include "simphant/sim/sensitivity_engine.hpp"
#include "simphant/sim/sensitivity_seeds.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <stdexcept>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/auto_projection.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/shift_choice.hpp"
#include "simphant/sim/backend_rules.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/cpu_simd_engine.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/centre_of_mass.hpp"
#include "simphant/sim/contact_frames.hpp"
#include "simphant/sim/joint_load_frames.hpp"
#include "simphant/sim/link_frames.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/topology.hpp"

namespace simphant {
namespace {

// All instance models must share one topology: the backends size Data once.
void check_same_topology(const std::vector<Model>& models) {
  for (size_t i = 1; i < models.size(); ++i) {
    const std::string diff = topology_difference(models.front(), models[i]);
    if (!diff.empty())
      throw std::invalid_argument("Simulator: instance " + std::to_string(i) + "'s model differs in topology or dt (" +
                                  diff + ")");
  }
}

}  // namespace

std::unique_ptr<Simulator> Simulator::create(std::vector<Model> models, const SimulatorOptions& options, int n_instances) {
  if (models.empty()) throw std::invalid_argument("Simulator: no model");
  if (n_instances <= 0) n_instances = static_cast<int>(models.size());
  if (models.size() != 1 && static_cast<int>(models.size()) != n_instances)
    throw std::invalid_argument("Simulator: " + std::to_string(models.size()) + " models for " +
                                std::to_string(n_instances) + " instances (need 1 or one per instance)");
  check_same_topology(models);
  set_removed_rows(models);  // solver.redundant_rows (dynamics/redundant_rows.hpp)
  set_run_shift(models);     // the run's tikhonov_epsilon (dynamics/shift_choice.hpp)
  set_auto_projection(models);  // solver.projection auto (dynamics/auto_projection.hpp)
  auto shared = std::make_shared<const std::vector<Model>>(std::move(models));
  if (options.backend != "auto" && options.backend != "cpu" && options.backend != "cpu-simd" &&
      options.backend != "cuda" && options.backend != "cuda-fused")
    throw std::invalid_argument("unknown backend '" + options.backend + "' (auto, cpu, cpu-simd, cuda or cuda-fused)");
  const SchurFactorization schur = parse_schur_factorization(options.schur);
  const bool named_cuda = options.backend == "cuda" || options.backend == "cuda-fused";
  if (options.precision != "fp64" && options.precision != "fp32")
    throw std::invalid_argument("unknown precision '" + options.precision + "' (fp64 or fp32)");
  // The settings no machine runs (sim/backend_rules.hpp).
  if (const std::optional<BackendRefusal> r =
          refuse_backend_settings({options.backend, options.precision, shared->front().solver.integrator}))
    throw std::invalid_argument(r->setting + ": " + r->reason);
  const bool bdf = shared->front().solver.integrator == Integrator::Bdf;
  const bool joint_space = shared->front().robot && shared->front().robot->solver != RobotSolver::Dae;
  if (options.backend == "cpu-simd" && !joint_space) {
    const std::string why = cpu_simd_unsupported(shared->front());
    if (!why.empty()) throw std::invalid_argument("backend cpu-simd: " + why + " (use backend cpu)");
  }
  // The backend (sim/backend_rules.hpp: the automatic choice), decided for the whole
  // design (auto_instances) so that a shard runs the one-shot run's.
  const long long auto_n = options.auto_instances > 0 ? options.auto_instances : n_instances;
  const std::string chosen = choose_backend(shared->front(), options.backend, options.schur, auto_n,
                                            options.backend == "auto" && !bdf ? cuda_device_count() : 0);
  const bool cuda = chosen == "cuda" || chosen == "cuda-fused";
  if (!cuda && options.precision != "fp64")  // auto without a device
    throw std::invalid_argument("precision: fp32 runs on the cuda backends only (backend auto found no CUDA device; the "
                                "cpu backends run fp64)");
  // A robot scene with solver aba / cga runs in joint coordinates (docs/robots.md): on the
  // GPU one thread per instance (host/cuda_reduced_backend.cuh; `cuda` and `cuda-fused`
  // name the same path), on the CPU the reduced backend.
  if (joint_space) {
    std::unique_ptr<Backend> reduced;
    if (cuda) {
      require_cuda_device(named_cuda ? options.backend : "cuda");
      cuda_reduced_check_fits(shared->front(), n_instances, shared->size() > 1, options.precision);
      reduced = make_cuda_reduced_backend(shared, n_instances, options.precision);
    } else {
      // `cpu` is the scalar reference; `cpu-simd` steps in SIMD lanes, and so does `auto`
      // when the batch fills at least one group of lanes (as for the DAE path).
      reduced = std::make_unique<ReducedBackend>(shared, n_instances, options.threads, chosen == "cpu-simd");
    }
    std::unique_ptr<Simulator> sim(new Simulator(shared, std::move(reduced)));
    sim->threads_ = options.threads;
    return sim;
  }
  std::unique_ptr<Backend> backend;
  if (cuda) {
    const bool fused = chosen == "cuda-fused";
    require_cuda_device(fused ? "cuda-fused" : "cuda");
    cuda_check_fits(shared->front(), n_instances, batch::count_varied_params(*shared), fused ? "cuda-fused" : "cuda",
                    options.precision);
    backend = make_cuda_backend(shared, n_instances, assemble_batch(*shared, n_instances, options.threads),
                                options.precision, options.use_cuda_graph, fused);
  } else {
    backend = std::make_unique<CpuBackend>(shared, n_instances, options.threads, schur, chosen == "cpu-simd");
  }
  std::unique_ptr<Simulator> sim(new Simulator(shared, std::move(backend)));
  sim->threads_ = options.threads;
  return sim;
}

Simulator::Simulator(std::shared_ptr<const std::vector<Model>> models, std::unique_ptr<Backend> backend)
    : models_(std::move(models)), backend_(std::move(backend)),
      episodes_(static_cast<std::size_t>(backend_->n_instances()), 0), ids_(backend_->n_instances()) {}

Simulator::~Simulator() = default;

void Simulator::refuse_with_sensitivities(const char* call) const {
  if (sensitivities_)
    throw std::logic_error(std::string(call) + ": not available with sensitivities (it would change the state or the "
                           "model behind the tangents; docs/sensitivities.md)");
}

void Simulator::advance(int n_steps) {
  if (sensitivities_ && n_steps > 0) sensitivities_->advance(backend_->steps_taken(), n_steps);
  backend_->advance(n_steps);
  touched_ = touched_ || n_steps > 0;
}

ArrayView Simulator::state_view() {
  refuse_with_sensitivities("state_view");
  touched_ = true;  // a write through the view would bypass sensitivities enabled later
  return backend_->state_view();
}

ArrayView Simulator::inputs_view() {
  refuse_with_sensitivities("inputs_view");
  touched_ = true;
  return backend_->inputs_view();
}

void Simulator::set_inputs_device(const double* d_u) {
  refuse_with_sensitivities("set_inputs_device");
  backend_->set_inputs_device(d_u);
  touched_ = true;
}

void Simulator::set_models(const int* ids, int count, const Model* models) {
  refuse_with_sensitivities("set_models");
  backend_->set_models(ids, count, models);
  note_models(ids, count, models);
  touched_ = true;
}

void Simulator::enable_sensitivities(const std::vector<std::string>& paths,
                                     const std::vector<std::vector<double>>& values) {
  if (sensitivities_) throw std::invalid_argument("sensitivities: already enabled");
  if (touched_)
    throw std::invalid_argument("sensitivities: enable them on the batch as created, before any advance, set_inputs, "
                                "set_state, set_models, set_parameters or reset with resample");
  if (paths.empty()) throw std::invalid_argument("sensitivities.parameters: no parameter");
  for (std::size_t s = 0; s < paths.size(); ++s)
    for (std::size_t t = 0; t < s; ++t)
      if (paths[s] == paths[t])
        throw std::invalid_argument("sensitivities.parameters[" + std::to_string(s) + "]: " + paths[s] +
                                    " is listed twice");
  if (const std::string why = sensitivity_unsupported(model()); !why.empty()) throw std::invalid_argument(why);
  if (!resampler_)
    throw std::logic_error("sensitivities: need the scene this Simulator was made from (make_simulator)");
  const int n = n_instances();
  if (values.size() != paths.size())
    throw std::invalid_argument("sensitivities: " + std::to_string(values.size()) + " value rows for " +
                                std::to_string(paths.size()) + " paths");
  for (const std::vector<double>& v : values)
    if (static_cast<int>(v.size()) != n)
      throw std::invalid_argument("sensitivities: a value row does not have one value per instance");
  SensitivitySeeds seeds =
      sensitivity_seeds(paths, values, n, models_->size() == 1, [this](int i, const ParameterOverrides& o) {
        ParameterOverrides merged = overrides_.empty() ? ParameterOverrides{} : overrides_[static_cast<std::size_t>(i)];
        merged.insert(merged.end(), o.begin(), o.end());
        return rebuild(i, episodes_[static_cast<std::size_t>(i)], merged);
      });
  sensitivities_ = make_sensitivity_engine(models_, n, std::move(seeds), threads_);
  const std::size_t S = paths.size();
  sensitivity_values_.resize(static_cast<std::size_t>(n) * S);
  for (std::size_t s = 0; s < S; ++s)
    for (int i = 0; i < n; ++i)
      sensitivity_values_[static_cast<std::size_t>(i) * S + s] = values[s][static_cast<std::size_t>(i)];
  sensitivities_->set_reductions(backend_->reduction_layout());
  start_sensitivities(nullptr, n);
}

void Simulator::start_sensitivities(const int* ids, int count) {
  std::vector<double> y(static_cast<std::size_t>(count) * state_size());
  std::vector<std::int8_t> status(static_cast<std::size_t>(count));
  backend_->get_state(ids, count, y.data(), nullptr, status.data(), nullptr, nullptr);
  sensitivities_->start(ids, count, y.data(), status.data(), backend_->steps_taken());
}

std::vector<std::uint8_t> Simulator::sensitivity_crossed() const {
  if (!sensitivities_) return {};
  std::vector<std::int8_t> status(static_cast<std::size_t>(n_instances()));
  backend_->get_state(nullptr, n_instances(), nullptr, nullptr, status.data(), nullptr, nullptr);
  std::vector<std::uint8_t> crossed = sensitivities_->crossed();
  for (std::size_t i = 0; i < crossed.size(); ++i) crossed[i] = crossed[i] && status[i] == 0;  // ok
  return crossed;
}

std::vector<RefinementRecord> Simulator::sensitivity_refinement() const {
  if (!sensitivities_) return {};
  std::vector<RefinementRecord> out(static_cast<std::size_t>(n_instances()));
  sensitivities_->read_refinement(out.data());
  return out;
}

int Simulator::n_sensitivities() const { return sensitivities_ ? sensitivities_->n_sensitivities() : 0; }

std::vector<std::string> Simulator::sensitivity_paths() const {
  return sensitivities_ ? sensitivities_->paths() : std::vector<std::string>{};
}

void Simulator::read_state_sensitivities(double* out) const {
  if (!sensitivities_) throw std::logic_error("read_state_sensitivities: no sensitivities (enable_sensitivities)");
  std::vector<std::int8_t> status(static_cast<std::size_t>(n_instances()));
  backend_->get_state(nullptr, n_instances(), nullptr, nullptr, status.data(), nullptr, nullptr);
  sensitivities_->read(out, status.data());
}

ArrayView Simulator::state_sensitivities_view() {
  if (!sensitivities_) throw std::logic_error("state_sensitivities_view: no sensitivities (enable_sensitivities)");
  return sensitivities_->state_tangent_view();
}

void Simulator::read_reaction_sensitivities(double* out) const {
  if (!sensitivities_) throw std::logic_error("read_reaction_sensitivities: no sensitivities (enable_sensitivities)");
  FrameSensitivities f;
  f.reactions = out;
  read_frame_sensitivities(f);
}

void Simulator::read_frame_sensitivities(const FrameSensitivities& out) const {
  if (!sensitivities_) throw std::logic_error("read_frame_sensitivities: no sensitivities (enable_sensitivities)");
  std::vector<std::int8_t> status(static_cast<std::size_t>(n_instances()));
  backend_->get_state(nullptr, n_instances(), nullptr, nullptr, status.data(), nullptr, nullptr);
  sensitivities_->read_frame(out, status.data(), backend_->steps_taken());
}

void Simulator::read_reduction_sensitivities(double* out) const {
  if (!sensitivities_) throw std::logic_error("read_reduction_sensitivities: no sensitivities (enable_sensitivities)");
  std::vector<std::int8_t> status(static_cast<std::size_t>(n_instances()));
  backend_->get_state(nullptr, n_instances(), nullptr, nullptr, status.data(), nullptr, nullptr);
  sensitivities_->read_reductions(out, status.data(), backend_->steps_taken());
}

void Simulator::set_reductions(const std::vector<ReductionQuantity>& quantities) {
  backend_->set_reductions(quantities);
  if (sensitivities_) sensitivities_->set_reductions(backend_->reduction_layout());
}

void Simulator::set_reduction_state(const double* acc) {
  refuse_with_sensitivities("set_reduction_state");
  backend_->set_reduction_state(acc);
}

void Simulator::read_refinement(RefinementRecord* out) const {
  backend_->read_refinement(out);
  for (std::size_t i = 0; i < refinement_before_.size(); ++i) {
    RefinementRecord r = refinement_before_[i];
    r.merge(out[i]);
    out[i] = r;
  }
}

void Simulator::set_refinement_before(const RefinementRecord* before) {
  refinement_before_.assign(before, before + n_instances());
}

void Simulator::get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                          std::int64_t* status_steps, std::uint64_t* episodes, std::int8_t* reasons) const {
  backend_->get_state(ids, count, y, steps, status, status_steps, reasons);  // checks ids
  if (episodes)
    for (int k = 0; k < count; ++k) episodes[k] = episodes_[static_cast<std::size_t>(InstanceIds::at(ids, k))];
}

Model Simulator::rebuild(int instance, std::uint64_t episode, const ParameterOverrides& overrides) const {
  Model m = resampler_(instance, episode, overrides);
  // The run's settings chosen at creation from instance 0 (Simulator::create): the rows
  // removed, the shift, the projection mode and its pivot.
  m.removed_rows = model().removed_rows;
  m.solver.tikhonov_epsilon = model().solver.tikhonov_epsilon;
  m.solver.projection = model().solver.projection;
  m.solver.auto_projection_pivot = model().solver.auto_projection_pivot;
  return m;
}

void Simulator::resample(const int* ids, int count, const std::uint64_t* episodes) {
  static const ParameterOverrides kNone;
  std::vector<Model> models;
  models.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    models.push_back(rebuild(i, episodes[k], overrides_.empty() ? kNone : overrides_[static_cast<std::size_t>(i)]));
  }
  backend_->set_models(ids, count, models.data());
  note_models(ids, count, models.data());
  touched_ = true;
  for (int k = 0; k < count; ++k) episodes_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = episodes[k];
}

void Simulator::set_parameters(const int* ids, int count, const std::string* paths, int n_paths, const double* values) {
  ids_.check("set_parameters", ids, count);
  refuse_with_sensitivities("set_parameters");
  if (n_paths < 0) throw std::invalid_argument("set_parameters: a negative number of paths");
  if (!resampler_)
    throw std::logic_error("set_parameters: needs the scene this Simulator was made from (a resampler: "
                           "make_simulator installs the scene's)");
  // Every model is built before anything changes, so that an error leaves all as it was.
  std::vector<ParameterOverrides> merged(static_cast<std::size_t>(count));
  std::vector<Model> models;
  models.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    ParameterOverrides& o = merged[static_cast<std::size_t>(k)];
    if (!overrides_.empty()) o = overrides_[static_cast<std::size_t>(i)];
    for (int p = 0; p < n_paths; ++p) {
      const double v = values[static_cast<std::size_t>(k * n_paths + p)];
      auto it = std::find_if(o.begin(), o.end(), [&](const auto& e) { return e.first == paths[p]; });
      if (it != o.end())
        it->second = v;
      else
        o.emplace_back(paths[p], v);
    }
    models.push_back(rebuild(i, episodes_[static_cast<std::size_t>(i)], o));
  }
  backend_->set_models(ids, count, models.data());  // checks topology and dt before it changes anything
  note_models(ids, count, models.data());
  touched_ = true;
  if (overrides_.empty()) overrides_.resize(static_cast<std::size_t>(n_instances()));
  for (int k = 0; k < count; ++k)
    overrides_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = std::move(merged[static_cast<std::size_t>(k)]);
}

const Simulator::ParameterOverrides& Simulator::parameter_overrides(int instance) const {
  static const ParameterOverrides kNone;
  if (instance < 0 || instance >= n_instances())
    throw std::out_of_range("parameter_overrides: instance " + std::to_string(instance) + " is out of range [0, " +
                            std::to_string(n_instances()) + ")");
  return overrides_.empty() ? kNone : overrides_[static_cast<std::size_t>(instance)];
}

namespace {

/// Throws std::invalid_argument naming the first NaN or infinite input of u (count rows
/// of n_inputs).
void check_finite_inputs(const char* call, int count, int n_inputs, const double* u) {
  for (int k = 0; k < count; ++k)
    for (int j = 0; j < n_inputs; ++j) {
      const double v = u[static_cast<std::size_t>(k) * n_inputs + j];
      if (!std::isfinite(v))
        throw std::invalid_argument(std::string(call) + ": u[" + std::to_string(k) + ", " + std::to_string(j) + "] is " +
                                    (std::isnan(v) ? "NaN" : "infinite") + ": actuator inputs must be finite");
    }
}

/// Throws std::invalid_argument naming the first negative step count of `name` (count).
void check_step_counts(const char* name, int count, const std::int64_t* steps) {
  if (!steps) return;
  for (int k = 0; k < count; ++k)
    if (steps[k] < 0)
      throw std::invalid_argument(std::string("set_state: ") + name + "[" + std::to_string(k) + "] = " +
                                  std::to_string(steps[k]) + ": a step count cannot be negative");
}

}  // namespace

void Simulator::set_inputs(const double* u) {
  check_finite_inputs("set_inputs", n_instances(), model().n_inputs, u);
  backend_->set_inputs(u);
  touched_ = true;
  if (sensitivities_) sensitivities_->set_inputs(nullptr, n_instances(), u);
}

void Simulator::set_inputs(const int* ids, int count, const double* u) {
  check_finite_inputs("set_inputs", count, model().n_inputs, u);
  backend_->set_inputs(ids, count, u);
  touched_ = true;
  if (sensitivities_) sensitivities_->set_inputs(ids, count, u);
}

void Simulator::set_state(const int* ids, int count, const double* y, const std::int64_t* steps,
                          const std::int8_t* status, const std::int64_t* status_steps, const std::uint64_t* episodes,
                          const std::int8_t* reasons) {
  ids_.check("set_state", ids, count);
  refuse_with_sensitivities("set_state");
  check_status_reasons("set_state", count, status, reasons);
  check_step_counts("steps", count, steps);
  check_step_counts("status_steps", count, status_steps);
  if (episodes) {
    // Instances whose episode changes get that episode's model first (which resets them).
    std::vector<int> changed;
    std::vector<std::uint64_t> changed_episodes;
    for (int k = 0; k < count; ++k) {
      const int i = InstanceIds::at(ids, k);
      if (episodes[k] == episodes_[static_cast<std::size_t>(i)]) continue;
      if (resampler_) {
        changed.push_back(i);
        changed_episodes.push_back(episodes[k]);
      } else {
        episodes_[static_cast<std::size_t>(i)] = episodes[k];
      }
    }
    if (!changed.empty()) resample(changed.data(), static_cast<int>(changed.size()), changed_episodes.data());
  }
  backend_->set_state(ids, count, y, steps, status, status_steps, reasons);
  touched_ = true;
}

void Simulator::reset(const int* ids, int count, bool resample_models) {
  ids_.check("reset", ids, count);
  if (!resample_models) {
    backend_->reset(ids, count);
    if (sensitivities_) start_sensitivities(ids, count);
    return;
  }
  refuse_with_sensitivities("reset with resample");
  if (!resampler_)
    throw std::logic_error("reset: resample = true needs a resampler (set_resampler; make_simulator installs the scene "
                           "sweep's)");
  std::vector<std::uint64_t> next(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) next[static_cast<std::size_t>(k)] = episodes_[static_cast<std::size_t>(InstanceIds::at(ids, k))] + 1;
  resample(ids, count, next.data());
}

int Simulator::n_link_frames() const { return link_frame_count(model()); }

int Simulator::link_frame_index(const std::string& name) const { return simphant::link_frame_index(model(), name); }

LinkTree Simulator::link_tree() const { return simphant::link_tree(model()); }

namespace {
void check_link_frames(const Model& model, const int* frames, int count) {
  const int F = link_frame_count(model);
  if (F == 0) throw std::invalid_argument("link_frames: the scene has no robot (docs/robots.md)");
  if (count < 0) throw std::invalid_argument("link_frames: a negative frame count");
  for (int c = 0; c < count; ++c)
    if (frames[c] < 0 || frames[c] >= F)
      throw std::invalid_argument("link_frames: frame index " + std::to_string(frames[c]) + " out of [0, " +
                                  std::to_string(F) + ")");
}
}  // namespace

void Simulator::read_link_frames(const int* frames, int count, double* out) const {
  check_link_frames(model(), frames, count);
  if (backend_->n_link_frames() > 0) {
    backend_->read_link_frames(frames, count, out);
    return;
  }
  const int n = n_instances(), B = model().n_bodies();
  std::vector<double> states(static_cast<std::size_t>(n) * B * 13);
  backend_->read_states(states.data());
  for (int i = 0; i < n; ++i)
    link_frames_from_states(current_models()[current_models().size() == 1 ? 0 : static_cast<std::size_t>(i)],
                            states.data() + static_cast<std::size_t>(i) * B * 13, frames, count,
                            out + static_cast<std::size_t>(i) * count * 13);
}

ArrayView Simulator::link_frames_view(const int* frames, int count) {
  check_link_frames(model(), frames, count);
  return backend_->link_frames_view(frames, count);
}

void Simulator::joint_load_frames(const double* states, const double* reactions, const double* driver_loads,
                                  double* loads, double* bearing) const {
  simphant::joint_load_frames(current_models(), n_instances(), states, reactions, driver_loads, loads, bearing);
}

void Simulator::contact_frames(const double* states, double* out) const {
  simphant::contact_frames(current_models(), n_instances(), states, out);
}

void Simulator::contact_wrenches(const double* states, double* out) const {
  simphant::contact_wrenches(current_models(), n_instances(), states, out);
}

void Simulator::centres_of_mass(const double* states, double* out) const {
  simphant::centres_of_mass(current_models(), n_instances(), states, out);
}

void Simulator::note_models(const int* ids, int count, const Model* models) {
  if (count == 0) return;
  if (current_.empty()) {
    // Once, on the first change: a copy per instance (complete before it replaces the
    // empty list, so that a failed copy leaves models_ in use).
    const int n = n_instances();
    std::vector<Model> all;
    all.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) all.push_back((*models_)[models_->size() == 1 ? 0 : static_cast<std::size_t>(i)]);
    current_ = std::move(all);
  }
  for (int k = 0; k < count; ++k) current_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = models[k];
}

}  // namespace simphant
