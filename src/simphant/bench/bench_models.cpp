#include "simphant/bench/bench_models.hpp"

#include <filesystem>
#include <memory>
#include <utility>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::bench {

namespace {

constexpr const char* kChainPrefix = "chain_";

void require_chain_size(int N) {
  if (N < 1) throw std::invalid_argument("chain_N: N must be >= 1 (got " + std::to_string(N) + ")");
}

/// N of "chain_<N>", or 0 when `name` is not a chain name. Throws for "chain_x".
int chain_size_of(const std::string& name) {
  if (name.rfind(kChainPrefix, 0) != 0) return 0;
  const std::string digits = name.substr(std::char_traits<char>::length(kChainPrefix));
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("bench model '" + name + "': a chain is named chain_<N>, N = 1, 2, ...");
  const int N = std::stoi(digits);
  require_chain_size(N);
  return N;
}

/// For "<stem>_aba" / "<stem>_cga": the stem and the joint-space solver; else ("", Dae).
std::pair<std::string, RobotSolver> joint_space_name(const std::string& name) {
  for (const auto& [suffix, solver] : {std::pair<const char*, RobotSolver>{"_aba", RobotSolver::Aba},
                                       std::pair<const char*, RobotSolver>{"_cga", RobotSolver::Cga}}) {
    const std::size_t n = std::char_traits<char>::length(suffix);
    if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) return {name.substr(0, name.size() - n), solver};
  }
  return {"", RobotSolver::Dae};
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace

const std::vector<int>& default_chain_sizes() {
  static const std::vector<int> sizes = {1, 2, 4, 8, 16, 32};
  return sizes;
}

std::vector<std::string> default_model_names() {
  std::vector<std::string> names;
  for (int N : default_chain_sizes()) names.push_back(kChainPrefix + std::to_string(N));
  for (const char* s : {"arm7", "slider_crank", "four_bar", "bricard"}) names.emplace_back(s);
  return names;
}

std::string chain_urdf(int N) {
  require_chain_size(N);
  std::ostringstream u;
  u << "<?xml version=\"1.0\"?>\n"
    << "<!-- chain_" << N << ": " << N << "-link pendulum of SimPhant's benchmark suite (written by simphant bench export;\n"
    << "     src/simphant/bench/bench_models.hpp). Each link: a uniform rod, 1 kg, 0.5 m along x, CoM at\n"
    << "     its middle; revolute joints about y at the previous link's tip; limits never act. -->\n"
    << "<robot name=\"chain_" << N << "\">\n"
    << "  <link name=\"base\"/>\n";
  for (int k = 1; k <= N; ++k) {
    u << "  <link name=\"link_" << k << "\">\n"
      << "    <inertial>\n"
      << "      <origin xyz=\"0.25 0 0\" rpy=\"0 0 0\"/>\n"
      << "      <mass value=\"1.0\"/>\n"
      << "      <inertia ixx=\"0.0002\" ixy=\"0\" ixz=\"0\" iyy=\"0.020833333333333332\" iyz=\"0\" "
         "izz=\"0.020833333333333332\"/>\n"
      << "    </inertial>\n"
      << "  </link>\n"
      << "  <joint name=\"joint_" << k << "\" type=\"revolute\">\n"
      << "    <parent link=\"" << (k == 1 ? std::string("base") : "link_" + std::to_string(k - 1)) << "\"/>\n"
      << "    <child link=\"link_" << k << "\"/>\n"
      << "    <origin xyz=\"" << (k == 1 ? "0" : "0.5") << " 0 0\" rpy=\"0 0 0\"/>\n"
      << "    <axis xyz=\"0 1 0\"/>\n"
      << "    <limit lower=\"-1e6\" upper=\"1e6\" effort=\"1e6\" velocity=\"1e6\"/>\n"
      << "  </joint>\n";
  }
  u << "</robot>\n";
  return u.str();
}

std::string chain_scene_json(int N) {
  require_chain_size(N);
  const std::vector<double> zeros(static_cast<std::size_t>(N), 0.0);
  nlohmann::ordered_json doc;
  doc["name"] = "chain_" + std::to_string(N);
  doc["robot"] = {{"urdf", "chain_" + std::to_string(N) + ".urdf"},
                  {"q0", zeros},
                  {"qd0", zeros},
                  {"tau", zeros},
                  {"gravity", {0.0, 0.0, -9.81}}};
  doc["solver"] = {{"type", "dae"}, {"dt", 0.001}, {"t_end", 1.0}};
  return doc.dump(2) + "\n";
}

Model chain_model(int N) {
  require_chain_size(N);
  const std::string name = kChainPrefix + std::to_string(N);
  const ReducedModel rm = parse_urdf(chain_urdf(N), name + ".urdf");
  const std::vector<double> zeros(static_cast<std::size_t>(N), 0.0);
  Model m = maximal_model_from_urdf(rm, zeros, zeros);
  m.name = name;
  return m;
}

Model bench_model(const std::string& name, const std::string& examples_dir) {
  const auto [robot_stem, solver] = joint_space_name(name);
  // chain_<N>_aba / _cga: the exported robot scene chain_<N>.json of examples_dir (a folder
  // written by export_bench_models).
  if (solver == RobotSolver::Dae)
    if (const int N = chain_size_of(name)) return chain_model(N);
  const std::string stem = solver == RobotSolver::Dae ? name : robot_stem;
  const std::filesystem::path file = std::filesystem::path(examples_dir) / (stem + ".json");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw std::invalid_argument("unknown bench model '" + name + "': not chain_<N> and no scene " + file.string() +
                                " (models: chain_<N>, arm7, slider_crank, four_bar, bricard, any scene stem of " +
                                examples_dir + ", or a robot scene's stem + _aba / _cga; chain_<N>_aba needs "
                                "--examples of a folder written by `simphant bench --export`)");
  Model m = load_scene(file.string()).model;
  if (solver == RobotSolver::Dae) {
    m.robot.reset();
  } else {
    if (!m.robot)
      throw std::invalid_argument("bench model '" + name + "': " + file.string() +
                                  " is not a robot scene (the _aba / _cga suffixes select a robot's joint-space solver)");
    auto robot = std::make_shared<RobotJointSpace>(*m.robot);
    robot->solver = solver;
    m.robot = std::move(robot);
  }
  m.name = name;
  return m;
}

bool is_joint_space(const Model& model) { return model.robot && model.robot->solver != RobotSolver::Dae; }

const char* bench_solver_name(const Model& model) {
  return model.robot ? robot_solver_name(model.robot->solver) : "dae";
}

std::vector<std::string> export_bench_models(const std::string& dir, const std::string& examples_dir,
                                             const std::vector<int>& chain_sizes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw std::runtime_error("cannot create the folder " + dir);
  std::vector<std::string> written;
  for (int N : chain_sizes) {
    const fs::path stem = fs::path(dir) / (kChainPrefix + std::to_string(N));
    write_text(stem.string() + ".urdf", chain_urdf(N));
    write_text(stem.string() + ".json", chain_scene_json(N));
    written.push_back(stem.string() + ".urdf");
    written.push_back(stem.string() + ".json");
  }
  for (const char* f : {"arm7.urdf", "arm7.json"}) {
    const fs::path from = fs::path(examples_dir) / f, to = fs::path(dir) / f;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec) throw std::runtime_error("cannot copy " + from.string() + " to " + to.string() + ": " + ec.message());
    written.push_back(to.string());
  }
  return written;
}

}  // namespace simphant::bench
