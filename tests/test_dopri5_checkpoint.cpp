// Checkpoint and resume of dopri5 runs (job/checkpoint.cpp, docs/checkpoints.md): the
// integrator state goes into /checkpoint/integrator_state, and a run stopped after a few
// slices and resumed (from its output, and from an earlier periodic checkpoint) ends
// with a file equal to an uninterrupted run's, bit for bit (attributes included: the
// dimension scales' back-references too, which a stopped run's /reductions, written
// again on resume, used to leave dangling), with and without a projection (the two
// ways the continuous extension is built) and with reductions.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "h5_compare.hpp"
#include "process_support.hpp"
#include "temp_dir.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/run_job.hpp"

namespace fs = std::filesystem;
namespace h5 = simphant::h5;
using nlohmann::json;
using namespace simphant::test;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = make_process_temp_dir("dopri5_checkpoint");
  return dir;
}

void expect_equal_files(const fs::path& a, const fs::path& b) {
  const std::vector<std::string> diff =
      file_differences(a.string(), b.string(), {"/@wall_time_s", "/@start_time", "/@command_line", "/@git_commit"});
  std::string list;
  for (const std::string& d : diff) list += d + "\n";
  EXPECT_TRUE(diff.empty()) << list;
}

/// examples/four_bar.json (3 instances of its sweep, 0.6 s) on dopri5 with `projection`,
/// recording every 20 ms and the energy's reductions.
std::string four_bar(const std::string& projection) {
  json scene = json::parse(read_text(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json"));
  scene["solver"]["t_end"] = 0.6;
  scene["solver"]["integrator"] = "dopri5";
  scene["solver"]["rtol"] = 1e-7;
  scene["solver"]["atol"] = 1e-10;
  scene["solver"]["projection"] = projection;
  scene["sweep"]["instances"] = 3;
  scene["output"]["reductions"] = json::array({"energy", "constraint_violation"});
  return scene.dump();
}

TEST(Dopri5Checkpoint, StoppedAndResumedRunsEqualTheUninterruptedOne) {
  for (const std::string projection : {"none", "position_velocity"}) {
    simphant::JobOptions o;
    o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json";
    o.scene_text = four_bar(projection);
    o.threads = 1;
    o.checkpoint_every_s = 0;
    o.out = (temp_dir() / ("ref_" + projection + ".h5")).string();
    const simphant::JobResult ref = simphant::run_job(o);
    ASSERT_EQ(ref.exit_code, 0);

    o.out = (temp_dir() / ("stopped_" + projection + ".h5")).string();
    o.checkpoint_every_s = 1e-9;  // a checkpoint after every slice
    const std::string snapshot = (temp_dir() / ("snapshot_" + projection + ".h5")).string();
    int slices = 0;
    simphant::JobHooks hooks;
    hooks.progress = [&](const simphant::JobProgress&) {
      if (++slices == 2) fs::copy_file(simphant::checkpoint_file_name(o.out), snapshot);
    };
    hooks.stop_requested = [&] { return slices >= 4; };
    const simphant::JobResult stopped = simphant::run_job(o, hooks);
    ASSERT_EQ(stopped.exit_code, 130);
    ASSERT_LT(stopped.summary.at("steps").get<std::int64_t>(), ref.summary.at("steps").get<std::int64_t>());
    {
      const h5::Handle f = h5::open_file_readonly(o.out);
      const std::vector<hsize_t> dims = h5::dataset_dims(f.id(), "checkpoint/integrator_state");
      ASSERT_EQ(dims.size(), 2u);
      EXPECT_EQ(dims[0], 3u);
      EXPECT_EQ(dims[1], 11u + 7u * 13u * 3u);  // header, y, k1, r1..r5 of 3 bodies; no inputs
    }

    simphant::JobOptions r;
    r.resume = o.out;
    r.threads = 1;
    const simphant::JobResult resumed = simphant::run_job(r);
    ASSERT_EQ(resumed.exit_code, 0);
    expect_equal_files(ref.out_file, o.out);

    // The earlier periodic checkpoint, as a kill would leave it.
    fs::remove(o.out);
    fs::copy_file(snapshot, simphant::checkpoint_file_name(o.out));
    const simphant::JobResult from_snapshot = simphant::run_job(r);
    ASSERT_EQ(from_snapshot.exit_code, 0);
    EXPECT_LT(from_snapshot.summary.at("resumed_from_step").get<std::int64_t>(),
              resumed.summary.at("resumed_from_step").get<std::int64_t>());
    expect_equal_files(ref.out_file, o.out);
  }
}

}  // namespace
