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

void contact_frames(const std::vector<Model>& models, int n, const double* states, double* out) {
  const Model& m0 = models.front();
  const int B = m0.n_bodies(), P = m0.contact_pair_count();
  for (int i = 0; i < n; ++i) {
    const Model& model = models[models.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    const double* rec = states + static_cast<std::size_t>(i) * B * 13;
    const bool finite = std::all_of(rec, rec + 13 * B, [](double x) { return std::isfinite(x); });
    double* o = out + static_cast<std::size_t>(i) * P * kContactRecordComponents;
    for (const ForceElement& f : model.forces) {
      if (f.type != ForceType::Contact) continue;
      if (!finite) {
        std::fill(o, o + kContactRecordComponents, std::numeric_limits<double>::quiet_NaN());
        o += kContactRecordComponents;
        continue;
      }
      const ContactPairWrench<double> w =
          contact_pair_wrench(f.shape_i, recorded_body_kin(rec, f.body_i), f.shape_j, recorded_body_kin(rec, f.body_j),
                              f.contact, static_cast<const double*>(nullptr), true);
      contact_pair_summary(w, o);
      o += kContactRecordComponents;
    }
  }
}

}  // namespace simphant
