#include "simphant/dynamics/reduce_sample.hpp"

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"

namespace simphant {

void sample_reductions(const Model& model, const Data& d, double t, const double* inputs, const ReductionLayout& L,
                       double* acc_row, double step) {
  const ReductionAcc acc{acc_row, 1};
  for (int j = 0; L.any_joint() && j < model.n_joints(); ++j) {
    const Joint& jt = model.joints[j];
    JointSample<double> s;
    s.type = jt.type;
    s.frame = jt.frame;
    s.Bi = jt.body_i >= 0 ? d.kin[jt.body_i] : ground_kin<double>();
    s.Bj = jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>();
    joint_reaction(d.rows[j].m, &d.rows[j].jac[0][0], d.lambda.data() + jt.row_offset, s.Bj, jt.frame.u_j, s.reaction);
    // A driver on the joint adds its load (-lambda of its row, driver_loads in
    // dynamics/evaluate.hpp) along / about the joint's axis.
    s.driver_axial_force = 0.0;
    s.driver_axial_moment = 0.0;
    for (const Driver& dr : model.drivers)
      if (dr.joint == j) (dr.coordinate == JointCoordinate::Angle ? s.driver_axial_moment : s.driver_axial_force) -= d.lambda[dr.row_offset];
    reduction_add_joint(L, acc, j, s, step);
  }
  for (int k = 0; k < model.n_drivers(); ++k) reduction_add_driver(L, acc, k, -d.lambda[model.drivers[k].row_offset], step);
  if (L.enabled(ReductionQuantity::Contacts)) {
    int p = 0;
    for (const ForceElement& f : model.forces) {
      if (f.type != ForceType::Contact) continue;
      const BodyKin<double> ki = f.body_i >= 0 ? d.kin[f.body_i] : ground_kin<double>();
      const BodyKin<double> kj = f.body_j >= 0 ? d.kin[f.body_j] : ground_kin<double>();
      double summary[kContactSummaryComponents];
      contact_pair_summary(contact_pair_wrench(f.shape_i, ki, f.shape_j, kj, f.contact, static_cast<const double*>(nullptr), true),
                           summary);
      reduction_add_contact(L, acc, p++, summary, step);
    }
  }
  const double violation = model.n_rows > 0 ? max_violation(d) : 0.0;
  const double energy = L.enabled(ReductionQuantity::Energy) ? total_energy(model, d) : 0.0;
  const double power = L.enabled(ReductionQuantity::Power) ? nonconservative_power(model, d, t, inputs) : 0.0;
  reduction_add_instance<double>(L, acc, violation, energy, power, step);
}

}  // namespace simphant
