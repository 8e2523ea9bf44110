#include "simphant/batch/batch_pack.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace simphant::batch {
namespace {

void put3(std::vector<double>& p, const Vec3d& v) {
  p.push_back(v.x);
  p.push_back(v.y);
  p.push_back(v.z);
}

void put33(std::vector<double>& p, const Mat3d& A) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) p.push_back(A.m[r][c]);
}

template <class T>
void pack_topology(const Model& m, PackedModel<T>& out) {
  // Constraint elements (model_view.hpp): the joints, then the drivers, then the mimic
  // rows, each with S sides.
  const int N = m.n_bodies(), J = m.n_constraints(), S = m.element_sides();
  out.sides = S;
  out.n_mimics = m.n_mimics();
  for (int a = 0; a < J; ++a) {
    const ConstraintElement e = m.constraint(a);
    out.joint_type.push_back(a < m.n_joints() ? static_cast<int>(m.joints[a].type)
                             : a < m.first_mimic() ? kDriverElement
                                                   : kMimicElement);
    for (int s = 0; s < S; ++s) out.joint_body.push_back(e.side_body(s) < 0 ? -1 : e.side_body(s));
    out.row_offset.push_back(e.row_offset);
    out.removed_mask.push_back(m.removed_mask(a));
  }
  for (const Driver& dr : m.drivers) {
    out.driver.push_back(dr.joint);
    out.driver.push_back(static_cast<int>(dr.coordinate));
    out.driver.push_back(dr.law);
  }
  for (const Mimic& mi : m.mimics) {
    out.mimic.push_back(mi.joint);
    out.mimic.push_back(mi.leader);
    out.mimic.push_back(static_cast<int>(mi.coordinate));
    out.mimic.push_back(static_cast<int>(mi.leader_coordinate));
  }
  out.law_start.push_back(0);
  for (const MotionLaw& l : m.laws) {
    out.law_type.push_back(static_cast<int>(l.type));
    out.law_start.push_back(out.law_start.back() + static_cast<int>(l.params.size()));
  }
  // Elements touching each body, in element order, an element's sides in order 0..S-1
  // (the order the CPU reference subtracts Phi_q^T lambda in).
  out.body_joint_start.assign(N + 1, 0);
  for (int k = 0; k < N; ++k) {
    for (int a = 0; a < J; ++a)
      for (int side = 0; side < S; ++side)
        if (out.joint_body[S * a + side] == k) {
          out.body_joint.push_back(a);
          out.body_joint.push_back(side);
        }
    out.body_joint_start[k + 1] = static_cast<int>(out.body_joint.size()) / 2;
  }
  // Row-block couplings of element a (the order in which the CPU reference sums C's
  // contributions, dynamics/evaluate.cpp build_schur): for each distinct body k of a's
  // non-ground sides in ascending k, for each entry (b, sb) of body k's list above (element
  // order, sides in order), for each side sa of a at body k in side order: (b, sa, sb).
  // With two sides (a joint's bodies are distinct) that is a's sides in ascending body
  // index, each with its body's list.
  out.coupling_start.assign(J + 1, 0);
  for (int a = 0; a < J; ++a) {
    int last = -1;  // bodies of a done so far: those <= last
    for (;;) {
      int k = -1;  // the smallest body of a above last
      for (int s = 0; s < S; ++s) {
        const int b = out.joint_body[S * a + s];
        if (b > last && (k < 0 || b < k)) k = b;
      }
      if (k < 0) break;
      for (int p = out.body_joint_start[k]; p < out.body_joint_start[k + 1]; ++p)
        for (int sa = 0; sa < S; ++sa)
          if (out.joint_body[S * a + sa] == k) {
            out.coupling.push_back(out.body_joint[2 * p]);
            out.coupling.push_back(sa);
            out.coupling.push_back(out.body_joint[2 * p + 1]);
          }
      last = k;
    }
    out.coupling_start[a + 1] = static_cast<int>(out.coupling.size()) / 3;
  }
  // Tables follow the laws' parameters (model_view.hpp), in force order.
  int table = kBodyParams * N + kJointParams * m.n_joints() + kForceParams * static_cast<int>(m.forces.size()) +
              kGlobalParams + out.law_start.back();
  for (const ForceElement& f : m.forces) {
    const int nk = f.stiffness_table.n(), nc = f.damping_table.n();
    out.force.push_back({static_cast<int>(f.type), f.body, f.world_frame ? 1 : 0, f.body_i, f.body_j, f.joint,
                         static_cast<int>(f.kind), f.input_index, table, nk, table + 3 * nk, nc, f.law, -1, -1,
                         static_cast<int>(f.shape_i.kind), static_cast<int>(f.shape_j.kind), f.contact.normal.law});
    table += 3 * (nk + nc);
  }
  // Joint laws follow the tables, in force order.
  for (std::size_t f = 0; f < m.forces.size(); ++f)
    if (m.forces[f].type == ForceType::Actuator && m.forces[f].has_joint_law) {
      out.force[f].joint_law = table;
      table += kJointLawParams;
    }
  // Mimic rows follow the joint laws, in mimic order.
  out.mimic_param = table;
  table += kMimicParams * m.n_mimics();
  // Contact pairs follow the mimic rows, in force order.
  for (std::size_t f = 0; f < m.forces.size(); ++f)
    if (m.forces[f].type == ForceType::Contact) {
      out.force[f].contact = table;
      table += kContactParams;
    }
  // End stops follow the contact pairs, in force order.
  for (std::size_t f = 0; f < m.forces.size(); ++f)
    if (m.forces[f].type == ForceType::JointStop) {
      out.force[f].contact = table;
      table += kJointStopParams;
    }
}

