#pragma once
// Recorder: writes one run to one HDF5 file. Layout (T frames, I instances,
// B bodies, J joints):
//
//   /time                  (T)           [s]
//   /state                 (T, I, B, 13) r_W [m], p (w x y z), v_W [m/s], omega_B [rad/s]
//   /reactions             (T, I, J, 6)  force [N], torque [N m] that each joint applies
//                                        to its body_j at the anchor, W
//   /constraint_violation  (T, I)        max |Phi|
//   /energy                (T, I)        kinetic + gravity + spring potential [J]
//   /driver_loads          (T, I, D)     scenes with drivers only: the torque [N m] or force [N]
//                                        each driver applies to its joint's body_j along the
//                                        joint axis v_i (Backend::read_driver_loads); root
//                                        attribute driver_names (D)
//   /joint_state/q         (T, I, n)     robot runs only (docs/robots.md): joint positions [rad | m],
//   /joint_state/qd        (T, I, n)     rates [rad/s | m/s] and applied joint torques /
//   /joint_state/tau       (T, I, n)     forces [N m | N]; attribute joint_names (n) on the group
//   /params/<sweep path>   (I)           sampled sweep values (e.g. /params/bodies.crank.mass)
//   /status                (I) int8      0 ok, 1 failed assembly, 2 diverged
//   /status_time           (I)           time at which the status was set [s] (0 if ok)
//   /status_reason         (I) int8      why: 0 none, 1 non_finite, 2 constraint_violation,
//                                        3 runaway, 4 factorisation_failure, 5 assembly_failure;
//                                        attribute `codes` (6) names them by code
//   /assembly/position_residual (I)      max |Phi| after assembly
//   /assembly/velocity_residual (I)      max |Phi_q qdot| after the velocity projection
//   /assembly/iterations   (I) int32     Newton iterations used
//   /assembly/position_change (I)        how far assembly moved the given state, max over
//   /assembly/orientation_change (I)     the bodies: |dr| [m], rotation [rad], |dv| [m/s],
//   /assembly/velocity_change (I)        |d omega_B| [rad/s]
//   /assembly/angular_velocity_change (I)
//   root attributes        scene (text), scene_file, dt, t_end, baumgarte_alpha,
//                          baumgarte_beta, tikhonov_epsilon, refinement_steps, record_every,
//                          violation_bound, backend, version, seed, n_instances,
//                          body_names, joint_names, wall_time_s, frames, interrupted,
//                          stop_reason; a shard's file also shard_index, shard_count,
//                          instance_offset, n_instances_total (RecorderInfo)
//
// The T datasets are chunked and extendible; every record() appends one frame and
// flushes the file, so a run stopped at any point between two calls leaves a readable
// file whose datasets all hold the same number of frames. /status, /status_time and
// /status_reason are written when the file is created (from the assembly result) and
// again by finalize().
//
// Until finalize() the file says interrupted = 1, stop_reason = "running": a file cut
// short by SIGKILL or a crash reads as such. finalize() writes the real end:
// stop_reason "completed" (interrupted = 0) or why the run stopped early ("signal
// SIGINT", "no instance alive", "disk full (ENOSPC): out.h5", "write error: ...";
// interrupted = 1).
//
// A full disk: before each write (the status datasets of the constructor, params,
// assembly, each frame) the recorder reserves the disk space it can take plus
// kFinalizeReserveBytes (h5::reserve_space), so on a file system that can reserve (ext4,
// xfs, tmpfs, ...) a full disk stops the run before anything is half written and
// finalize() still has room to mark the file. Where it cannot reserve, a failed append
// sets every T dataset back to the frames written before it, and finalize() marks the
// file if HDF5 can still write it.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// What the recorder needs to know about the run; becomes the root attributes.
struct RecorderInfo {
  int n_instances = 1;
  std::vector<std::string> body_names;   ///< (B)
  std::vector<std::string> joint_names;  ///< (J)
  std::vector<std::string> driver_names; ///< (D); empty: no /driver_loads
  std::string scene_text;                ///< the scene file as read
  std::string scene_file;                ///< its path as given
  SolverSettings solver;                 ///< as used by the run (after CLI overrides)
  std::string backend;                   ///< backend name, e.g. "cpu"
  std::uint64_t seed = 0;                ///< sweep seed
  /// (n) joint-coordinate names (robot runs); empty: no /joint_state group.
  std::vector<std::string> joint_coordinate_names;
  /// A shard of a design (`simphant run --shard K/N`, job/shard.hpp) when shard_count > 1:
  /// written as the root attributes shard_index, shard_count, instance_offset (the design's
  /// index of this file's instance 0) and n_instances_total (the design's I).
  int shard_index = 0, shard_count = 0;
  std::int64_t instance_offset = 0, n_instances_total = 0;
};

