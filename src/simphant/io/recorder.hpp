#pragma once
// Recorder: writes one run to one HDF5 file. Layout (T frames, I instances,
// B bodies, J joints, n joint coordinates):
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
//   /params/<sweep path>   (I)           sampled sweep values (e.g. /params/bodies.crank.mass);
//                                        attribute `problem` on /params: the sweep as a SALib problem
//   /status                (I) int8      0 ok, 1 failed assembly, 2 diverged
//   /status_time           (I)           time at which the status was set [s] (0 if ok)
//   /status_reason         (I) int8      why: 0 none, 1 non_finite, 2 constraint_violation,
//                                        3 runaway, 4 factorisation_failure, 5 assembly_failure,
//                                        6 step_size_underflow; attribute `codes` (7) names them by code
//   /assembly/position_residual (I)      max |Phi| after assembly
//   /assembly/velocity_residual (I)      max |Phi_q qdot| after the velocity projection
//   /assembly/iterations   (I) int32     Newton iterations used
//   /assembly/position_change (I)        how far assembly moved the given state, max over
//   /assembly/orientation_change (I)     the bodies: |dr| [m], rotation [rad], |dv| [m/s],
//   /assembly/velocity_change (I)        |d omega_B| [rad/s]
//   /assembly/angular_velocity_change (I)
//   /error_estimate/{position, orientation} (I)  runs with solver.error_estimate
//                                        (job/error_estimate.hpp) [m], [rad]
//   /step_statistics/{accepted, rejected, min_step, max_step} (I)  adaptive integrators
//                                        (job/step_report.hpp); root attributes integrator,
//                                        accepted_steps, rejected_steps, min_step_s, max_step_s
//                                        (every run), written by the job at the end
//   coordinates (1-D dimension scales, io/h5_dims.hpp): /instance (I) int64 (the
//   design's instance numbers: instance_offset + k in a shard), /body (B), /joint (J),
//   /state_component (13: r_x r_y r_z p_w p_x p_y p_z v_x v_y v_z omega_x omega_y
//   omega_z), /reaction_component (6: f_x f_y f_z tau_x tau_y tau_z),
//   /joint_coordinate (n, robot runs) as strings; /time is the scale of the time axis.
//   Every dataset's axes are attached to them and every dataset has a `units`
//   attribute (one SI string, or one per entry of its last axis), so that
//   xarray.open_dataset(path, engine="h5netcdf") names the dimensions.
//   root attributes        scene (text), scene_file, dt, t_end (as requested: resume and
//                          merge compare it), t_end_simulated (the end time the run steps
//                          to, step_count * dt: model/step_count.hpp), baumgarte_alpha,
//                          baumgarte_beta, tikhonov_epsilon, refinement_steps, record_every,
//                          violation_bound, backend, version, seed, n_instances,
//                          body_names, joint_names, wall_time_s, frames, interrupted,
//                          stop_reason, sweep_mode; output_datasets, output_frames,
//                          output_reductions, output_compression (the output settings
//                          used); provenance: git_commit, command_line, host, device,
//                          start_time (ISO 8601 UTC); a shard's file also shard_index,
//                          shard_count, instance_offset, n_instances_total; a saltelli
//                          sweep's saltelli_base, saltelli_second_order; a design file's
//                          sweep_design_file, sweep_design_crc64; input_files, the
//                          fingerprints of the files behind the scene (RecorderInfo)
//
// Output control (model/output_settings.hpp, docs/scene-format.md "Output"): only the
// selected frame datasets are created; frames "first_last" keeps the first record() and
// the last one (written by finish_frames() / finalize(), also when the run stopped
// early); "none" creates no T dataset (no /time either). Compression: deflate at the
// chosen level after the shuffle filter on every T dataset.
//
// Chunks and buffering. Every T dataset is chunked as (K, whole frame), K frames per
// chunk with K = clamp(1 MiB / the largest frame's bytes, 1, 256) (a frame over 1 MiB:
// K = 1 and a chunk is a slice of the instances of about 1 MiB): appending and reading an
// instance's time series touch few chunks, and a chunk fits HDF5's default 1 MiB chunk
// cache. Unfiltered, the last chunk of each T dataset is allocated whole: a file holds up
// to K - 1 frames' worth (under 1 MiB) per T dataset beyond its data (a compressed chunk
// is stored at its compressed size). record() copies the frame into a buffer of K frames; the buffer is written to
// every T dataset with one H5Dwrite each, and the file flushed, when the frames reach a
// chunk boundary (whole chunks are written, compressed once), when 1 s of wall time
// (kFlushSeconds) passed since the last write, for the first frame of a file, by flush()
// (checkpoints write it before copying the file) and by finish_frames() / finalize().
// So at any moment every T dataset holds the same number of frames; a run stopped by a
// signal, an error or a full disk writes its buffer (or, when that write fails, keeps
// the frames written before it); SIGKILL loses at most the buffered frames: fewer than K,
// and only frames recorded within kFlushSeconds before the last record() call.
// /time is written last: a reader that sees frame k in /time sees it everywhere.
// /status, /status_time and /status_reason are written when the file is created (from
// the assembly result) and again by finalize().
//
// Until finalize() the file says interrupted = 1, stop_reason = "running": a file cut
// short by SIGKILL or a crash reads as such. finalize() writes the real end:
// stop_reason "completed" (interrupted = 0) or why the run stopped early ("signal
// SIGINT", "no instance alive", "disk full (ENOSPC): out.h5", "write error: ...";
// interrupted = 1).
//
// A full disk: before each write (the status datasets of the constructor, params,
// assembly, each block of frames) the recorder reserves the disk space it can take
// (every chunk the block touches, at deflate's worst-case size) plus
// kFinalizeReserveBytes (h5::reserve_space), so on a file system that can reserve (ext4,
// xfs, tmpfs, ...) a full disk stops the run before anything is half written and
// finalize() still has room to mark the file. Where it cannot reserve, a failed block
// sets every T dataset back to the frames written before it, and finalize() marks the
// file if HDF5 can still write it. Either way the buffered frames of the failed block
// are dropped.
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simphant/io/h5_file.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// One per-frame dataset (T, shape...). The recorder creates the standard ones (state,
/// reactions, constraint_violation, energy, joint_state/*); another quantity is one more
/// spec in RecorderInfo::frame_datasets and one more entry of the values given to record().
struct FrameDatasetSpec {
  std::string selection;  ///< the OutputSettings::datasets name that selects it ("joint_state" for joint_state/q)
  std::string path;       ///< below the root: "driver_loads", "joint_state/q" (its group is created)
  std::vector<hsize_t> shape;      ///< one frame's shape, (I, ...)
  std::vector<std::string> dims;   ///< the dimension of each axis of a frame: {"instance", "joint", "load_component"}
  std::vector<std::string> units;  ///< one SI string, or one per entry of the last axis
  std::string long_name;           ///< what it is, for readers (netCDF's long_name)
  /// String labels of the dimensions that are not standard coordinates (created unless
  /// they exist): {{"load_component", {"F_x", ...}}}.
  std::vector<std::pair<std::string, std::vector<std::string>>> coordinates;
};

