#pragma once
// Private to scene/: the sweep section (docs/scene-format.md, "Sweep") — path resolution,
// spec validation and the distributions' inverse CDFs.
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"

namespace simphant::scene_detail {

/// Resolves a sweep path ("bodies.crank.mass", "gravity[2]", "bodies.b.inertia[0][1]")
/// against the document and returns its JSON pointer ("/bodies/0/mass"). Throws
/// SceneError(error_path, reason) — the reason quotes the path — when the path is
/// malformed, names nothing, names a non-number or points into the sweep section.
std::string resolve_sweep_path(const nlohmann::json& doc, const std::string& path, const std::string& error_path);

/// Parses and validates the "sweep" object found at JSON pointer `path` of `doc`; every
/// parameter path is resolved now. Throws SceneError naming the bad field.
SweepSpec parse_sweep(const nlohmann::json& sweep, const std::string& path, const nlohmann::json& doc);

/// Probability mass of N(mean, sd) on [lo, hi] (computed in the tail where it is precise).
double normal_mass(double mean, double sd, double lo, double hi);

/// The parameter's distribution mapped from u in [0, 1): uniform low + u (high - low);
/// normal (optionally truncated) by the inverse CDF at u + 2^-54 (kept off 0; truncated:
/// cdf(lo) + u' (cdf(hi) - cdf(lo))); list values[floor(u len)].
double inverse_cdf(const SweepParameter& p, double u);

}  // namespace simphant::scene_detail
