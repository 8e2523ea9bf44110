// The complete example of docs/scene-format.md parses, assembles and runs: the doc
// cannot drift from the format.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

std::string complete_example_block() {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/docs/scene-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t section = doc.find("## Complete example");
  if (section == std::string::npos) return "";
  const size_t start = doc.find("```json\n", section);
  const size_t end = doc.find("```", start + 8);
  if (start == std::string::npos || end == std::string::npos) return "";
  return doc.substr(start + 8, end - start - 8);
}

TEST(DocsExample, CompleteExampleParsesAssemblesAndRuns) {
  const std::string text = complete_example_block();
  ASSERT_FALSE(text.empty()) << "no ```json block under '## Complete example'";
  const Scene scene = parse_scene(text, "docs/scene-format.md");
  EXPECT_EQ(scene.model.n_bodies(), 2);
  EXPECT_EQ(scene.model.n_rows, 10);  // prismatic 5 + revolute 5
  EXPECT_EQ(scene.model.n_inputs, 1);
  const SweepSamples samples = sample_sweep(scene.sweep);
  ASSERT_EQ(samples.n_instances, 32);
  auto sim = Simulator::create(build_instance_models(scene, samples), SimulatorOptions{"cpu", 2}, 32);
  sim->advance(200);
  std::vector<std::int8_t> status(32);
  std::vector<double> status_time(32), violation(32);
  sim->read_status(status.data(), status_time.data());
  sim->read_constraint_violation(violation.data());
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(status[i], 0) << "instance " << i;
    EXPECT_LT(violation[i], 1e-8) << "instance " << i;
  }
}

}  // namespace
}  // namespace simphant
