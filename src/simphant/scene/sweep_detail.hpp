#pragma once
// Private to scene/: the sweep section (docs/scene-format.md, "Sweep") — path resolution,
// spec validation, the distributions' inverse CDFs, correlated normals, the Sobol' and
// Saltelli designs and design files.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"

namespace simphant::scene_detail {

/// Resolves a sweep path ("bodies.crank.mass", "gravity[2]", "bodies.b.inertia[0][1]")
/// against the document and returns its JSON pointer ("/bodies/0/mass"). Throws
/// SceneError(error_path, reason) — the reason quotes the path — when the path is
/// malformed, names nothing, names a non-number or points into the sweep section.
std::string resolve_sweep_path(const nlohmann::json& doc, const std::string& path, const std::string& error_path);

/// Throws SceneError(error_path, reason) when the resolved JSON pointer names a setting of
/// the whole run, which no instance can have a value of its own for: the step loop's dt,
/// t_end, record_every and the integrator's rtol, atol, min_step, max_step, first_step
/// (one loop advances every instance), and tikhonov_epsilon (the run's shift is chosen
/// once from the first instance, docs/solver.md). For sweep parameters and
/// Simulator::set_parameters alike.
void check_per_instance_path(const std::string& json_pointer, const std::string& path, const std::string& error_path);

/// Parses and validates the "sweep" object found at JSON pointer `path` of `doc`; every
/// parameter path is resolved now, a design file is read now (a relative `file` from the
/// folder of `source` when that is a regular file, else from the working folder).
/// Throws SceneError naming the bad field.
SweepSpec parse_sweep(const nlohmann::json& sweep, const std::string& path, const nlohmann::json& doc,
                      const std::string& source);

/// Parses the "sensitivities" object at JSON pointer `path` of `doc` (docs/sensitivities.md):
/// {"parameters": [sweep paths]}, each resolved now and checked as a per-instance value
/// (check_per_instance_path), none naming the same value twice. Throws SceneError naming
/// the bad field.
SensitivitySpec parse_sensitivities(const nlohmann::json& j, const std::string& path, const nlohmann::json& doc);

/// Checks a resolved parameter against those already in `spec` (a setting shared by all
/// instances, or a value named twice) and appends it; `path_field` names its path in messages.
void add_parameter(SweepSpec& spec, SweepParameter p, const std::string& path_field,
                   const std::vector<std::string>& earlier_fields);

/// Parses `sweep.correlation` (covariance false) or `sweep.covariance` (true) at `path`
/// against the spec's parameters: the listed paths must be normal, untruncated sweep
/// parameters; the matrix symmetric, square of their count, positive definite (Eigen LLT),
/// with a unit diagonal (correlation) or a diagonal std^2 of each parameter (covariance).
SweepCorrelation parse_correlation(const nlohmann::json& j, const std::string& path, bool covariance,
                                   const SweepSpec& spec);

/// Maps one instance's uniforms u (one per parameter, in [0, 1)) to its values in place:
/// inverse_cdf for each independent parameter; the correlated normals through their
/// standard normal quantiles z = Phi^-1(u + 2^-54), then L z, then mean + std (L z).
void map_point(const SweepSpec& sweep, double* x);

/// Sobol' mode: u[p][k] for points k = 0..n-1 of the D-dimensional Sobol' sequence
/// (point 0 is the origin; Boost.Random's engine gives points 1, 2, ...), XOR-shifted
/// by one 64-bit word per dimension from std::mt19937_64(seed) when scrambled.
void sobol_uniforms(const SweepSpec& sweep, int n, std::vector<std::vector<double>>& u);

/// Saltelli mode: u[p][k] in SALib.sample.sobol.sample's row order (base points of the
/// 2D-dimensional Sobol' sequence as sobol_uniforms, columns 0..D-1 matrix A, D..2D-1 B).
void saltelli_uniforms(const SweepSpec& sweep, std::vector<std::vector<double>>& u);

/// Rows of a Saltelli design: base (2 D + 2) with second order, base (D + 2) without;
/// -1 when above 2^31 - 1.
long long saltelli_rows(long long base, long long dims, bool second_order);

/// Largest dimension of Boost.Random's Sobol' tables (3667).
int max_sobol_dimension();

/// A design file read: its columns (paths as written), values[c][r], the CRC-64 of its bytes.
struct DesignTable {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> values;
  std::string crc64;
  int rows = 0;
};

/// Reads the design `file` (CSV with a header row of paths, or NPY, recognised by its
/// magic string, whose columns are named by `columns` at `columns_path`; nullptr: not
/// given). Every error is a SceneError at `file_path` (or `columns_path`) naming the file
/// and the place (row, column) with the reason.
DesignTable read_design_file(const std::string& file, const std::string& file_path, const nlohmann::json* columns,
                             const std::string& columns_path);

/// Probability mass of N(mean, sd) on [lo, hi] (computed in the tail where it is precise).
double normal_mass(double mean, double sd, double lo, double hi);

/// Phi^-1(u + 2^-54), the standard normal quantile as inverse_cdf takes it for an
/// untruncated normal (u in [0, 1); |z| <= 38).
double standard_normal_quantile(double u);

/// The parameter's distribution mapped from u in [0, 1): uniform low + u (high - low);
/// normal (optionally truncated) by the inverse CDF at u + 2^-54 (kept off 0; truncated:
/// cdf(lo) + u' (cdf(hi) - cdf(lo))); list values[floor(u len)].
double inverse_cdf(const SweepParameter& p, double u);

}  // namespace simphant::scene_detail
