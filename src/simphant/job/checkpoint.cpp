#include "simphant/job/checkpoint.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "simphant/core/durable_file.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/log/log.hpp"

namespace simphant {

namespace fs = std::filesystem;

namespace job_detail {

namespace {

/// A checkpoint that takes more than this share of the interval is reported (once).
constexpr double kWarnShare = 0.02;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Checkpointer::Checkpointer(const std::string& out, double every_s, std::string options)
    : out_(out), path_(checkpoint_file_name(out)), temp_(path_ + ".tmp"), options_(std::move(options)), every_s_(every_s),
      last_(now_s()) {}

void Checkpointer::start() { last_ = now_s(); }

bool Checkpointer::due() const { return every_s_ > 0 && now_s() - last_ >= every_s_; }

void Checkpointer::save(const Recorder& recorder, Simulator& sim, const RunStats& stats, const LoopPoint& at,
                        const Simulator* half) {
  const double t0 = now_s();
  try {
    h5::flush(recorder.file_id());
    copy_file(recorder.path(), temp_, false);
    {
      h5::Handle f = h5::open_file_readwrite(temp_);
      write_checkpoint_state(f.id(), sim, stats, at, options_, half);
      if (!f.close()) throw h5::H5Error("closing " + temp_ + " failed");
    }
    durable_replace(temp_, path_);
    ++count_;
    const double took = now_s() - t0;
    std::error_code ec;
    const double bytes = static_cast<double>(fs::file_size(path_, ec));
    logger().debug("checkpoint {} at step {} ({} frames, {:.0f} bytes) in {:.4f} s", path_, at.steps_done, at.frames,
                   bytes, took);
    // The copy grows with the file: say so once when it takes a noticeable share of the run.
    if (!warned_cost_ && took > kWarnShare * every_s_) {
      warned_cost_ = true;
      logger().warn("checkpoint of {:.0f} MB took {:.2f} s, {:.1f} % of the --checkpoint-every interval of {:g} s; "
                    "--checkpoint-every {:.0f} keeps it near 1 % (docs/checkpoints.md)",
                    bytes / 1e6, took, 100 * took / every_s_, every_s_, std::ceil(100 * took));
    }
  } catch (const std::exception& e) {
    ::unlink(temp_.c_str());
    // Warned once per reason: a full disk stays full for many intervals.
    const std::string why = e.what();
    if (why != failure_) {
      logger().warn("checkpoint {} not written: {}; the run goes on{}", path_, why,
                    count_ > 0 ? " (the previous checkpoint is kept)" : "");
    } else {
      logger().debug("checkpoint {} not written again: {}", path_, why);
    }
    failure_ = why;
  }
  const double t1 = now_s();
  seconds_ += t1 - t0;
  last_ = t1;
}

void Checkpointer::store(const Recorder& recorder, Simulator& sim, const RunStats& stats, const LoopPoint& at,
                         const Simulator* half) {
  write_checkpoint_state(recorder.file_id(), sim, stats, at, options_, half);
  h5::flush(recorder.file_id());
}

void Checkpointer::discard() {
  ::unlink(temp_.c_str());
  ::unlink(path_.c_str());
  // Temporary files of killed runs of this output: superseded now, and no other run can
  // be writing one (this run still holds the output's lock).
  std::error_code ec;
  const std::string prefix = "." + fs::path(out_).filename().string() + ".partial-";
  const fs::path folder = fs::path(out_).parent_path().empty() ? fs::path(".") : fs::path(out_).parent_path();
  try {
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() &&
          name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
        fs::remove(e.path(), ec);
    }
  } catch (const fs::filesystem_error& e) {
    logger().debug("cleaning temporary files beside {}: {}", out_, e.what());  // they stay, recognisable
  }
}

}  // namespace job_detail
}  // namespace simphant
