// Design files of the sweep (docs/scene-format.md, "Sweep", "Design files"): CSV and NPY
// read back exactly, every bad file refused naming the field and the place, shards of a
// design, episodes, and the CRC-64 that resume and merge compare.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "simphant/core/crc64.hpp"
#include "simphant/core/input_file.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/run_inputs.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/shard.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/scene/sweep_detail.hpp"
#include "sweep_scene.hpp"
#include "temp_dir.hpp"

namespace simphant {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path dir() {
  static const fs::path d = test::make_process_temp_dir("sweep_design");
  return d;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Writes the scene (with `sweep`) as dir()/name and loads it from there.
Scene load(const json& sweep, const std::string& name = "scene.json") {
  const json d = test::two_body_scene_with(sweep);
  write_bytes(dir() / name, d.dump());
  return load_scene((dir() / name).string());
}

void expect_error(const json& sweep, const std::string& path, const std::string& fragment) {
  test::expect_scene_error([&] { load(sweep); }, path, fragment);
}

const std::vector<std::string> kPaths = {"bodies.a.mass", "gravity[2]", "bodies.b.position[0]"};

/// Rows x 3 values of many magnitudes: every double must come back bit for bit.
std::vector<std::vector<double>> some_design(int rows) {
  std::mt19937_64 rng(9);
  std::vector<std::vector<double>> v(3, std::vector<double>(static_cast<std::size_t>(rows)));
  for (auto& col : v)
    for (double& x : col) {
      const double m = static_cast<double>(rng() >> 11) * 0x1p-53;
      x = std::ldexp(m + 0.5, static_cast<int>(rng() % 40) - 20) * ((rng() & 1) ? -1 : 1);
    }
  v[0][0] = 1e-300;
  v[1][0] = -0.0;
  return v;
}

std::string csv_text(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& v) {
  std::string s;
  for (std::size_t c = 0; c < paths.size(); ++c) s += (c ? "," : "") + paths[c];
  s += "\r\n";  // line ends of either kind
  for (std::size_t r = 0; r < v[0].size(); ++r) {
    for (std::size_t c = 0; c < v.size(); ++c) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%s%.17g", c ? ", " : "", v[c][r]);
      s += buf;
    }
    s += "\n";
  }
  return s;
}

/// An NPY file (format 1.0 or 2.0) of the design, float64 or float32, C or Fortran order,
/// little- or big-endian.
std::string npy_bytes(const std::vector<std::vector<double>>& v, const std::string& descr, bool fortran, int major = 1,
                      const std::string& shape_override = "") {
  const std::size_t rows = v[0].size(), cols = v.size();
  const std::string shape = shape_override.empty() ? "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")"
                                                   : shape_override;
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t k = 0; k < (major == 1 ? 2u : 4u); ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  out += header;
  const std::size_t item = descr[2] == '8' ? 8 : 4;
  const bool big = descr[0] == '>';
  for (std::size_t i = 0; i < rows * cols; ++i) {
    const std::size_t r = fortran ? i % rows : i / cols, c = fortran ? i / rows : i % cols;
    unsigned char b[8];
    if (item == 8) {
      std::memcpy(b, &v[c][r], 8);
    } else {
      const float f = static_cast<float>(v[c][r]);
      std::memcpy(b, &f, 4);
    }
    if (big) std::reverse(b, b + item);  // the test machine is little-endian (x86-64, aarch64)
    out.append(reinterpret_cast<const char*>(b), item);
  }
  return out;
}

TEST(SweepDesign, CsvRoundTripsExactlyRelativeToTheSceneFolder) {
  const auto v = some_design(50);
  write_bytes(dir() / "doe.csv", csv_text(kPaths, v));
  const Scene s = load({{"mode", "design"}, {"file", "doe.csv"}});
  EXPECT_EQ(s.sweep.mode, SweepMode::Design);
  EXPECT_EQ(s.sweep.instances, 50);
  EXPECT_EQ(s.sweep.design_file, (dir() / "doe.csv").lexically_normal().string());
  const SweepSamples x = sample_sweep(s.sweep);
  ASSERT_EQ(x.paths, kPaths);
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t r = 0; r < 50; ++r)
      EXPECT_EQ(std::memcmp(&x.values[c][r], &v[c][r], 8), 0) << c << " " << r << ": " << x.values[c][r];
  EXPECT_THROW(sample_sweep(s.sweep, 49), SceneError);  // --instances must agree
  EXPECT_EQ(load({{"mode", "design"}, {"file", "doe.csv"}, {"instances", 50}}).sweep.instances, 50);
  // An instance model takes its row (a valid one: a positive mass).
  const std::vector<double> row = {std::fabs(v[0][7]), v[1][7], v[2][7]};
  const Model m = build_instance_model(s, row, 7, 0);
  EXPECT_EQ(m.bodies[0].mass, row[0]);
  EXPECT_EQ(m.bodies[1].r0_W[0], row[2]);
}

