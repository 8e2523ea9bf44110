#include "simphant/sim/sensitivity_engine.hpp"

#include <algorithm>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/sim/dae_sensitivity_engine.hpp"
#include "simphant/sim/robot_sensitivity_engine.hpp"

namespace simphant {

void SensitivityEngine::note_branches(std::size_t i, const std::uint8_t* branch, BranchCheck when) {
  std::uint8_t* stored = branch_.data() + i * static_cast<std::size_t>(n_laws_);
  if (when == BranchCheck::Start) crossed_[i] = 0;
  if (when == BranchCheck::Step)
    for (int k = 0; k < n_laws_; ++k) crossed_[i] = crossed_[i] || joint_law_jumps(stored[k], branch[k]);
  std::copy(branch, branch + n_laws_, stored);
}

std::unique_ptr<SensitivityEngine> make_sensitivity_engine(std::shared_ptr<const std::vector<Model>> models,
                                                           int n_instances, SensitivitySeeds seeds, int threads) {
  const Model& m = models->front();
  const bool robot = m.robot && m.robot->solver != RobotSolver::Dae;
  return SensitivityEngine::with_pass_width(
      static_cast<int>(seeds.paths.size()), [&](auto W) -> std::unique_ptr<SensitivityEngine> {
        if (robot) return std::make_unique<RobotSensitivityEngine<W()>>(*models, n_instances, std::move(seeds), threads);
        return std::make_unique<DaeSensitivityEngine<W()>>(std::move(models), n_instances, std::move(seeds), threads);
      });
}

}  // namespace simphant
