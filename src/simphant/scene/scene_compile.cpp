// compile_model: a scene document -> a validated Model (docs/scene-format.md).
#include <cmath>

#include "simphant/model/robot_joint_laws.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

Model compile_model(const nlohmann::json& doc) {
  using namespace scene_detail;
  const std::string root;  // JSON pointer of the document: ""
  expect_object(doc, "/");
  check_keys(doc, root,
             {"name", "gravity", "bodies", "joints", "drivers", "forces", "contact", "solver", "sweep", "robot", "output",
              "sensitivities"});
  Model model;
  if (const json* name = find_key(doc, "name")) model.name = as_string(*name, "/name");
  if (const json* output = find_key(doc, "output")) model.output = compile_output(*output, "/output");
  const RobotSolver solver_type = compile_solver_type(require_key(doc, root, "solver"), "/solver");
  if (const json* robot = find_key(doc, "robot")) {  // docs/robots.md
    for (const char* key : {"bodies", "joints", "drivers", "forces", "gravity"})
      if (find_key(doc, key) != nullptr)
        throw SceneError(child_path(root, key), "not allowed beside a \"robot\" section (the robot's bodies, joints and "
                                                "actuators come from its URDF; gravity is robot.gravity)");
    const double file_dt = robot_mjcf_timestep(*robot, "/robot/mjcf");  // docs/mjcf.md: the default dt
    model.solver = compile_solver(require_key(doc, root, "solver"), "/solver", std::isnan(file_dt) ? nullptr : &file_dt);
    if (solver_type != RobotSolver::Dae && is_adaptive(model.solver.integrator))
      throw SceneError("/solver/integrator", std::string("solver \"") + robot_solver_name(solver_type) +
                                                 "\" runs the fixed-step integrators rk4, euler and symplectic_euler (got \"" +
                                                 integrator_name(model.solver.integrator) +
                                                 "\"); use solver type \"dae\" for the adaptive ones");
    compile_robot(*robot, "/robot", solver_type, model);
    attach_robot_joint_laws(model);  // the joint forces of the DAE form (docs/robots.md)
    compile_contacts(doc, model);  // after the joint laws: appends to model.forces (every solver: docs/contact.md)
    return model;
  }
  if (solver_type != RobotSolver::Dae)
    throw SceneError("/solver/type", std::string("solver \"") + robot_solver_name(solver_type) +
                                         "\" needs a \"robot\" section (joint coordinates of a URDF robot)");
  model.gravity = vec3_or(doc, root, "gravity", zero3<double>());
  if (!find_key(doc, "bodies"))
    throw SceneError("/bodies", "required key is missing (a scene needs \"bodies\" or a \"robot\" section)");
  compile_bodies(require_key(doc, root, "bodies"), "/bodies", model);
  if (const json* joints = find_key(doc, "joints")) compile_joints(*joints, "/joints", model);
  check_clearance_joint_refs(doc);
  if (const json* drivers = find_key(doc, "drivers")) compile_drivers(*drivers, "/drivers", model);
  if (const json* forces = find_key(doc, "forces")) compile_forces(*forces, "/forces", model);
  compile_joint_stops(doc, model);  // after the forces: appends to model.forces
  compile_contacts(doc, model);     // after the stops: appends to model.forces
  model.solver = compile_solver(require_key(doc, root, "solver"), "/solver");
  return model;
}

}  // namespace simphant
