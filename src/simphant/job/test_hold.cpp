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

TestHold TestHold::from_environment(const std::string& name, bool check) {
  const char* v = std::getenv("SIMPHANT_TEST_HOLD");
  return parse(v ? std::string(v) : std::string(), name, check);
}

TestHold TestHold::parse(const std::string& spec, const std::string& name, bool check) {
  TestHold h;
  if (spec.empty()) return h;
  const auto bad = [&] {
    return std::invalid_argument("SIMPHANT_TEST_HOLD: expected setup:<gate path>, step=N:<gate path> (N >= 1) or "
                                 "check:<gate path>, at most one run point and one check point separated by ';', "
                                 "got \"" + spec + "\"");
  };
  bool run_point = false, check_point = false;
  for (std::size_t from = 0; from <= spec.size();) {
    const std::size_t end = std::min(spec.find(';', from), spec.size());
    const std::string part = spec.substr(from, end - from);
    from = end + 1;
    const std::size_t colon = part.find(':');
    if (colon == std::string::npos || colon + 1 == part.size()) throw bad();
    const std::string point = part.substr(0, colon);
    TestHold p;
    if (point == "setup") {
      p.point_ = Point::SetUp;
    } else if (point.rfind("step=", 0) == 0) {
      const std::string n = point.substr(5);
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 18) throw bad();
      p.step_ = std::stoll(n);
      if (p.step_ < 1) throw bad();
      p.point_ = Point::Step;
    } else if (point == "check") {
      p.point_ = Point::Check;
    } else {
      throw bad();
    }
    bool& seen = p.point_ == Point::Check ? check_point : run_point;
    if (seen) throw bad();
    seen = true;
    if ((p.point_ == Point::Check) != check) continue;
    p.spec_ = part;
    p.gate_ = part.substr(colon + 1);
    const std::string replacement = check ? name : fs::path(name).filename().string();
    for (std::size_t at = p.gate_.find("{name}"); at != std::string::npos;
         at = p.gate_.find("{name}", at + replacement.size()))
      p.gate_.replace(at, 6, replacement);
    h = p;
  }
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
