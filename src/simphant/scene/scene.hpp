#pragma once
// Scene loading: JSON text -> validated document -> Model (docs/scene-format.md).
// Every error is a SceneError whose message starts with the JSON path of the offending
// value ("/bodies/1/mass: must be > 0"); the CLI prints it and exits with code 2.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/model/model.hpp"

namespace simphant {

/// Bad input: `path` is a JSON pointer (or a sweep path), `what()` is "path: reason".
class SceneError : public std::runtime_error {
 public:
  SceneError(const std::string& path, const std::string& reason)
      : std::runtime_error(path + ": " + reason), path_(path), reason_(reason) {}
  const std::string& path() const { return path_; }
  /// The reason alone, without the leading "path: ".
  const std::string& reason() const { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

enum class Distribution : int { Uniform = 0, Normal = 1, List = 2 };

struct SweepParameter {
  std::string path;           ///< sweep path syntax (docs/scene-format.md), e.g. "bodies.crank.mass"
  std::string json_pointer;   ///< the resolved JSON pointer, e.g. "/bodies/0/mass"
  Distribution dist = Distribution::Uniform;
  double low = 0, high = 0;   ///< uniform
  double mean = 0, std = 0;   ///< normal
  bool truncated = false;
  double trunc_low = 0, trunc_high = 0;
  std::vector<double> values; ///< list
};

/// Sweep modes (docs/scene-format.md, "Sweep"). Sobol and Saltelli use the Sobol'
/// sequence of Boost.Random (Joe & Kuo direction numbers); Design reads a design file.
enum class SweepMode : int { Random = 0, LatinHypercube = 1, Grid = 2, Sobol = 3, Saltelli = 4, Design = 5 };

/// The mode's name in the scene format ("random", "lhs", "grid", "sobol", "saltelli", "design").
const char* sweep_mode_name(SweepMode mode);

/// Correlated normal parameters (`sweep.correlation` / `sweep.covariance`): the standard
/// normal draws z of these parameters become L z, L the lower Cholesky factor of their
/// correlation matrix, before each is scaled by its mean and std.
struct SweepCorrelation {
  std::vector<int> parameters;   ///< indices into SweepSpec::parameters (normal, not truncated)
  std::vector<double> cholesky;  ///< L, row-major, parameters.size()^2 (upper part 0)
};

struct SweepSpec {
  SweepMode mode = SweepMode::Random;
  /// random / lhs / sobol: the count; grid: product of list lengths; saltelli:
  /// base (2 D + 2) or base (D + 2); design: the design file's rows.
  int instances = 1;
  std::uint64_t seed = 0;
  std::vector<SweepParameter> parameters;  ///< design mode: one per column, dist List holding the column
  bool scramble = false;                   ///< sobol / saltelli: random digital shift from the seed
  int saltelli_base = 0;                   ///< saltelli: N
  bool saltelli_second_order = true;       ///< saltelli: rows for second-order indices
  SweepCorrelation correlation;            ///< empty: independent parameters
  std::string design_file;                 ///< design: the file read (absolute when the scene is a file)
  std::string design_crc64;                ///< design: CRC-64/XZ of its bytes, 16 hex digits
};

/// The "sensitivities" section (docs/sensitivities.md): the scene values whose forward
/// sensitivities a run computes, in sweep path syntax, and their JSON pointers.
struct SensitivitySpec {
  std::vector<std::string> paths;
  std::vector<std::string> json_pointers;
};

/// A parsed, validated scene: its text, its JSON document, the base Model, the sweep and
/// the sensitivities.
struct Scene {
  std::string text;        ///< the scene file as read
  nlohmann::json doc;      ///< the parsed document
  Model model;             ///< the base model (no sweep applied)
  SweepSpec sweep;
  SensitivitySpec sensitivities;  ///< empty: none
};

/// The sensitivities of `paths` (sweep path syntax) against a scene document, validated
/// as a "sensitivities" section's parameters would be (resolved, per instance, none
/// twice; docs/sensitivities.md); messages name `path` + "/parameters/<k>". An empty list
/// gives none. Throws SceneError.
SensitivitySpec sensitivity_spec(const nlohmann::json& doc, const std::vector<std::string>& paths,
                                 const std::string& path);

/// Parses and validates scene text; throws SceneError. `source` names the file in
/// messages about unparsable JSON. The sweep's instance count passes check_instance_count.
Scene parse_scene(const std::string& text, const std::string& source = "<scene>");

/// Reads and parses a scene file (core/input_file.hpp: a regular file of at most 64 MiB);
/// a file whose text is XML is an MJCF model, read as the scene of mjcf_scene_text
/// (docs/mjcf.md, "An MJCF file as the scene");
/// throws SceneError("<file>: cannot open: ...", "<file>: the file has N bytes, over the
/// limit ...") and every error of parse_scene.
Scene load_scene(const std::string& file);

/// The `simphant run` flags that override the scene's "output" section (docs/scene-format.md
/// "Output"): datasets and reductions as comma-separated names ("" : the scene's;
/// reductions also "all" or "none"), frames "every" | "first_last" | "none" ("" : the
/// scene's), compression 0..9 (nullopt: the scene's; any other given value is refused).
/// Writes the given ones into doc["output"].
/// Throws SceneError naming the flag ("--datasets: unknown dataset \"x\" (valid: ...)").
void apply_output_flags(nlohmann::json& doc, const std::string& datasets, const std::string& frames,
                        const std::string& reductions, std::optional<int> compression);

/// Compiles a JSON document into a Model (validation of item 3 of the scene format).
Model compile_model(const nlohmann::json& doc);

/// Sampled sweep values: values[p][k] is parameter p's value for instance
/// first_instance + k of the design.
struct SweepSamples {
  int n_instances = 1;
  std::vector<std::string> paths;
  std::vector<std::string> json_pointers;
  std::vector<std::vector<double>> values;
  /// The design's index of the first instance held: 0 for a whole design, the slice's
  /// start for a shard's (job/shard.hpp); messages name instances by it.
  int first_instance = 0;
};

/// Samples the sweep. n_instances_override > 0 replaces the sweep's count (not in grid,
/// saltelli or design mode, where it is an error if it differs: SceneError("/sweep/instances", ...)).
/// SceneError("/sweep/instances", ...) too when the sampled values (8 bytes each) would
/// exceed kMemoryFraction of physical memory.
/// Deterministic for a given seed; generator, draw order (random: instance-major,
/// parameter-minor) and inverse CDFs are specified in docs/scene-format.md, "Sweep".
SweepSamples sample_sweep(const SweepSpec& sweep, int n_instances_override = -1);

/// One Model per instance with the sampled values applied to the document; a single
/// shared Model when the sweep has no parameters. Throws SceneError naming the
/// instance and the path when a sampled value makes the model invalid; applies
/// check_instance_count first; polls the stop flag (core/stop_flag.hpp) once per
/// instance and throws Interrupted("compiling instance models") when it is set.
std::vector<Model> build_instance_models(const Scene& scene, const SweepSamples& samples);

/// Values set on top of an instance's sweep values (Simulator::set_parameters): pairs of
/// a path in sweep path syntax (docs/scene-format.md, "Sweep": any number in the scene
/// outside the sweep section, e.g. "bodies.crank.mass", "joints.j1.frame_i.origin[0]")
/// and its value in the scene's units (SI), written in order.
using ParameterOverrides = std::vector<std::pair<std::string, double>>;

/// The model of one instance: values (one per sweep parameter, in the sweep's order)
/// written into the scene document, then the overrides (so that an override of a sweep
/// parameter's path wins), compiled as build_instance_models does (the same values and
/// no overrides give the same Model; the same document gives the same Model as a scene
/// file holding those values). Throws SceneError at the override's path when it is
/// malformed, names nothing or a non-number, points into the sweep section, or its value
/// is not finite; SceneError naming the instance, the episode and the path (and the
/// value written there) when a value makes the model invalid; std::invalid_argument
/// when the count of values is not the number of sweep parameters.
Model build_instance_model(const Scene& scene, const std::vector<double>& values, int instance, std::uint64_t episode,
                           const ParameterOverrides& overrides = {});

/// Domain randomisation: the sweep parameters' values for episode `episode` of instance
/// `instance` (one per parameter, in order), each drawn independently from its
/// distribution (uniform, normal with its truncation, list: a uniformly chosen element;
/// in every sweep mode) with a counter-based generator keyed by (sweep seed, instance,
/// episode, parameter index): deterministic, and independent of the batch size and of
/// the other instances (docs/scene-format.md, "Sweep", "Episodes"). Episode 0 of a
/// simulator is the sweep's own sample (sample_sweep), which this does not reproduce;
/// episodes >= 1 use this. instance >= 0.
std::vector<double> sample_episode(const SweepSpec& sweep, int instance, std::uint64_t episode);

/// The sweep as a SALib problem, JSON text: {"num_vars": D, "names": [paths], "bounds":
/// [[a, b], ...], "dists": [...]} with SALib's conventions (uniform "unif" [low, high];
/// normal "norm" [mean, std]; truncated normal "truncnorm" [lo, hi, mean, std]; list and
/// design columns "unif" [min, max] of their values). "" without parameters.
std::string salib_problem(const SweepSpec& sweep);

/// Bytes that sampling and compiling `n_instances` instances of the scene hold at once:
/// 8 per sampled value plus one compiled Model per instance (names, bodies, joints,
/// forces, the robot's joint-space part); 0 when the sweep has no parameters (one
/// shared model). The memory guard of a run adds its backend's buffers to this.
double sweep_bytes(const Scene& scene, long long n_instances);

/// The instance limit shared by every command (run, check, ...): refuses, with
/// SceneError("/sweep/instances", "<n> instances: ... need about X GiB ..."), a count
/// whose sweep_bytes exceed kMemoryFraction (0.8) of physical memory
/// (core/system_memory.hpp). build_instance_models applies it (sample_sweep applies the
/// same fraction to its sampled values alone); a caller that allocates per instance
/// before them calls it first.
void check_instance_count(const Scene& scene, long long n_instances);

}  // namespace simphant
