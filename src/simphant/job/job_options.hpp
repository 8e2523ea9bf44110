#pragma once
// The options of a run (`simphant run`, job/run_job.hpp): a leaf header for the job
// runner's parts that read them (checks, memory estimate, shards, checkpoints).
#include <cstdint>
#include <optional>
#include <string>

namespace simphant {

/// The options of `simphant run` (README "Command line"); defaults are the scene's.
struct JobOptions {
  std::string scene;               ///< scene file; with scene_text: the name used in messages, whose
                                   ///< folder resolves a relative robot.urdf (may be "")
  std::string scene_text;          ///< scene JSON text; used instead of reading `scene` when not empty
  int instances = -1;              ///< >= 1 overrides sweep.instances; -1: the scene's
  bool has_dt = false;
  double dt = 0;                   ///< [s], overrides solver.dt when has_dt
  bool has_t_end = false;
  double t_end = 0;                ///< [s], overrides solver.t_end when has_t_end
  bool has_seed = false;
  std::uint64_t seed = 0;          ///< overrides sweep.seed when has_seed
  int threads = 0;                 ///< CPU worker threads, 0 = default_thread_count() (core/thread_pool.hpp)
  std::string backend = "auto";    ///< auto | cpu | cpu-simd | cuda | cuda-fused
  std::string precision = "fp64";  ///< fp64 | fp32 (cuda backends only)
  std::string solver;              ///< "" (the scene's) | dae | aba | cga: overrides solver.type (robot scenes)
  std::string projection;          ///< "" (the scene's) | none | velocity | position_velocity | auto: overrides solver.projection
  /// "" (the scene's) | rk4 | euler | symplectic_euler | dopri5 | bdf: overrides
  /// solver.integrator (model/integrator.hpp; docs/solver.md, "Integrators").
  std::string integrator;
  std::optional<double> rtol;      ///< overrides solver.rtol (> 0, finite) when set
  std::optional<double> atol;      ///< overrides solver.atol (>= 0, finite) when set
  bool error_estimate = false;     ///< true: solver.error_estimate on (false: the scene's)
  /// Comma-separated sweep paths ("" : the scene's): replaces sensitivities.parameters
  /// (docs/sensitivities.md).
  std::string sensitivities;
  std::string out;                 ///< output file; "" = <scene stem>.h5 in the current folder
  /// Overrides of the scene's "output" section (docs/scene-format.md "Output";
  /// scene.hpp: apply_output_flags): comma-separated dataset names ("" : the scene's),
  /// frames every | first_last | none, reductions none | all | names, deflate level 0..9
  /// (nullopt: the scene's).
  std::string datasets, frames, reductions;
  std::optional<int> compression;
  /// Provenance written as root attributes (io/recorder.hpp): the command line that
  /// started the run and the source revision (the CLI sets both: cli/git_commit.hpp).
  std::string command_line, git_commit;
  /// Frames buffered before a write (RecorderInfo::buffer_frames; 0: a chunk's worth;
  /// 1: a write and a flush per frame). For bench/bench_recording.cpp.
  int record_buffer_frames = 0;
  /// Shard shard_index of shard_count (`--shard K/N`, job/shard.hpp): the run samples the
  /// whole design and keeps instances [K*I/N, (K+1)*I/N); its file records the slice for
  /// `simphant merge` (job/merge.hpp). shard_count 1: the whole design, a plain run file.
  /// A shard, like the one-shot run, ends at "no instance alive" when none of its own
  /// instances is left ok; the merge reads their later frames as NaN.
  int shard_index = 0;
  int shard_count = 1;
  /// [s] of wall time between checkpoints (job/checkpoint.hpp, docs/checkpoints.md: the
  /// cost and why this default); 0: none. A run stopped by a stop request stores its
  /// state in its output whatever this is.
  double checkpoint_every_s = 300;
  /// The output of an interrupted run to continue ("" : a new run): the scene and the
  /// options come from its checkpoint (job/resume.hpp: find_resume); scene,
  /// scene_text and the options that change results may be given only with the run's
  /// own values; threads and checkpoint_every_s apply to the resumed run.
  std::string resume;
};

}  // namespace simphant
