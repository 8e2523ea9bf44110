#include "simphant/sim/centre_of_mass.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace simphant {

void centres_of_mass(const std::vector<Model>& models, int n, const double* states, double* out) {
  const int B = models.front().n_bodies();
  for (int i = 0; i < n; ++i) {
    const Model& model = models[models.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    const double* rec = states + static_cast<std::size_t>(i) * B * 13;
    double m = 0, s[3] = {0, 0, 0};
    for (int b = 0; b < B; ++b) {
      const double mb = model.bodies[static_cast<std::size_t>(b)].mass;
      m += mb;
      for (int c = 0; c < 3; ++c) s[c] += mb * rec[13 * b + c];
    }
    if (!(m > 0)) throw std::invalid_argument("centre of mass: the model's bodies have no mass in all");
    double* o = out + 3 * static_cast<std::size_t>(i);
    const bool finite = std::isfinite(s[0]) && std::isfinite(s[1]) && std::isfinite(s[2]);
    for (int c = 0; c < 3; ++c) o[c] = finite ? s[c] / m : std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace simphant
