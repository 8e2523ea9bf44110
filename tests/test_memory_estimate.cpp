// The memory guards (job/memory_estimate.hpp): the estimate counts every per-worker and
// per-instance buffer (checked against the peak resident memory of real runs, within
// 25 %, for a small model with many instances and a large model with few), and run,
// check and bench refuse, before any work, what would not fit.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "process_support.hpp"
#include "simphant/bench/bench_models.hpp"
#include "simphant/core/system_memory.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/scene/scene.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace simphant;
using namespace simphant::test;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("memory");
  return dir;
}

/// A pendulum of N bodies in a row on revolute hinges (a scene, no URDF): 5N rows, 6N
/// velocities. One step of 1 ms, recorded.
json chain_scene(int N, int instances) {
  json bodies = json::array(), joints = json::array();
  const double L = 0.1;
  for (int k = 0; k < N; ++k) {
    const std::string name = "b" + std::to_string(k);
    bodies.push_back({{"name", name}, {"mass", 1.0}, {"inertia", {1e-4, 1e-3, 1e-3}}, {"position", {(k + 0.5) * L, 0, 0}}});
    joints.push_back({{"name", "j" + std::to_string(k)},
                      {"type", "revolute"},
                      {"body_i", k == 0 ? std::string("ground") : "b" + std::to_string(k - 1)},
                      {"body_j", name},
                      {"frame", {{"origin", {k * L, 0, 0}}, {"z", {0, 1, 0}}, {"x", {1, 0, 0}}}}});
  }
  return {{"name", "chain"}, {"gravity", {0, 0, -9.81}}, {"bodies", bodies}, {"joints", joints},
          {"solver", {{"dt", 0.001}, {"t_end", 0.001}, {"record_every", 1}}}, {"sweep", {{"instances", instances}}}};
}

fs::path write_scene(const std::string& name, const json& doc) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << doc.dump();
  return p;
}

/// Peak resident memory [bytes] of `simphant run scene --threads T --out ...`.
double peak_rss_of_run(const fs::path& scene, int threads, const std::string& tag) {
  const Child c = start_simphant({"run", scene.string(), "--threads", std::to_string(threads), "--backend", "cpu",
                                  "--out", (temp_dir() / (tag + ".h5")).string()},
                                 temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err"));
  const Exit e = wait_child(c, 600);
  EXPECT_TRUE(e.exited && e.code == 0) << tag << ": " << read_text(c.err_file);
  fs::remove(temp_dir() / (tag + ".h5"));
  return 1024.0 * static_cast<double>(e.max_rss_anon_kib);
}

/// Compares the estimate of a run with its measured peak, less the peak of the smallest
/// run (the program, its libraries and HDF5 before any buffer of the job).
void expect_estimate_near_peak(const json& doc, int threads, const std::string& tag) {
  static const double baseline = peak_rss_of_run(write_scene("baseline.json", chain_scene(1, 1)), 1, "baseline");
  const fs::path scene = write_scene(tag + ".json", doc);
  JobOptions o;
  o.scene = scene.string();
  o.threads = threads;
  o.backend = "cpu";
  const MemoryEstimate estimate = estimate_run_memory(load_scene(scene.string()), o);
  const double peak = peak_rss_of_run(scene, threads, tag);
  const double measured = peak - baseline;
  std::printf("%s: estimate %.1f MiB (%s), measured peak %.1f MiB above the baseline %.1f MiB: ratio %.3f\n", tag.c_str(),
              estimate.total() / (1 << 20), estimate.describe().c_str(), measured / (1 << 20), baseline / (1 << 20),
              estimate.total() / measured);
  EXPECT_GT(measured, 50.0 * (1 << 20)) << "too small a run to compare";
  EXPECT_NEAR(estimate.total() / measured, 1.0, 0.25);
}

}  // namespace

// Many instances of a one-body model: per-instance buffers dominate (state and kept
// initial state, frame buffers, statistics, status).
TEST(MemoryEstimate, SmallModelManyInstancesMatchesPeakRss) { expect_estimate_near_peak(chain_scene(1, 250000), 2, "small"); }

// Two instances of a 400-body chain with its first joint's angle given in joint terms (so
// that assembly takes the dense path, dynamics/assembly.hpp): assembly dominates (its
// Data's dense Phi_q, 2000 x 2400, and the decomposition of it); the workers hold the
// sparse path's blocks. Without the given angle the sparse assembly needs a few MiB.
TEST(MemoryEstimate, LargeModelFewInstancesMatchesPeakRss) {
  json doc = chain_scene(400, 2);
  doc["joints"][0]["initial"] = {{"angle", 0.0}};
  ASSERT_FALSE(uses_sparse_assembly(parse_scene(doc.dump()).model));
  ASSERT_TRUE(uses_sparse_assembly(parse_scene(chain_scene(400, 2).dump()).model));
  expect_estimate_near_peak(doc, 2, "large");
}

