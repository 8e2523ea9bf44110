#include "simphant/dynamics/data.hpp"

namespace simphant {

Data::Data(const Model& model)
    : kin(model.n_bodies()),
      rows(model.n_joints()),
      minv_jt(model.n_joints()),
      Q(Eigen::VectorXd::Zero(model.nv())),
      Phi_q(Eigen::MatrixXd::Zero(model.n_rows, model.nv())),
      phi(Eigen::VectorXd::Zero(model.n_rows)),
      phi_dot(Eigen::VectorXd::Zero(model.n_rows)),
      gamma_star(Eigen::VectorXd::Zero(model.n_rows)),
      minv_q(Eigen::VectorXd::Zero(model.nv())),
      C(Eigen::MatrixXd::Zero(model.n_rows, model.n_rows)),
      rhs(Eigen::VectorXd::Zero(model.n_rows)),
      llt(model.n_rows),
      lambda(Eigen::VectorXd::Zero(model.n_rows)),
      qddot(Eigen::VectorXd::Zero(model.nv())),
      k1(model.ny()),
      k2(model.ny()),
      k3(model.ny()),
      k4(model.ny()),
      y_stage(model.ny()) {
  const int N = model.n_bodies();
  body_joint_start.assign(N + 1, 0);
  for (const Joint& j : model.joints) {
    if (j.body_i >= 0) ++body_joint_start[j.body_i + 1];
    if (j.body_j >= 0) ++body_joint_start[j.body_j + 1];
  }
  for (int k = 0; k < N; ++k) body_joint_start[k + 1] += body_joint_start[k];
  body_joint.resize(body_joint_start[N]);
  body_joint_side.resize(body_joint_start[N]);
  std::vector<int> fill(body_joint_start.begin(), body_joint_start.end() - 1);
  for (int a = 0; a < model.n_joints(); ++a) {
    const int bodies[2] = {model.joints[a].body_i, model.joints[a].body_j};
    for (int side = 0; side < 2; ++side) {
      if (bodies[side] < 0) continue;
      body_joint[fill[bodies[side]]] = a;
      body_joint_side[fill[bodies[side]]++] = side;
    }
  }
}

}  // namespace simphant
