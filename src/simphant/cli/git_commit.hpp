#pragma once
// The source revision that `simphant bench` records (docs/benchmarks.md).
#include <string>

namespace simphant::cli {

/// The environment variable SIMPHANT_COMMIT when set (it names the source where git
/// cannot: a copied tree, as on the GPU machine, scripts/gpu_check.sh), else
/// `git rev-parse HEAD` in the current folder plus "-dirty" when tracked files have
/// local changes; "" outside a checkout or without git. Runs git as a subprocess, so it
/// lives in the executable, not in the library.
std::string git_commit();

}  // namespace simphant::cli