TEST(SweepDesign, NpyRoundTripsExactlyInEveryLayout) {
  const auto v = some_design(20);
  const json cols = kPaths;
  for (const char* descr : {"<f8", ">f8", "<f4", ">f4"})
    for (bool fortran : {false, true})
      for (int major : {1, 2}) {
        write_bytes(dir() / "doe.npy", npy_bytes(v, descr, fortran, major));
        const SweepSamples x = sample_sweep(load({{"mode", "design"}, {"file", "doe.npy"}, {"columns", cols}}).sweep);
        for (std::size_t c = 0; c < 3; ++c)
          for (std::size_t r = 0; r < 20; ++r) {
            const double want = descr[2] == '8' ? v[c][r] : static_cast<double>(static_cast<float>(v[c][r]));
            EXPECT_EQ(std::memcmp(&x.values[c][r], &want, 8), 0) << descr << fortran << major << " " << c << " " << r;
          }
      }
}

TEST(SweepDesign, BadCsvFilesAreRefusedNamingTheFieldAndThePlace) {
  const auto bad = [](const std::string& text, const std::string& path, const std::string& fragment) {
    write_bytes(dir() / "bad.csv", text);
    expect_error({{"mode", "design"}, {"file", "bad.csv"}}, path, fragment);
  };
  const std::string head = "bodies.a.mass,gravity[2]\n";
  bad(head + "1,2\n3,nan\n", "/sweep/file", "line 3 (instance 1), column 2 (gravity[2]): \"nan\" is not finite");
  bad(head + "1,inf\n", "/sweep/file", "column 2 (gravity[2]): \"inf\" is not finite");
  bad(head + "1,2\n1,abc\n", "/sweep/file", "line 3 (instance 1), column 2 (gravity[2]): \"abc\" is not a number");
  bad(head + "1,2 3\n", "/sweep/file", "\"2 3\" is not a number");
  bad(head + "1,1e999\n", "/sweep/file", "out of the double range");
  bad(head + "1,\n", "/sweep/file", "column 2 (gravity[2]): empty value");
  bad(head + "1,2\n1,2,3\n", "/sweep/file", "line 3 (instance 1) has 3 values, the header has 2 columns");
  bad(head + "1\n", "/sweep/file", "line 2 (instance 0) has 1 values");
  bad(head + "1,2\n\n1,2\n", "/sweep/file", "line 3 (instance 1) is empty");
  bad("", "/sweep/file", "the file is empty");
  bad("\n \n", "/sweep/file", "the file is empty");
  bad(head, "/sweep/file", "no rows");
  bad("bodies.a.mass,,gravity[2]\n1,2,3\n", "/sweep/file", "column 2: empty column name");
  bad("bodies.a.mass,bodies.c.mass\n1,2\n", "/sweep/file", "header column 2: ");
  bad("bodies.a.mass,bodies.a..mass\n1,2\n", "/sweep/file", "header column 2: ");
  bad("bodies.a.mass,bodies[0].mass\n1,2\n", "/sweep/file", "names the same value as header column 1");
  bad("solver.dt\n0.001\n", "/sweep/file", "shared by all instances");
  write_bytes(dir() / "ok.csv", head + "1,2\n3,4\n");
  expect_error({{"mode", "design"}, {"file", "ok.csv"}, {"instances", 3}}, "/sweep/instances",
               "design mode runs the design file's rows, 2 instances (got 3)");
  expect_error({{"mode", "design"}, {"file", "ok.csv"}, {"columns", {"a", "b"}}}, "/sweep/columns", "only for NPY");
  expect_error({{"mode", "design"}, {"file", "ok.csv"}, {"parameters", json::array()}}, "/sweep/parameters",
               "unknown key");
  expect_error({{"mode", "design"}}, "/sweep/file", "required");
  expect_error({{"mode", "design"}, {"file", "missing.csv"}}, "/sweep/file", "cannot open");
  // Over the input-file limit (a sparse file: no disk is written).
  const fs::path big = dir() / "big.csv";
  write_bytes(big, head);
  fs::resize_file(big, kMaxInputFileBytes + 1);
  expect_error({{"mode", "design"}, {"file", "big.csv"}}, "/sweep/file", "over the limit");
  fs::remove(big);
}

