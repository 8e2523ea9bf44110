#include "simphant/job/test_hold.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "simphant/log/log.hpp"

namespace simphant::job_detail {

namespace fs = std::filesystem;

TestHold TestHold::from_environment(const std::string& out) {
  const char* v = std::getenv("SIMPHANT_TEST_HOLD");
  return parse(v ? std::string(v) : std::string(), out);
}

TestHold TestHold::parse(const std::string& spec, const std::string& out) {
  TestHold h;
  if (spec.empty()) return h;
  const auto bad = [&] {
    return std::invalid_argument(
        "SIMPHANT_TEST_HOLD: expected setup:<gate path> or step=N:<gate path> (N >= 1), got \"" + spec + "\"");
  };
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos || colon + 1 == spec.size()) throw bad();
  const std::string point = spec.substr(0, colon);
  if (point == "setup") {
    h.point_ = Point::SetUp;
  } else if (point.rfind("step=", 0) == 0) {
    const std::string n = point.substr(5);
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 18) throw bad();
    h.step_ = std::stoll(n);
    if (h.step_ < 1) throw bad();
    h.point_ = Point::Step;
  } else {
    throw bad();
  }
  h.spec_ = spec;
  h.gate_ = spec.substr(colon + 1);
  const std::string name = fs::path(out).filename().string();
  for (std::size_t at = h.gate_.find("{name}"); at != std::string::npos; at = h.gate_.find("{name}", at + name.size()))
    h.gate_.replace(at, 6, name);
  return h;
}

void TestHold::start_loop(std::int64_t done) {
  if (point_ == Point::Step && done >= step_) passed_ = true;
}

std::int64_t TestHold::clamp(std::int64_t done, std::int64_t k) const {
  if (point_ != Point::Step || passed_ || done >= step_) return k;
  return std::min(k, step_ - done);
}

bool TestHold::reached(std::int64_t done) {
  if (point_ != Point::Step || passed_ || done < step_) return false;
  passed_ = true;
  return true;
}

void TestHold::hold(nlohmann::json where, const std::function<bool()>& stop) const {
  if (point_ == Point::None) return;
  where["point"] = spec_.substr(0, spec_.find(':'));
  where["pid"] = static_cast<long long>(::getpid());
  const std::string held = gate_ + ".held", temp = held + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    f << where.dump() << '\n';
    if (!f.flush()) throw std::runtime_error("SIMPHANT_TEST_HOLD: cannot write " + temp);
  }
  std::error_code ec;
  fs::rename(temp, held, ec);
  if (ec) throw std::runtime_error("SIMPHANT_TEST_HOLD: cannot rename " + temp + " onto " + held + ": " + ec.message());
  if (fs::exists(gate_, ec)) return;
  logger().warn("SIMPHANT_TEST_HOLD: the run is held at {} until {} exists (a test hook)",
                where["point"].get<std::string>(), gate_);
  while (!fs::exists(gate_, ec) && !stop()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

}  // namespace simphant::job_detail
