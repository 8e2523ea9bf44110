#pragma once
// The fingerprints of the files a run reads besides its scene text (job/run_inputs.hpp:
// the robot's URDF and the files it names, the bodies' visual meshes, a sweep's design
// file), recorded in the output's root attribute `input_files` so that `--resume`
// continues only with the inputs the run started with (docs/checkpoints.md). The scene
// text itself is stored whole and compared by job/resume.hpp.
#include <string>
#include <vector>

namespace simphant::job_detail {

/// JSON text: [[file, crc64], ...] for each of `files` in order, crc64 the CRC-64/XZ of
/// its bytes (core/crc64.hpp, 16 hex digits) or "missing" when it cannot be read (a URDF
/// mesh that is not there, a package:// name's file). Reads each file once.
std::string input_digests(const std::vector<std::string>& files);

/// Compares `recorded` (input_digests of the run to resume, "" when it recorded none:
/// an output of an earlier simphant) with the files now: throws SceneError("--resume",
/// "<file>: changed since the run to resume read it (CRC-64 now ..., recorded in
/// <source>: ...); restore it, or start a new run") for the first file that differs,
/// and names a file that the run read and the scene no longer names, or one it names
/// now and did not. `source`: the checkpoint file, for the message.
void check_input_digests(const std::string& recorded, const std::vector<std::string>& files,
                         const std::string& source);

}  // namespace simphant::job_detail