/// A frame's values by dataset path: {"driver_loads", pointer to (I, D) doubles}.
using FrameValues = std::vector<std::pair<std::string, const double*>>;

/// What the recorder needs to know about the run; becomes the root attributes.
struct RecorderInfo {
  int n_instances = 1;
  std::vector<std::string> body_names;   ///< (B)
  std::vector<std::string> joint_names;  ///< (J)
  std::vector<std::string> driver_names; ///< (D); empty: no /driver_loads
  std::string scene_text;                ///< the scene file as read
  std::string scene_file;                ///< its path as given
  SolverSettings solver;                 ///< as used by the run (after CLI overrides)
  OutputSettings output;                 ///< which datasets and frames, compression
  std::string backend;                   ///< backend name, e.g. "cpu"
  std::uint64_t seed = 0;                ///< sweep seed
  /// (n) joint-coordinate names (robot runs); empty: no /joint_state group.
  std::vector<std::string> joint_coordinate_names;
  /// (n) their units, "rad" (revolute) or "m" (prismatic); empty: "1" each.
  std::vector<std::string> joint_coordinate_units;
  /// Most frames buffered before they are written (0: a chunk's worth, K; 1: every
  /// record() writes its frame and flushes the file, the recorder's behaviour before
  /// buffering, kept for bench/bench_recording.cpp).
  hsize_t buffer_frames = 0;
  /// Frame datasets beyond the standard ones (written when output.datasets selects them).
  std::vector<FrameDatasetSpec> frame_datasets;
  /// Provenance root attributes: the source revision (cli/git_commit.hpp), the command
  /// line, the host name, the device the backend ran on (CPU model / GPU name and the
  /// backend's details) and the start time (ISO 8601 UTC, "2026-12-01T12:00:00Z").
  std::string git_commit, command_line, host, device, start_time;
  /// A shard of a design (`simphant run --shard K/N`, job/shard.hpp) when shard_count > 1:
  /// written as the root attributes shard_index, shard_count, instance_offset (the design's
  /// index of this file's instance 0) and n_instances_total (the design's I).
  int shard_index = 0, shard_count = 0;
  std::int64_t instance_offset = 0, n_instances_total = 0;
  /// The design of experiments (docs/scene-format.md, "Sweep"): root attribute sweep_mode
  /// ("none" without sweep parameters); for saltelli also saltelli_base (N) and
  /// saltelli_second_order (0/1); for design sweep_design_file and sweep_design_crc64
  /// (the CRC-64 of the design file's bytes, which resume and merge compare).
  std::string sweep_mode = "none";
  std::int64_t saltelli_base = 0;
  int saltelli_second_order = 0;
  std::string sweep_design_file, sweep_design_crc64;
  /// Root attribute input_files (omitted when empty): the CRC-64 of each file the run
  /// read besides the scene text, JSON [[file, crc64], ...] (job/input_digests.hpp),
  /// which a resumed run compares.
  std::string input_files;
  /// The sweep as a SALib problem (JSON text, scene.hpp salib_problem): attribute
  /// `problem` of /params; empty: none.
  std::string params_problem;
};