TEST(SweepDesign, BadNpyFilesAreRefusedNamingTheFieldAndThePlace) {
  auto v = some_design(4);
  const json cols = kPaths;
  const auto bad = [&](const std::string& bytes, const json& columns, const std::string& path, const std::string& fragment) {
    write_bytes(dir() / "bad.npy", bytes);
    json sw = {{"mode", "design"}, {"file", "bad.npy"}};
    if (!columns.is_null()) sw["columns"] = columns;
    expect_error(sw, path, fragment);
  };
  bad(npy_bytes(v, "<i8", false), cols, "/sweep/file", "dtype '<i8': expected float64 or float32");
  bad(npy_bytes(v, "<f8", false, 1, "(12,)"), cols, "/sweep/file", "shape (12,): expected a 2-D array");
  bad(npy_bytes(v, "<f8", false, 1, "(4, 3, 1)"), cols, "/sweep/file", "expected a 2-D array");
  bad(npy_bytes(v, "<f8", false, 1, "(5, 3)"), cols, "/sweep/file", "needs 120 data bytes, the file holds 96");
  bad(npy_bytes(v, "<f8", false, 1, "(4000000000000, 4000000000000)"), cols, "/sweep/file", "needs more data bytes");
  bad(npy_bytes(v, "<f8", false, 1, "(0, 3)"), cols, "/sweep/file", "the design is empty");
  bad(npy_bytes(v, "<f8", false).substr(0, 9), cols, "/sweep/file", "truncated NPY file");
  bad(npy_bytes(v, "<f8", false), json(), "/sweep/columns", "required for an NPY design file");
  bad(npy_bytes(v, "<f8", false), {"bodies.a.mass"}, "/sweep/columns", "must list 3 paths");
  bad(npy_bytes(v, "<f8", false), {"bodies.a.mass", "bodies.x.mass", "gravity[0]"}, "/sweep/columns/1", "bodies.x.mass");
  v[2][3] = std::numeric_limits<double>::quiet_NaN();
  bad(npy_bytes(v, "<f8", true), cols, "/sweep/file", "row 3 (instance 3), column 2 (bodies.b.position[0]): NaN value");
  v[2][3] = -std::numeric_limits<double>::infinity();
  bad(npy_bytes(v, ">f4", false), cols, "/sweep/file", "column 2 (bodies.b.position[0]): infinite value");
  std::string b = npy_bytes(some_design(4), "<f8", false);
  b.replace(b.find("'shape'"), 7, "'shapes'");
  bad(b, cols, "/sweep/file", "unknown key 'shapes'");
}

TEST(SweepDesign, EpisodesDrawWholeRowsOfTheDesign) {
  const auto v = some_design(5);
  write_bytes(dir() / "rows.csv", csv_text(kPaths, v));
  const Scene s = load({{"mode", "design"}, {"file", "rows.csv"}, {"seed", 4}});
  std::set<std::size_t> seen;
  for (std::uint64_t e = 1; e <= 200; ++e) {
    const std::vector<double> x = sample_episode(s.sweep, 1, e);
    std::size_t row = 5;
    for (std::size_t r = 0; r < 5; ++r)
      if (x[0] == v[0][r] && x[1] == v[1][r] && x[2] == v[2][r]) row = r;
    ASSERT_LT(row, 5u) << "episode " << e << " is not a row of the design";
    seen.insert(row);
  }
  EXPECT_EQ(seen.size(), 5u);  // 200 uniform draws of 5 rows miss one with probability 5 (4/5)^200 = 2e-19
}

