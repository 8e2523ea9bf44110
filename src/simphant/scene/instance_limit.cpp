// The instance limit of a sweep (scene.hpp: sweep_bytes, check_instance_count): what
// sampling and compiling the instances hold, against the machine's memory.
#include <cstdio>
#include <string>

#include "simphant/core/system_memory.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

namespace {

double name_bytes(const std::string& s) { return static_cast<double>(s.capacity()); }

/// Heap and object bytes of one compiled Model (its vectors, names and robot part).
double model_bytes(const Model& m) {
  double b = sizeof(Model) + name_bytes(m.name);
  for (const Body& x : m.bodies) b += sizeof(Body) + name_bytes(x.name);
  for (const Joint& x : m.joints) b += sizeof(Joint) + name_bytes(x.name);
  for (const ForceElement& x : m.forces) b += sizeof(ForceElement) + name_bytes(x.name);
  if (m.robot) {  // compile_robot makes one per instance model
    const RobotJointSpace& r = *m.robot;
    b += sizeof(RobotJointSpace) + 3.0 * sizeof(double) * r.n() + name_bytes(r.urdf_path) + name_bytes(r.model.name);
    for (const ReducedLink& l : r.model.links) b += sizeof(ReducedLink) + name_bytes(l.name) + name_bytes(l.joint_name);
  }
  return b;
}

}  // namespace

double sweep_bytes(const Scene& scene, long long n_instances) {
  const double n = static_cast<double>(n_instances);
  const double params = static_cast<double>(scene.sweep.parameters.size());
  if (params == 0) return 0;  // one shared model, nothing sampled
  return n * (8.0 * params + model_bytes(scene.model));
}

void check_instance_count(const Scene& scene, long long n_instances) {
  const double need = sweep_bytes(scene, n_instances);
  const double have = physical_memory_bytes();
  if (have > 0 && need > kMemoryFraction * have) {
    char msg[320];
    std::snprintf(msg, sizeof msg,
                  "%lld instances: their sampled values and compiled models need about %.1f GiB (%.0f bytes each); "
                  "this machine has %.1f GiB (at most %.0f %% may be planned): use fewer instances",
                  n_instances, need / (1 << 30), need / static_cast<double>(n_instances), have / (1 << 30),
                  100 * kMemoryFraction);
    throw SceneError("/sweep/instances", msg);
  }
}

}  // namespace simphant