/// The unit of a sweep parameter from the last key of its path (docs/scene-format.md):
/// "kg" for bodies.<name>.mass, "m" for a frame's origin, ...; "" when the key is not one
/// the table knows.
std::string sweep_units(const std::string& path);

class Recorder {
 public:
  /// Disk space kept free beyond every write for finalize() (the status rewrites in
  /// place; attributes, the global heap of its strings and HDF5's metadata): 256 KiB.
  static constexpr std::uint64_t kFinalizeReserveBytes = std::uint64_t{256} << 10;
  /// Largest chunk of a T dataset, and so the buffer per dataset [B].
  static constexpr std::uint64_t kChunkBytes = std::uint64_t{1} << 20;
  /// Most frames per chunk (and in the buffer).
  static constexpr hsize_t kMaxChunkFrames = 256;
  /// [s] of wall time after which buffered frames are written at the next record().
  static constexpr double kFlushSeconds = 1.0;

  /// Creates (truncates) `path` and every dataset; writes the root attributes with
  /// wall_time_s = 0, frames = 0, interrupted = 1 and stop_reason = "running", and
  /// /status = 0. Throws h5::H5Error (its sys_errno() says ENOSPC etc.; also when
  /// compression > 0 and HDF5 has no deflate encoder).
  Recorder(const std::string& path, const RecorderInfo& info);
  /// Continues a file that a Recorder with the same info wrote (a copy of a checkpoint,
  /// job/checkpoint.hpp): opens `path` for writing, keeps the first `frames` frames of
  /// every T dataset (a stopped run's file may hold one frame more, its last state), and
  /// sets frames = `frames`, interrupted = 1 and stop_reason = "running"; record()
  /// appends after them (frames "first_last": the next record() calls hold the last
  /// frame). Throws h5::H5Error when the file cannot be opened or a dataset
  /// is missing, has another frame shape or fewer than `frames` frames.
  Recorder(const std::string& path, const RecorderInfo& info, std::int64_t frames);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  /// Closes the file if finalize() did not (datasets keep the frames written so far;
  /// the buffer is not written), in the order that is safe after a failed write
  /// (h5::close_file_first).
  ~Recorder();

  /// The standard frame datasets of a run described by `info` (state, reactions,
  /// constraint_violation, energy, joint_state/{q, qd, tau} for robot runs), in file order.
  static std::vector<FrameDatasetSpec> standard_frame_datasets(const RecorderInfo& info);

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

  /// Writes a fixed dataset of doubles (for /reductions/<quantity>/<statistic> and other
  /// per-instance results): `path` below the root (groups created), `shape` (I, ...),
  /// row-major `data`, the dimension of each axis (coordinates that exist, or are given
  /// in `coordinates`), `units` (one string or one per entry of the last axis), after
  /// reserving its disk space. Throws h5::H5Error.
  void write_instance_dataset(const std::string& path, const std::vector<hsize_t>& shape, const double* data,
                              const std::vector<std::string>& dims, const std::vector<std::string>& units,
                              const std::vector<std::pair<std::string, std::vector<std::string>>>& coordinates = {});
  /// The same for int64 values (counts, e.g. /step_statistics/accepted).
  void write_instance_dataset(const std::string& path, const std::vector<hsize_t>& shape, const std::int64_t* data,
                              const std::vector<std::string>& dims, const std::vector<std::string>& units);
  /// The long_name attribute (what it is, for readers) of each dataset group/<name> already
  /// written, from (name, text) pairs. Throws h5::H5Error.
  void write_long_names(const std::string& group, const std::vector<std::pair<std::string, std::string>>& names);

