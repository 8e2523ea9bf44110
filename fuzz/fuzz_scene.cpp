// libFuzzer target: scene text -> parse_scene (JSON, validation, compilation) -> sweep
// sampling -> up to 4 instance models -> assembly of small models. Bad input must end in
// SceneError; any other exception, a crash, a sanitizer report or a leak is a finding.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/scene/scene.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Robot scenes: "arm7.urdf" resolves in examples/; example-robot-data paths look in an
  // empty folder instead of asking python3.
  if (::chdir(SIMPHANT_SOURCE_DIR "/examples") != 0) std::abort();
  ::setenv("SIMPHANT_ROBOT_DATA", "/nonexistent", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simphant;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const Scene scene = parse_scene(text, "fuzz.json");
    SweepSpec one = scene.sweep;
    int count = std::min(scene.sweep.instances, 4);
    if (one.mode == SweepMode::Grid) {
      for (SweepParameter& p : one.parameters) p.values.resize(1);  // the first grid point
      count = -1;
    } else if (one.mode == SweepMode::Saltelli) {
      one.saltelli_base = 1;  // the smallest design, D + 2 rows
      one.saltelli_second_order = false;
      count = -1;
    } else if (one.mode == SweepMode::Design) {
      count = -1;
    }
    SweepSamples samples = sample_sweep(one, count);
    samples.n_instances = std::min(samples.n_instances, 4);  // keep an input's cost small
    for (std::vector<double>& v : samples.values) v.resize(static_cast<std::size_t>(samples.n_instances));
    const std::vector<Model> models = build_instance_models(scene, samples);
    for (const Model& m : models) {
      if (m.n_bodies() > 16 || m.robot) continue;  // keep an input's cost small
      Model bounded = m;
      bounded.solver.assembly_max_iterations = std::min(bounded.solver.assembly_max_iterations, 20);
      Data d(bounded);
      std::vector<double> Y(static_cast<std::size_t>(bounded.ny()));
      initial_state(bounded, Y.data());
      assemble(bounded, d, Y.data());
    }
  } catch (const SceneError&) {
  }
  return 0;
}
