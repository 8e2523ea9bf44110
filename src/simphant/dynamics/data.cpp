#include "simphant/dynamics/data.hpp"

namespace simphant {

Data::Data(const Model& model)
    : kin(model.n_bodies()),
      rows(model.n_joints()),
      Q(Eigen::VectorXd::Zero(model.nv())),
      Phi_q(Eigen::MatrixXd::Zero(model.n_rows, model.nv())),
      phi(Eigen::VectorXd::Zero(model.n_rows)),
      phi_dot(Eigen::VectorXd::Zero(model.n_rows)),
      gamma_star(Eigen::VectorXd::Zero(model.n_rows)),
      Minv_PhiT(Eigen::MatrixXd::Zero(model.nv(), model.n_rows)),
      C(Eigen::MatrixXd::Zero(model.n_rows, model.n_rows)),
      rhs(Eigen::VectorXd::Zero(model.n_rows)),
      llt(model.n_rows),
      lambda(Eigen::VectorXd::Zero(model.n_rows)),
      qddot(Eigen::VectorXd::Zero(model.nv())),
      k1(model.ny()),
      k2(model.ny()),
      k3(model.ny()),
      k4(model.ny()),
      y_stage(model.ny()),
      y_prev(model.ny()) {}

}  // namespace simphant
