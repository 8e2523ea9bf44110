#include "simphant/sim/link_frames.hpp"

#include <stdexcept>

#include "simphant/math/small.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

int link_frame_count(const Model& model) {
  if (!model.robot) return 0;
  return model.robot->n() + (model.robot->model.floating ? 1 : 0);
}

LinkTree link_tree(const Model& model) {
  LinkTree t;
  if (!model.robot) return t;
  const ReducedModel& r = model.robot->model;
  t.floating = r.floating;
  const int base = r.floating ? r.nq() : -1;  // the floating base's frame (link_frame_index)
  for (const ReducedLink& l : r.links) {
    t.names.push_back(l.name);
    t.parents.push_back(l.parent >= 0 ? l.parent : base);
  }
  if (r.floating) {
    t.names.push_back(r.base.link);
    t.parents.push_back(-1);
  }
  return t;
}

int link_frame_index(const Model& model, const std::string& name) {
  if (!model.robot) throw std::invalid_argument("link_frames: the scene has no robot (docs/robots.md)");
  const ReducedModel& r = model.robot->model;
  const int k = r.link_index(name);
  if (k >= 0) return k;
  if (r.floating && name == r.base.link) return r.nq();
  std::string known;
  for (const ReducedLink& l : r.links) known += (known.empty() ? "" : ", ") + l.name;
  if (r.floating) known += ", " + r.base.link + " (the floating base)";
  throw std::invalid_argument("link_frames: unknown link '" + name + "' (links: " + known +
                              "; a link fixed to another by URDF fixed joints is named by that one)");
}

void link_frames_from_states(const Model& model, const double* states, const int* frames, int count, double* out) {
  const int F = link_frame_count(model);
  const ReducedModel& r = model.robot->model;
  const int floating = r.floating ? 1 : 0;
  for (int c = 0; c < count; ++c) {
    const int f = frames[c];
    if (f < 0 || f >= F)
      throw std::invalid_argument("link_frames: frame index " + std::to_string(f) + " out of [0, " +
                                  std::to_string(F) + ")");
    const bool base = f == r.nq();
    const int body = base ? 0 : f + floating;
    const Vec3d com = base ? r.base.com : r.links[static_cast<std::size_t>(f)].com;
    const double* s = states + 13 * body;
    Quatd p{s[3], s[4], s[5], s[6]};
    if (!base && p.w < 0) p = Quatd{-p.w, -p.x, -p.y, -p.z};  // the same rotation, w >= 0
    const Mat3d R = rotation(p);
    const Vec3d omega_B{s[10], s[11], s[12]};
    const Vec3d com_W = mul(R, com);
    const Vec3d o = Vec3d{s[0], s[1], s[2]} - com_W;
    const Vec3d v = Vec3d{s[7], s[8], s[9]} - cross(mul(R, omega_B), com_W);
    const double rec[13] = {o.x, o.y, o.z, p.w, p.x, p.y, p.z, v.x, v.y, v.z, omega_B.x, omega_B.y, omega_B.z};
    for (int e = 0; e < 13; ++e) out[13 * c + e] = rec[e];
  }
}

}  // namespace simphant
