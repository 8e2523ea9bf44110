#include "simphant/sim/contact_frames.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "simphant/contact/contact_wrench.hpp"
#include "simphant/sim/recorded_body_kin.hpp"

namespace simphant {

static_assert(kContactRecordComponents == kContactSummaryComponents, "kContactTable names contact_pair_summary");

std::vector<std::string> contact_pair_names(const Model& model) {
  std::vector<std::string> out;
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact) out.push_back(f.name);
  return out;
}

namespace {

// Calls f(w, o, r_B) for each contact pair of each instance in model order, w its
// contact_pair_wrench at the instance's states (nullptr for an instance whose states are
// not finite), o its `per_pair` numbers in out and r_B the position of its shape B's body
// (the point of w.b's torque; W's origin for the ground).
template <class F>
void for_each_pair(const std::vector<Model>& models, int n, const double* states, double* out, int per_pair, F&& f) {
  const Model& m0 = models.front();
  const int B = m0.n_bodies(), P = m0.contact_pair_count();
  static const ContactPairWrench<double> apart = contact_pair_apart_result<double>();
  for (int i = 0; i < n; ++i) {
    const Model& model = models[models.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    const double* rec = states + static_cast<std::size_t>(i) * B * 13;
    const bool finite = std::all_of(rec, rec + 13 * B, [](double x) { return std::isfinite(x); });
    double* o = out + static_cast<std::size_t>(i) * P * per_pair;
    for (const ForceElement& f_el : model.forces) {
      if (f_el.type != ForceType::Contact) continue;
      if (!finite) {
        f(nullptr, o, Vec3d{0, 0, 0});
      } else {
        const BodyKin<double> kin_a = recorded_body_kin(rec, f_el.body_i), kin_b = recorded_body_kin(rec, f_el.body_j);
        if (contact_pair_apart(f_el.shape_i, kin_a, f_el.shape_j, kin_b, f_el.contact.margin)) {
          f(&apart, o, kin_b.r);  // what contact_pair_wrench's broad phase returns for it
        } else {
          const ContactPairWrench<double> w = contact_pair_wrench(f_el.shape_i, kin_a, f_el.shape_j, kin_b, f_el.contact,
                                                                  static_cast<const double*>(nullptr), true);
          f(&w, o, kin_b.r);
        }
      }
      o += per_pair;
    }
  }
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

void contact_frames(const std::vector<Model>& models, int n, const double* states, double* out) {
  for_each_pair(models, n, states, out, kContactRecordComponents,
                [](const ContactPairWrench<double>* w, double* o, const Vec3d&) {
                  if (w)
                    contact_pair_summary(*w, o);
                  else
                    std::fill(o, o + kContactRecordComponents, kNaN);
                });
}

void contact_points(const std::vector<Model>& models, int n, const double* states, double* out) {
  for_each_pair(models, n, states, out, kMaxContacts * kContactPointComponents,
                [](const ContactPairWrench<double>* w, double* o, const Vec3d&) {
                  std::fill(o, o + kMaxContacts * kContactPointComponents, kNaN);
                  for (int c = 0; w && c < w->contacts.count; ++c) {
                    const ContactPoint<double>& pt = w->contacts.contact[c];
                    double* p = o + c * kContactPointComponents;
                    p[0] = pt.point_W.x;
                    p[1] = pt.point_W.y;
                    p[2] = pt.point_W.z;
                    p[3] = pt.normal_W.x;
                    p[4] = pt.normal_W.y;
                    p[5] = pt.normal_W.z;
                    p[6] = w->normal_force[c];
                  }
                });
}

void contact_wrenches(const std::vector<Model>& models, int n, const double* states, double* out) {
  for_each_pair(models, n, states, out, kContactWrenchComponents,
                [](const ContactPairWrench<double>* w, double* o, const Vec3d& r_b) {
                  if (!w) {
                    std::fill(o, o + kContactWrenchComponents, kNaN);
                    return;
                  }
                  // b.torque_W is about B's centre of mass r_B: about W's origin it gains r_B x f.
                  const Vec3d f = w->b.force_W;
                  const Vec3d tau = w->b.torque_W + cross(r_b, f);
                  const double v[kContactWrenchComponents] = {f.x, f.y, f.z, tau.x, tau.y, tau.z};
                  std::copy(v, v + kContactWrenchComponents, o);
                });
}

}  // namespace simphant