  /// Records one frame: values of every created T dataset by path (the standard ones:
  /// "state" (I, B, 13), "reactions" (I, J, 6), "constraint_violation" (I), "energy"
  /// (I), "joint_state/q", "joint_state/qd", "joint_state/tau" (I, n); the others as
  /// their spec). Buffered (see above); frames "none": nothing. Throws h5::H5Error,
  /// before anything is buffered, when a created dataset has no value; when a write of
  /// the buffer fails (disk space not reserved: nothing written; a write failed: the T
  /// datasets set back to the frames before the block) the buffered frames are dropped,
  /// and from then on record(), flush() and finish_frames() write nothing.
  void record(double time, const FrameValues& values);
  /// The standard datasets' frame: states (I, B, 13); reactions (I, J, 6); violation (I);
  /// energy (I); joint_q, joint_qd, joint_tau (I, n) each, required when the file has
  /// /joint_state; `more`: the values of the other frame datasets.
  void record(double time, const double* states, const double* reactions, const double* violation,
              const double* energy, const double* joint_q = nullptr, const double* joint_qd = nullptr,
              const double* joint_tau = nullptr, const FrameValues& more = {});

  /// Writes the buffered frames now (frames "first_last": not the held last frame), so
  /// that the file holds every frame recorded (a checkpoint). Throws as record().
  void flush();
  /// Writes the buffered frames and, frames "first_last", the held last frame. Called by
  /// finalize(); a job calls it first to see a failed write as such. Throws as record().
  void finish_frames();

  /// finish_frames(), then writes the final status, wall_time_s, frames, stop_reason
  /// and interrupted (0 when stop_reason is "completed", else 1), then closes the file.
  /// Throws h5::H5Error when a write or the close fails (the file may then be incomplete).
  void finalize(const std::int8_t* status, const double* status_time, const std::int8_t* reason,
                double wall_time_s, const std::string& stop_reason);

  /// Frames recorded so far: written to the file plus buffered (not the held last frame
  /// of "first_last"); after flush() / finish_frames() those in the file.
  std::int64_t frames() const { return frames_ + static_cast<std::int64_t>(buffered_); }
  /// Frames per chunk and the most frames buffered (K above); 0 without T datasets.
  hsize_t chunk_frames() const { return chunk_frames_; }
  const std::string& path() const { return path_; }
  /// The open file (for a checkpoint written into it, job/checkpoint.hpp); -1 after finalize().
  hid_t file_id() const { return file_.id(); }

 private:
  struct Slot {
    FrameDatasetSpec spec;
    h5::ExtendibleDataset data;
    std::vector<double> buffer;  ///< chunk_frames_ frames
    std::size_t frame_elems = 0;
  };
  /// The selected frame datasets of info_ (none for frames "none").
  std::vector<FrameDatasetSpec> selected_frame_datasets() const;
  /// Creates the coordinates, attaches the dimensions and writes the units of every
  /// dataset the constructor made.
  void describe_datasets();
  void write_root_attributes();
  /// write_instance_dataset of values of HDF5 memory type `type`.
  void write_instance_values(const std::string& path, const std::vector<hsize_t>& shape, hid_t type, const void* data,
                             const std::vector<std::string>& dims, const std::vector<std::string>& units,
                             const std::vector<std::pair<std::string, std::vector<std::string>>>& coordinates);
  /// Writes the buffered frames to every T dataset (reserving first), flushes the file.
  void write_buffer();
  /// Closes the file, then the datasets (h5::close_file_first); false if a close failed.
  bool close();
  /// Reserves `bytes` plus kFinalizeReserveBytes beyond the end of the file; throws
  /// h5::H5Error (sys_errno ENOSPC, EDQUOT, EFBIG) naming `what` when it cannot.
  void reserve(std::uint64_t bytes, const std::string& what);

  std::string path_;
  RecorderInfo info_;
  std::int64_t frames_ = 0;  ///< frames in the file
  hsize_t buffered_ = 0;     ///< frames in the buffers
  bool last_held_ = false;   ///< "first_last": the buffers' frame 0 is the last frame recorded
  bool write_failed_ = false;  ///< a block failed: no frame is written after it
  hsize_t chunk_frames_ = 0;
  std::chrono::steady_clock::time_point last_write_;
  std::vector<Slot> slots_;  ///< the T datasets, /time last
  // Declared last, so destroyed first: the file closes before its datasets (see ~Recorder).
  h5::Handle file_;
};

}  // namespace simphant
