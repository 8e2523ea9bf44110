#pragma once
// Resuming a run (docs/checkpoints.md): finding the checkpoint of the run to continue,
// checking it against what is given, and taking its state.
//
// `simphant run --resume OUT.h5` (JobOptions::resume) continues from the checkpoint file
// beside OUT.h5 when there is one, else from OUT.h5 itself (a stopped run): it copies
// that file to its own temporary file, drops the frames after the checkpoint and the
// /checkpoint group, restores the batch and appends; the source is not modified. The
// finished file equals an uninterrupted run's dataset by dataset, bit for bit.
#include <string>

#include "simphant/job/checkpoint_state.hpp"
#include "simphant/job/job_options.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

/// Whether `simphant run --resume out` has something to continue: the checkpoint file
/// beside `out` exists, or `out` is a stopped run (interrupted = 1) that holds a
/// /checkpoint group. For schedulers that start a run or continue it: resume when true.
bool resumable(const std::string& out);

namespace job_detail {

/// A run to continue (JobOptions::resume).
struct ResumePoint {
  /// The options the run was started with (scene text from the file), with the given
  /// threads and checkpoint_every_s, out = the resumed output and resume = "".
  JobOptions options;
  std::string source;  ///< the file holding the checkpoint: the checkpoint file or the output
  LoopPoint at;
  /// The run's root attribute sweep_design_crc64 ("" when it has none): the CRC-64 of
  /// its design file, which the resumed run's design file must still have.
  std::string design_crc64;
  /// The run's root attribute input_files ("" when it has none): the fingerprints of the
  /// files behind its scene (job/input_digests.hpp), which must not have changed.
  std::string input_files;
};

/// Throws SceneError("/sweep/file", ...) when the design file that `sweep` read is not
/// the one of the run to resume (its CRC-64 differs from resume.design_crc64): the
/// scene text alone does not pin a design that lives in another file.
void check_resumed_design(const ResumePoint& resume, const SweepSpec& sweep);

/// The --backend value that selects the backend named `backend` (Simulator::backend_name()):
/// cpu, cpu-simd, cuda and cuda-fused themselves; the joint-space forms reduced-aba /
/// reduced-cga -> cpu, their -lanes forms -> cpu-simd, cuda-reduced-* -> cuda; `requested`
/// for any other name.
std::string backend_option(const std::string& backend, const std::string& requested);

/// The options of `o` as stored in a checkpoint (JSON text), --backend the value that
/// selects the backend that ran (backend_option of Simulator::backend_name()), so that a
/// resumed run takes the same one (a robot run started with auto included).
std::string stored_options(const JobOptions& o, const std::string& backend);

/// Finds and checks the checkpoint of the run given.resume, before any work. Throws
/// SceneError, which the CLI turns into exit code 2, naming what is wrong: "--resume"
/// (no such output and no checkpoint, a completed run, a run without checkpoint, a file
/// of another simphant version or checkpoint format, a damaged checkpoint), "scene" (the
/// given scene differs from the stored one) or the option given with another value than
/// the run's ("--instances: ..."). Nothing is written.
ResumePoint find_resume(const JobOptions& given);

/// Copies resume.source to `partial` (the resumed run's temporary file), reads the batch
/// state from the copy and removes the /checkpoint group from it. Throws
/// std::runtime_error naming the file when the copy or a read fails.
BatchState take_checkpoint(const ResumePoint& resume, const std::string& partial);

}  // namespace job_detail
}  // namespace simphant