class Recorder {
 public:
  /// Disk space kept free beyond every write for finalize() (the status rewrites in
  /// place; attributes, the global heap of its strings and HDF5's metadata): 256 KiB.
  static constexpr std::uint64_t kFinalizeReserveBytes = std::uint64_t{256} << 10;

  /// Creates (truncates) `path` and every dataset; writes the root attributes with
  /// wall_time_s = 0, frames = 0, interrupted = 1 and stop_reason = "running", and
  /// /status = 0. Throws h5::H5Error (its sys_errno() says ENOSPC etc.).
  Recorder(const std::string& path, const RecorderInfo& info);
  /// Continues a file that a Recorder with the same info wrote (a copy of a checkpoint,
  /// job/checkpoint.hpp): opens `path` for writing, keeps the first `frames` frames of
  /// every T dataset (a stopped run's file may hold one frame more, its last state), and
  /// sets frames = `frames`, interrupted = 1 and stop_reason = "running"; record()
  /// appends after them. Throws h5::H5Error when the file cannot be opened or a dataset
  /// is missing, has another frame shape or fewer than `frames` frames.
  Recorder(const std::string& path, const RecorderInfo& info, std::int64_t frames);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  /// Closes the file if finalize() did not (datasets keep the frames appended so far),
  /// in the order that is safe after a failed write (h5::close_file_first).
  ~Recorder();

  /// Writes /params/<paths[p]> = values[p] (each of length n_instances).
  void write_params(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values);

  /// Writes /assembly/{position_residual, velocity_residual, iterations}, each (n_instances).
  void write_assembly(const std::vector<double>& position_residual, const std::vector<double>& velocity_residual,
                      const std::vector<std::int32_t>& iterations);

  /// Writes /assembly/{position_change, orientation_change, velocity_change,
  /// angular_velocity_change}, each (n_instances).
  void write_assembly_changes(const std::vector<double>& position, const std::vector<double>& orientation,
                              const std::vector<double>& velocity, const std::vector<double>& angular_velocity);

  /// Writes /status, /status_time and /status_reason, each (n_instances).
  void write_status(const std::int8_t* status, const double* status_time, const std::int8_t* reason);

  /// Appends one frame and flushes. states (I, B, 13); reactions (I, J, 6);
  /// violation (I); energy (I); joint_q, joint_qd, joint_tau (I, n) each, read only when
  /// info.joint_coordinate_names is not empty (then all three are required);
  /// driver_loads (I, D), read only when info.driver_names is not empty (then required).
  /// Throws h5::H5Error when the disk space for the frame cannot be reserved (nothing
  /// written) or a write fails (the T datasets are set back to the frames before).
  void record(double time, const double* states, const double* reactions, const double* violation,
              const double* energy, const double* joint_q = nullptr, const double* joint_qd = nullptr,
              const double* joint_tau = nullptr, const double* driver_loads = nullptr);

  /// Writes the final status, wall_time_s, frames, stop_reason and interrupted (0 when
  /// stop_reason is "completed", else 1), then closes the file. Throws h5::H5Error when
  /// a write or the close fails (the file may then be incomplete).
  void finalize(const std::int8_t* status, const double* status_time, const std::int8_t* reason,
                double wall_time_s, const std::string& stop_reason);

  std::int64_t frames() const { return frames_; }  ///< frames appended so far
  const std::string& path() const { return path_; }
  /// The open file (for a checkpoint written into it, job/checkpoint.hpp); -1 after finalize().
  hid_t file_id() const { return file_.id(); }

 private:
  /// Closes the file, then the datasets (h5::close_file_first); false if a close failed.
  bool close();
  /// Reserves `bytes` plus kFinalizeReserveBytes beyond the end of the file; throws
  /// h5::H5Error (sys_errno ENOSPC, EDQUOT, EFBIG) naming `what` when it cannot.
  void reserve(std::uint64_t bytes, const std::string& what);
  /// What one record() may add to the file, from the datasets' chunks.
  void compute_frame_reserve();

  std::string path_;
  RecorderInfo info_;
  std::int64_t frames_ = 0;
  std::uint64_t frame_reserve_bytes_ = 0;  ///< what one record() may add to the file
  h5::ExtendibleDataset time_, state_, reactions_, violation_, energy_;
  h5::ExtendibleDataset joint_q_, joint_qd_, joint_tau_;  ///< robot runs only
  h5::ExtendibleDataset driver_loads_;                    ///< scenes with drivers only
  // Declared last, so destroyed first: the file closes before its datasets (see ~Recorder).
  h5::Handle file_;
};

}  // namespace simphant
