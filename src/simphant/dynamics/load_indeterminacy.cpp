#include "simphant/dynamics/load_indeterminacy.hpp"

#include <algorithm>
#include <cmath>

#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_loads.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/dynamics/sparse_jacobian.hpp"
#include "simphant/model/components.hpp"

namespace simphant {

LoadIndeterminacy analyse_load_indeterminacy(const Model& model, Data& d, const double* Y) {
  const int J = model.n_joints();
  LoadIndeterminacy out;
  out.loads.assign(J, {});
  out.bearing.assign(J, {});
  if (model.n_rows == 0) return out;
  // Phi_q does not depend on t (drivers: Phi_t only). A forest's rows are independent
  // (analyse_constraints, joint by joint): no self-stress, nothing indeterminate.
  if (analyse_constraints(model, d, Y).redundant_rows.empty()) return out;
  // A basis of the self-stresses, Phi_q^T mu = 0: one per redundant row, that row against
  // the rows kept before it (RowQR::self_stress).
  const RowQR qr(sparse_jacobian(model, d));
  std::vector<double> loads(static_cast<std::size_t>(J) * 6);
  for (const int k : qr.analysis().redundant_rows) {
    ++out.self_stresses;
    const Eigen::VectorXd mu = qr.self_stress(k);
    double largest = 0;
    for (int j = 0; j < J; ++j) {
      const Joint& jt = model.joints[j];
      const BodyKin<double> Bi = jt.body_i >= 0 ? d.kin[jt.body_i] : ground_kin<double>();
      const BodyKin<double> Bj = jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>();
      double R[6];
      joint_reaction(d.rows[j].m, &d.rows[j].jac[0][0], mu.data() + jt.row_offset, Bj, jt.frame.u_j, R);
      joint_loads_from_reaction(jt.frame, Bi, Bj, R, 0.0, 0.0, &loads[6 * static_cast<std::size_t>(j)]);
    }
    for (double l : loads) largest = std::max(largest, std::fabs(l));
    for (int j = 0; j < J; ++j)
      for (int c = 0; c < 6; ++c)
        if (std::fabs(loads[6 * static_cast<std::size_t>(j) + c]) > kIndeterminacyTolerance * largest) out.loads[j][c] = true;
  }
  for (int j = 0; j < J; ++j) {
    const std::array<bool, 6>& l = out.loads[j];
    out.bearing[j] = {l[2], l[0] || l[1], l[5], l[3] || l[4]};
  }
  return out;
}

std::vector<std::string> indeterminate_components(const Model& model, const LoadIndeterminacy& a, bool bearing) {
  std::vector<std::string> out;
  for (int j = 0; j < model.n_joints() && j < static_cast<int>(a.loads.size()); ++j) {
    std::string text;
    const int count = bearing ? 4 : 6;
    for (int c = 0; c < count; ++c)
      if (bearing ? a.bearing[j][c] : a.loads[j][c]) text += std::string(" ") + (bearing ? kBearingTable[c].name : kJointLoadTable[c].name);
    if (!text.empty()) out.push_back(model.joints[j].name + ":" + text);
  }
  return out;
}

}  // namespace simphant
