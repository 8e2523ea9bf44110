// Cost of recording: the slider-crank (examples/slider_crank.json) with 50 instances,
// recording every step, written (a) a frame at a time with a flush per frame (the
// recorder's behaviour before buffering), (b) buffered and written a chunk at a time
// (io/recorder.hpp), (c) as (b) with deflate level 4, and (d) not at all (frames "none"),
// side by side: each configuration run `repeats` times in turn, the fastest kept.
//
//   bench_recording [SCENE] [--instances 50] [--t-end 1] [--repeats 3] [--dir /tmp]
//
// Prints, per configuration, the step loop's wall time (loop_wall_time_s: stepping,
// reading the frames from the backend and writing them), the process's CPU time (user +
// system, the whole run: less disturbed than wall time on a shared machine), the
// throughput and the file size.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/job/run_job.hpp"

namespace {

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Config {
  const char* name;
  int buffer_frames;  ///< RecorderInfo::buffer_frames: 1 = flush per frame, 0 = a chunk's worth
  const char* frames;
  int compression;
};

}  // namespace

int main(int argc, char** argv) {
  std::string scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank.json";
  int instances = 50, repeats = 3;
  double t_end = 1.0;
  std::string dir = std::filesystem::temp_directory_path().string();
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    const bool has = k + 1 < argc;
    if (a == "--instances" && has) instances = std::atoi(argv[++k]);
    else if (a == "--t-end" && has) t_end = std::atof(argv[++k]);
    else if (a == "--repeats" && has) repeats = std::atoi(argv[++k]);
    else if (a == "--dir" && has) dir = argv[++k];
    else scene = a;
  }
  std::ifstream in(scene);
  if (!in) {
    std::fprintf(stderr, "bench_recording: cannot read %s\n", scene.c_str());
    return 2;
  }
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["solver"]["record_every"] = 1;  // every step
  const std::vector<Config> configs = {{"flush per frame", 1, "every", 0},
                                       {"chunked", 0, "every", 0},
                                       {"chunked, deflate 4", 0, "every", 4},
                                       {"recording off", 0, "none", 0}};
  std::vector<double> best(configs.size(), 1e300), best_cpu(configs.size(), 1e300);
  std::vector<std::uintmax_t> bytes(configs.size(), 0);
  std::vector<std::int64_t> frames(configs.size(), 0), steps(configs.size(), 0);
  const std::string out = dir + "/bench_recording_" + std::to_string(::getpid()) + ".h5";
  for (int r = 0; r < repeats; ++r)
    for (std::size_t c = 0; c < configs.size(); ++c) {
      simphant::JobOptions o;
      o.scene = scene;
      o.scene_text = doc.dump();
      o.out = out;
      o.instances = instances;
      o.has_t_end = true;
      o.t_end = t_end;
      o.threads = 1;
      o.checkpoint_every_s = 0;
      o.backend = "cpu";
      o.frames = configs[c].frames;
      o.compression = configs[c].compression;
      o.record_buffer_frames = configs[c].buffer_frames;
      simphant::JobHooks quiet;
      quiet.progress = [](const simphant::JobProgress&) {};
      const double cpu0 = cpu_seconds();
      const simphant::JobResult res = simphant::run_job(o, quiet);
      best_cpu[c] = std::min(best_cpu[c], cpu_seconds() - cpu0);
      if (res.exit_code != 0) {
        std::fprintf(stderr, "bench_recording: %s: exit code %d\n", configs[c].name, res.exit_code);
        return 1;
      }
      best[c] = std::min(best[c], res.summary.at("loop_wall_time_s").get<double>());
      frames[c] = res.summary.at("frames").get<std::int64_t>();
      steps[c] = res.summary.at("steps").get<std::int64_t>();
      bytes[c] = std::filesystem::file_size(out);
      std::filesystem::remove(out);
    }
  std::printf("%s: %d instances, %lld steps, a frame every step, 1 thread, fastest of %d\n", scene.c_str(), instances,
              static_cast<long long>(steps[0]), repeats);
  std::printf("%-20s %10s %10s %8s %14s %12s %12s\n", "configuration", "loop [s]", "CPU [s]", "frames",
              "inst-steps/s", "file [MB]", "CPU vs off");
  for (std::size_t c = 0; c < configs.size(); ++c)
    std::printf("%-20s %10.3f %10.3f %8lld %14.3g %12.2f %11.3fx\n", configs[c].name, best[c], best_cpu[c],
                static_cast<long long>(frames[c]), static_cast<double>(steps[c]) * instances / best[c],
                static_cast<double>(bytes[c]) / 1e6, best_cpu[c] / best_cpu.back());
  return 0;
}
