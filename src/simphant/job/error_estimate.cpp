#include "simphant/job/error_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "simphant/io/h5_file.hpp"

namespace simphant {

namespace {

constexpr int kStateNumbers = 13;  ///< r (3), p (4), v (3), omega_B (3) per body (read_states)
const char* const kMethod = "Richardson extrapolation against a dt/2 run";

}  // namespace

double richardson_factor(int order) {
  if (order < 1) throw std::invalid_argument("richardson_factor: order " + std::to_string(order) + " < 1");
  const double two_p = std::ldexp(1.0, order);
  return two_p / (two_p - 1.0);
}

double quaternion_angle(const double* p, const double* q) {
  // p* q = (p.w q.w + p.v . q.v,  p.w q.v - q.w p.v - p.v x q.v)
  const double w = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
  const double x = p[0] * q[1] - q[0] * p[1] - (p[2] * q[3] - p[3] * q[2]);
  const double y = p[0] * q[2] - q[0] * p[2] - (p[3] * q[1] - p[1] * q[3]);
  const double z = p[0] * q[3] - q[0] * p[3] - (p[1] * q[2] - p[2] * q[1]);
  return 2.0 * std::atan2(std::sqrt(x * x + y * y + z * z), std::fabs(w));
}

void richardson_estimate(const double* states_dt, const double* states_half, const std::int8_t* status_dt,
                         const std::int8_t* status_half, int n, int n_bodies, int order, double* position,
                         double* orientation) {
  const double factor = richardson_factor(order);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < n; ++i) {
    double dr = 0, dq = 0;
    bool finite = status_dt[i] == 0 && status_half[i] == 0;
    for (int b = 0; finite && b < n_bodies; ++b) {
      const std::size_t at = (static_cast<std::size_t>(i) * n_bodies + b) * kStateNumbers;
      const double* a = states_dt + at;
      const double* h = states_half + at;
      const double ex = a[0] - h[0], ey = a[1] - h[1], ez = a[2] - h[2];
      const double r = std::sqrt(ex * ex + ey * ey + ez * ez), angle = quaternion_angle(a + 3, h + 3);
      finite = std::isfinite(r) && std::isfinite(angle);
      dr = std::max(dr, r);
      dq = std::max(dq, angle);
    }
    position[i] = finite ? factor * dr : nan;
    orientation[i] = finite ? factor * dq : nan;
  }
}

HalfStepRun::HalfStepRun(std::vector<Model> models, const SimulatorOptions& options, const Simulator& main) {
  for (Model& m : models) m.solver.dt *= 0.5;
  const int n = main.n_instances();
  sim_ = Simulator::create(std::move(models), options, n);
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> y(N * static_cast<std::size_t>(main.state_size()));
  std::vector<std::int64_t> steps(N), status_steps(N);
  std::vector<std::int8_t> status(N), reasons(N);
  main.get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), nullptr, reasons.data());
  // The main batch has not stepped: its instance clocks (0) hold for dt/2 too.
  sim_->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), nullptr, reasons.data());
}

ErrorEstimateSummary HalfStepRun::write(Recorder& recorder, const Simulator& main, int order) const {
  const int n = main.n_instances(), B = main.model().n_bodies();
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> y_dt(N * static_cast<std::size_t>(B) * kStateNumbers), y_half(y_dt.size());
  std::vector<std::int8_t> s_dt(N), s_half(N);
  std::vector<double> time(N);
  main.read_states(y_dt.data());
  sim_->read_states(y_half.data());
  main.read_status(s_dt.data(), time.data());
  sim_->read_status(s_half.data(), time.data());
  std::vector<double> position(N), orientation(N);
  richardson_estimate(y_dt.data(), y_half.data(), s_dt.data(), s_half.data(), n, B, order, position.data(),
                      orientation.data());
  const hid_t f = recorder.file_id();
  for (const auto& [name, values, units, what] :
       {std::tuple{"position", &position, "m", "estimated global error of the body positions at the end: max over "
                                                "the bodies of |r_dt - r_dt/2| times the factor"},
        std::tuple{"orientation", &orientation, "rad",
                   "estimated global error of the body orientations at the end: max over the bodies of the rotation "
                   "angle between p_dt and p_dt/2 times the factor"}}) {
    const std::string path = std::string("error_estimate/") + name;
    recorder.write_instance_dataset(path, {static_cast<hsize_t>(n)}, values->data(), {"instance"}, {units});
    const h5::Handle d(H5Dopen2(f, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.valid()) throw h5::H5Error("H5Dopen2(/" + path + ") failed");
    h5::write_attr(d.id(), "long_name", what);
    h5::write_attr(d.id(), "method", kMethod);
    h5::write_attr(d.id(), "order", order);
    h5::write_attr(d.id(), "factor", richardson_factor(order));
    h5::write_attr(d.id(), "dt_s", main.dt());
    h5::write_attr(d.id(), "t_s", main.time());
  }
  const auto largest = [](const std::vector<double>& v) {
    double m = std::numeric_limits<double>::quiet_NaN();
    for (double x : v)
      if (!std::isnan(x)) m = std::isnan(m) ? x : std::max(m, x);
    return m;
  };
  return {largest(position), largest(orientation)};
}

}  // namespace simphant