// Indices of the parameters whose value (bit pattern: -0.0 differs from +0.0) differs
// between some model and model 0, ascending.
std::vector<int> varied_params(const std::vector<std::vector<double>>& all) {
  std::vector<int> varied;
  const std::vector<double>& p0 = all.front();
  for (std::size_t p = 0; p < p0.size(); ++p)
    for (const std::vector<double>& q : all)
      if (std::memcmp(&q[p], &p0[p], sizeof(double)) != 0) {
        varied.push_back(static_cast<int>(p));
        break;
      }
  return varied;
}

}  // namespace

int count_varied_params(const std::vector<Model>& models) {
  if (models.size() < 2) return 0;
  std::vector<std::vector<double>> all;
  all.reserve(models.size());
  for (const Model& m : models) all.push_back(flatten_params(m));
  return static_cast<int>(varied_params(all).size());
}

std::vector<double> flatten_params(const Model& m) {
  std::vector<double> p;
  for (const Body& b : m.bodies) {
    p.push_back(b.mass);
    put33(p, b.inertia_B);
    put33(p, b.inertia_inv_B);
  }
  for (const Joint& j : m.joints) {
    const JointFrame<double>& f = j.frame;
    for (const Vec3d* v : {&f.u_i, &f.v_i, &f.a_i, &f.b_i, &f.u_j, &f.v_j, &f.a_j, &f.b_j}) put3(p, *v);
  }
  for (const ForceElement& f : m.forces) {
    put3(p, f.point_B);
    put3(p, f.vec);
    put3(p, f.point_i);
    put3(p, f.point_j);
    p.push_back(f.stiffness);
    p.push_back(f.damping);
    p.push_back(f.rest);
    p.push_back(f.value);
  }
  put3(p, m.gravity);
  p.push_back(m.solver.baumgarte_alpha);
  p.push_back(m.solver.baumgarte_beta);
  p.push_back(m.solver.tikhonov_epsilon);
  p.push_back(m.solver.violation_bound);
  for (const MotionLaw& l : m.laws) p.insert(p.end(), l.params.begin(), l.params.end());
  for (const ForceElement& f : m.forces) {
    p.insert(p.end(), f.stiffness_table.p.begin(), f.stiffness_table.p.end());
    p.insert(p.end(), f.damping_table.p.begin(), f.damping_table.p.end());
  }
  for (const ForceElement& f : m.forces)
    if (f.type == ForceType::Actuator && f.has_joint_law) {
      double v[kJointLawParams];
      joint_law_values(f.joint_law, v);
      p.insert(p.end(), v, v + kJointLawParams);
    }
  for (const Mimic& mi : m.mimics) {
    p.push_back(mi.multiplier);
    p.push_back(mi.offset);
    p.push_back(mi.q_ref);
    p.push_back(mi.leader_q_ref);
  }
  for (const ForceElement& f : m.forces) {
    if (f.type != ForceType::Contact) continue;
    for (const Shape<double>* sh : {&f.shape_i, &f.shape_j}) {
      p.insert(p.end(), sh->size, sh->size + 3);
      put3(p, sh->pos_B);
      p.insert(p.end(), {sh->quat_B.w, sh->quat_B.x, sh->quat_B.y, sh->quat_B.z});
    }
    const ContactPairParams<double>& c = f.contact;
    p.insert(p.end(), {c.normal.stiffness, c.normal.exponent, c.normal.damping, c.normal.v_floor, c.friction.mu,
                       c.friction.v_eps, c.friction.mu_roll, c.friction.w_eps, c.margin});
  }
  for (const ForceElement& f : m.forces)
    if (f.type == ForceType::JointStop)
      p.insert(p.end(), {f.lower, f.upper, f.contact.normal.stiffness, f.contact.normal.exponent, f.contact.normal.damping});
  return p;
}