TEST(SweepDesign, ShardsOfADesignConcatenateToTheWholeDesign) {
  write_bytes(dir() / "shards.csv", csv_text(kPaths, some_design(23)));
  const json sobol = {{"mode", "sobol"}, {"instances", 23}, {"scramble", true}, {"seed", 2},
                      {"parameters", {{{"path", "bodies.a.mass"}, {"dist", "uniform"}, {"low", 1}, {"high", 2}},
                                      {{"path", "gravity[0]"}, {"dist", "normal"}, {"mean", 0}, {"std", 1}}}}};
  for (const json& sw : {json{{"mode", "design"}, {"file", "shards.csv"}}, sobol}) {
    const SweepSamples whole = sample_sweep(load(sw).sweep);
    std::vector<std::vector<double>> joined(whole.values.size());
    for (int k = 0; k < 4; ++k) {
      const SweepSamples part = slice_samples(sample_sweep(load(sw).sweep), shard_slice(k, 4, 23));
      EXPECT_EQ(part.first_instance, shard_slice(k, 4, 23).begin);
      for (std::size_t p = 0; p < joined.size(); ++p)
        joined[p].insert(joined[p].end(), part.values[p].begin(), part.values[p].end());
    }
    EXPECT_EQ(joined, whole.values) << sw.dump();
  }
}

TEST(SweepDesign, TheDesignFileIsAnInputWhoseChangeResumeDetects) {
  EXPECT_EQ(crc64_hex("123456789"), "995dc9bbdf1939fa");  // CRC-64/XZ check value
  write_bytes(dir() / "resume.csv", "bodies.a.mass\n1\n2\n");
  const Scene s = load({{"mode", "design"}, {"file", "resume.csv"}});
  EXPECT_EQ(s.sweep.design_crc64, crc64_hex("bodies.a.mass\n1\n2\n"));
  const std::vector<std::string> inputs = run_input_files(s, (dir() / "scene.json").string());
  EXPECT_NE(std::find(inputs.begin(), inputs.end(), s.sweep.design_file), inputs.end());  // never overwritten by --out
  job_detail::ResumePoint r;
  r.source = "run.h5";
  r.design_crc64 = s.sweep.design_crc64;
  EXPECT_NO_THROW(job_detail::check_resumed_design(r, s.sweep));
  write_bytes(dir() / "resume.csv", "bodies.a.mass\n1\n2.5\n");
  const Scene changed = load({{"mode", "design"}, {"file", "resume.csv"}});
  EXPECT_NE(changed.sweep.design_crc64, s.sweep.design_crc64);
  try {
    job_detail::check_resumed_design(r, changed.sweep);
    ADD_FAILURE() << "a changed design file was not detected";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/sweep/file");
    EXPECT_NE(std::string(e.what()).find("differs from the one the run to resume read"), std::string::npos) << e.what();
  }
}

// The whole path: a run stopped by a stop request, its design file changed, --resume
// refused at /sweep/file; the file restored, the resume completes.
TEST(SweepDesign, ResumeRefusesAChangedDesignFile) {
  write_bytes(dir() / "stop.csv", "bodies.a.mass\n1\n2\n");
  json sw = {{"mode", "design"}, {"file", "stop.csv"}};
  load(sw, "stop.json");  // writes the scene file
  JobOptions o;
  o.scene = (dir() / "stop.json").string();
  o.out = (dir() / "stop.h5").string();
  o.backend = "cpu";
  o.threads = 1;
  o.has_t_end = true;
  o.t_end = 5;
  JobHooks stop;
  stop.stop_requested = [] { return true; };
  ASSERT_EQ(run_job(o, stop).exit_code, 130);
  write_bytes(dir() / "stop.csv", "bodies.a.mass\n1\n3\n");
  JobOptions r;
  r.resume = o.out;
  r.threads = 1;
  try {
    run_job(r);
    ADD_FAILURE() << "the resume did not notice the changed design file";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/sweep/file") << e.what();
  }
  write_bytes(dir() / "stop.csv", "bodies.a.mass\n1\n2\n");
  EXPECT_EQ(run_job(r).exit_code, 0);
}

}  // namespace
}  // namespace simphant