// The Data of a step holds C and its factor on the dense Schur path (m x m each) and no
// dense Jacobian; the Data that assembles holds the dense Phi_q (m x 6N), and assembly
// its decomposition: what the earlier estimate left out.
TEST(MemoryEstimate, DataCountsJacobianAndSchurMatrices) {
  const Model model = bench::chain_model(100);  // m = 500, 6N = 600
  const double m = model.n_rows, nv = model.nv();
  const double dense = data_bytes(model, SchurFactorization::Dense);
  const double sparse = data_bytes(model, SchurFactorization::Sparse);
  const double assembling = data_bytes(model, SchurFactorization::Sparse, true);
  EXPECT_GE(dense, 8 * (2 * m * m));
  EXPECT_LT(dense, 8 * (2 * m * m) * 1.1);
  EXPECT_LT(sparse, 0.25 * 8 * m * nv);  // a chain's blocks and rows: a fraction of a dense Phi_q
  EXPECT_GE(assembling - sparse, 8 * m * nv);
  EXPECT_LT(assembling - sparse, 8 * m * nv * 1.01);
  // A Data made by the backend holds what data_bytes says: no Phi_q until assembly.
  const Data d(model, SchurFactorization::Dense);
  EXPECT_EQ(d.Phi_q.size(), 0);
  EXPECT_EQ(d.C.rows(), model.n_rows);
  SimulatorOptions dense_one;
  dense_one.backend = "cpu";
  dense_one.threads = 1;
  dense_one.schur = "dense";
  const MemoryEstimate e = estimate_bench_memory(model, 1, dense_one);
  EXPECT_EQ(e.simulator.workers, 1);
  EXPECT_DOUBLE_EQ(e.simulator.per_worker, dense);
  EXPECT_GE(e.simulator.assembly, 2 * 8 * m * nv);  // assembly's Phi_q and its decomposition
}

// A bench row on the dense Schur path (cpu-dense, two workers, a 250-body chain: C and
// its factor, 1250 x 1250 each, per worker, besides assembly): estimate against the
// peak of `simphant bench` measuring that row alone.
TEST(MemoryEstimate, DenseSchurBenchRowMatchesPeakRss) {
  const auto peak_of = [](const std::string& model, const std::string& tag) {
    const Child c = start_simphant({"bench", "--models", model, "--configs", "cpu-dense", "--cpu-sizes", "2",
                                    "--min-seconds", "0.01", "--max-step-seconds", "60"},
                                   temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err"));
    const Exit e = wait_child(c, 600);
    EXPECT_TRUE(e.exited && e.code == 0) << tag << ": " << read_text(c.err_file);
    return 1024.0 * static_cast<double>(e.max_rss_anon_kib);
  };
  const double baseline = peak_of("chain_1", "bench_baseline");
  const double peak = peak_of("chain_250", "bench_dense");
  SimulatorOptions so;
  so.backend = "cpu";
  so.threads = 0;
  so.schur = "dense";
  const MemoryEstimate e = estimate_bench_memory(bench::chain_model(250), 2, so);
  const double measured = peak - baseline;
  std::printf("bench chain_250 cpu-dense x 2: estimate %.1f MiB (%s), measured %.1f MiB above %.1f MiB: ratio %.3f\n",
              e.total() / (1 << 20), e.describe().c_str(), measured / (1 << 20), baseline / (1 << 20),
              e.total() / measured);
  EXPECT_GT(measured, 50.0 * (1 << 20));
  EXPECT_NEAR(e.total() / measured, 1.0, 0.25);
}

// A 20000-body chain needs about 100 GB per worker Data: run and check refuse it before
// any work, with the estimate (exit 3), in well under the time set-up would take.
TEST(MemoryEstimate, RunAndCheckRefuseUpFront) {
  // A chain of 20000 bodies closed back to the ground: its redundant-row search (run) and
  // rank analysis (check) are planned at the bound of a dense factor (RowQR::bytes_bound;
  // a 20000-body open chain fits: it is assembled and analysed joint by joint,
  // test_large_chain.cpp).
  json doc = chain_scene(20000, 1);
  doc["joints"].push_back({{"name", "close"},
                           {"type", "revolute"},
                           {"body_i", "b19999"},
                           {"body_j", "ground"},
                           {"frame", {{"origin", {20000 * 0.1, 0, 0}}, {"z", {0, 1, 0}}, {"x", {1, 0, 0}}}}});
  const fs::path scene = write_scene("huge_chain.json", doc);
  JobOptions o;
  o.scene = scene.string();
  o.threads = 1;
  const MemoryEstimate e = estimate_run_memory(load_scene(scene.string()), o);
  if (!(e.total() > physical_memory_bytes()))
    GTEST_SKIP() << "this machine has the " << e.total() / (1 << 30) << " GiB the chain needs";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", scene.string(), "--threads", "1", "--out", (temp_dir() / "huge.h5").string()},
        std::vector<std::string>{"check", scene.string()}}) {
    const Child c = start_simphant(args, temp_dir() / "huge.out", temp_dir() / "huge.err");
    const Exit x = wait_child(c, 120);
    ASSERT_TRUE(x.exited);
    EXPECT_EQ(x.code, 3) << args[0];
    const std::string err = read_text(c.err_file);
    EXPECT_NE(err.find("needs about"), std::string::npos) << err;
    EXPECT_NE(err.find("GiB"), std::string::npos) << err;
    EXPECT_LT(x.max_rss_kib, 2L << 20) << args[0] << " allocated before refusing";
  }
  EXPECT_FALSE(fs::exists(temp_dir() / "huge.h5"));
}

// bench estimates every row before measuring any: a row that cannot fit refuses the
// suite, naming the row and its estimate.
TEST(MemoryEstimate, BenchRefusesRowsThatDoNotFit) {
  const Child c = start_simphant({"bench", "--models", "chain_1,chain_100", "--configs", "cpu1-dense", "--cpu-sizes",
                                  "1,100000000", "--min-seconds", "0.01"},
                                 temp_dir() / "bench.out", temp_dir() / "bench.err");
  const Exit x = wait_child(c, 120);
  ASSERT_TRUE(x.exited);
  EXPECT_EQ(x.code, 3);
  const std::string err = read_text(c.err_file);
  EXPECT_NE(err.find("not fit in memory"), std::string::npos) << err;
  EXPECT_NE(err.find("chain_100 cpu1-dense x 100000000: needs about"), std::string::npos) << err;
  EXPECT_EQ(read_text(c.out_file).find("chain_1 "), std::string::npos) << "measured before refusing";
}
