// The instance limit of a sweep (scene.hpp: sweep_bytes, check_instance_count): what
// sampling and compiling the instances hold, against the machine's memory.
#include <cstdio>
#include <string>
#include <vector>

#include "simphant/core/system_memory.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

namespace {

/// Bytes per heap block beyond its payload (glibc malloc: header and alignment).
constexpr double kBlockOverhead = 16;

/// Heap bytes of a string (none when it fits the small-string buffer).
double heap_bytes(const std::string& s) {
  return s.capacity() > 15 ? static_cast<double>(s.capacity() + 1) + kBlockOverhead : 0.0;
}

/// Heap bytes of a vector's buffer (its capacity, not its size).
template <class T>
double heap_bytes(const std::vector<T>& v) {
  return v.capacity() == 0 ? 0.0 : static_cast<double>(v.capacity() * sizeof(T)) + kBlockOverhead;
}

/// Bytes of one compiled Model: the object, its vectors and names, and the robot's
/// joint-space part (compile_robot makes one per instance model).
double model_bytes(const Model& m) {
  double b = sizeof(Model) + heap_bytes(m.name) + heap_bytes(m.bodies) + heap_bytes(m.joints) + heap_bytes(m.forces);
  for (const Body& x : m.bodies) b += heap_bytes(x.name);
  for (const Joint& x : m.joints) b += heap_bytes(x.name);
  for (const ForceElement& x : m.forces) b += heap_bytes(x.name);
  b += heap_bytes(m.mimics);
  for (const Mimic& x : m.mimics) b += heap_bytes(x.name);
  if (m.robot) {
    const RobotJointSpace& r = *m.robot;
    b += sizeof(RobotJointSpace) + 2 * kBlockOverhead;  // make_shared: object and control block
    b += heap_bytes(r.q0) + heap_bytes(r.qd0) + heap_bytes(r.tau) + heap_bytes(r.joints) + heap_bytes(r.effective_inertia) +
         heap_bytes(r.base_q0) + heap_bytes(r.base_v0) + heap_bytes(r.urdf_path) + heap_bytes(r.file_key) +
         heap_bytes(r.model.name) + heap_bytes(r.model.base_link) + heap_bytes(r.model.links);
    for (const ReducedLink& l : r.model.links) b += heap_bytes(l.name) + heap_bytes(l.joint_name);
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
