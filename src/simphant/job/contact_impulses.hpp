#pragma once
// /contact_impulses (docs/contact.md, "Outputs"): per frame, instance and contact pair,
// the normal impulse [N s] over the interval since the previous frame, the integral of
// the pair's normal force (/contacts' normal_force) by the trapezoid rule over the steps:
//   J_b = dt (S_b - S_a) + dt (F_b - F_a) / 2
// between frames a and b, S the sum of the step-start samples of the normal force that
// the contacts reductions over time accumulate inside the step loop, one per step, on
// every backend of the DAE (formulas/reductions.hpp), and F the frames' own values. So an
// impact shorter than a frame interval is integrated from every step, not from the
// frames. 0 at the first frame; NaN for an instance whose status is not ok at the frame.
// With output.frames first_last (the frames between are not recorded) every frame's
// interval starts at the first frame, so the last one holds the whole run's impulse.
#include <cstdint>
#include <vector>

#include "simphant/sim/simulator.hpp"

namespace simphant {

class ContactImpulses {
 public:
  /// Whether a run of `sim` can record them: contact pairs, the contacts reductions over
  /// time enabled (Simulator::set_reductions) and one sample per step of dt (a fixed-step
  /// integrator: rk4, euler, symplectic_euler).
  static bool applies(const Simulator& sim);

  /// from_first: every interval starts at the first frame (output.frames first_last).
  ContactImpulses(const Simulator& sim, bool from_first);
  /// The impulses of a frame read from `sim` at its current state, whose /contacts are
  /// `contacts` (n, P, kContactRecordComponents): out (n, P) [N s]; the frame becomes the
  /// start of the next interval.
  void frame(const Simulator& sim, const double* contacts, double* out);
  /// The start of the next interval (the sums and the normal forces at the last frame,
  /// (n, 2 P)) for a checkpoint; empty before the first frame. restore() sets it back.
  std::vector<double> start() const;
  void restore(const std::vector<double>& start);

 private:
  int n_, pairs_, acc_size_, first_sum_;
  double dt_;
  bool from_first_, have_start_ = false;
  std::vector<double> acc_, sum_, force_, status_time_;
  std::vector<std::int8_t> status_;
};

}  // namespace simphant