template <class T>
ModelView<T> PackedModel<T>::host_view() const {
  return {n_instances,        n_bodies,           n_joints,          n_rows,           n_forces,
          n_inputs,           n_params,           static_cast<T>(dt), static_cast<T>(eps_relative), refine_steps, projection, joint_type.data(), joint_body.data(),
          row_offset.data(),  coupling_start.data(), coupling.data(),   body_joint_start.data(), body_joint.data(),
          force.data(),       param_shared.data(), param_slot.data(),  param_varied.data(),
          n_drivers,          n_laws,             driver.data(),      law_type.data(),  law_start.data(),
          integrator,         static_cast<T>(rtol), static_cast<T>(atol), static_cast<T>(min_step),
          static_cast<T>(max_step), static_cast<T>(first_step), removed_mask.data(),
          static_cast<T>(auto_pivot), sides, n_mimics, mimic.data(), mimic_param};
}

template <class T>
PackedModel<T> pack_models(const std::vector<Model>& models, int n_instances, double eps_relative) {
  if (models.empty() || (models.size() != 1 && static_cast<int>(models.size()) != n_instances))
    throw std::invalid_argument("pack_models: need 1 model or one per instance");
  const Model& m0 = models.front();
  PackedModel<T> out;
  out.n_instances = n_instances;
  out.n_bodies = m0.n_bodies();
  out.n_joints = m0.n_joints();
  out.n_rows = m0.n_rows;
  out.n_drivers = m0.n_drivers();
  out.n_laws = static_cast<int>(m0.laws.size());
  out.n_forces = static_cast<int>(m0.forces.size());
  out.n_inputs = m0.n_inputs;
  out.dt = m0.solver.dt;
  out.eps_relative = eps_relative;
  out.refine_steps = m0.solver.refinement_steps;
  out.projection = static_cast<int>(m0.solver.projection);
  out.auto_pivot = m0.solver.auto_projection_pivot;
  out.integrator = static_cast<std::int8_t>(m0.solver.integrator);
  out.rtol = m0.solver.rtol;
  out.atol = m0.solver.atol;
  out.min_step = m0.solver.min_step;
  out.max_step = m0.solver.max_step;
  out.first_step = m0.solver.first_step;
  pack_topology(m0, out);
  const std::vector<double> p0 = flatten_params(m0);
  out.n_params = static_cast<int>(p0.size());
  out.param_shared.assign(p0.begin(), p0.end());
  out.param_slot.assign(p0.size(), -1);
  // A parameter is per instance when any model's value differs from instance 0's.
  if (models.size() > 1) {
    std::vector<std::vector<double>> all;
    all.reserve(models.size());
    for (const Model& m : models) all.push_back(flatten_params(m));
    const std::vector<int> varied = varied_params(all);
    for (std::size_t s = 0; s < varied.size(); ++s) out.param_slot[varied[s]] = static_cast<int>(s);
    out.param_varied.resize(varied.size() * static_cast<std::size_t>(n_instances));
    for (std::size_t s = 0; s < varied.size(); ++s)
      for (int i = 0; i < n_instances; ++i)
        out.param_varied[s * n_instances + i] = static_cast<T>(all[i][varied[s]]);
  }
  return out;
}

template <class T>
int set_instance_params(PackedModel<T>& packed, int instance, const std::vector<double>& params) {
  const std::size_t n = static_cast<std::size_t>(packed.n_instances);
  if (instance < 0 || static_cast<std::size_t>(instance) >= n)
    throw std::invalid_argument("set_instance_params: instance " + std::to_string(instance) + " out of range");
  if (params.size() != static_cast<std::size_t>(packed.n_params))
    throw std::invalid_argument("set_instance_params: " + std::to_string(params.size()) + " parameters for " +
                                std::to_string(packed.n_params));
  int added = 0;
  for (std::size_t p = 0; p < params.size(); ++p) {
    const T value = static_cast<T>(params[p]);
    int slot = packed.param_slot[p];
    if (slot < 0) {
      if (std::memcmp(&value, &packed.param_shared[p], sizeof(T)) == 0) continue;
      slot = packed.n_varied();
      packed.param_varied.insert(packed.param_varied.end(), n, packed.param_shared[p]);
      packed.param_slot[p] = slot;
      ++added;
    }
    packed.param_varied[static_cast<std::size_t>(slot) * n + static_cast<std::size_t>(instance)] = value;
  }
  return added;
}

template int set_instance_params<double>(PackedModel<double>&, int, const std::vector<double>&);
template int set_instance_params<float>(PackedModel<float>&, int, const std::vector<double>&);
template PackedModel<double> pack_models<double>(const std::vector<Model>&, int, double);
template PackedModel<float> pack_models<float>(const std::vector<Model>&, int, double);
template struct PackedModel<double>;
template struct PackedModel<float>;

}  // namespace simphant::batch
