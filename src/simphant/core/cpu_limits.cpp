#include "simphant/core/cpu_limits.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace simphant {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

/// mountinfo escapes blanks and backslashes in paths as \ooo (octal).
std::string unescape_octal(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isdigit(static_cast<unsigned char>(s[i + 2])) && std::isdigit(static_cast<unsigned char>(s[i + 3]))) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// A cgroup hierarchy as mounted: its root inside the hierarchy and where it is mounted.
struct Mount {
  std::string root, point;
};

/// The mount of the cgroup2 hierarchy (v1 = false) or of the v1 hierarchy holding the
/// "cpu" controller (v1 = true); empty point when none.
Mount find_mount(const std::string& mountinfo, bool v1) {
  std::istringstream in(mountinfo);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
    std::string id, parent, dev, root, point, fstype, source, options;
    if (!(head >> id >> parent >> dev >> root >> point) || !(tail >> fstype >> source >> options)) continue;
    if (!v1 && fstype == "cgroup2") return {unescape_octal(root), unescape_octal(point)};
    if (v1 && fstype == "cgroup") {
      const std::vector<std::string> opts = split(options, ',');
      if (std::find(opts.begin(), opts.end(), "cpu") != opts.end()) return {unescape_octal(root), unescape_octal(point)};
    }
  }
  return {};
}

/// The process's cgroup path in the v2 hierarchy ("0::/path") or in the v1 hierarchy of
/// the "cpu" controller ("3:cpu,cpuacct:/path"); found = false when absent.
std::string cgroup_path(const std::string& proc_self_cgroup, bool v1, bool& found) {
  std::istringstream in(proc_self_cgroup);
  std::string line;
  found = false;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    const std::vector<std::string> list = split(controllers, ',');
    if ((!v1 && line.compare(0, a, "0") == 0 && controllers.empty()) ||
        (v1 && std::find(list.begin(), list.end(), "cpu") != list.end())) {
      found = true;
      return path;
    }
  }
  return "";
}

/// The quota in CPUs set in one cgroup directory, 0 when none.
double quota_in(const std::string& dir, bool v1) {
  if (!v1) {
    std::istringstream in(read_text(dir + "/cpu.max"));
    std::string quota;
    double period = 0;
    if (!(in >> quota >> period) || quota == "max" || !(period > 0)) return 0;
    try {
      const double q = std::stod(quota);
      return q > 0 ? q / period : 0;
    } catch (const std::exception&) {
      return 0;
    }
  }
  std::istringstream qin(read_text(dir + "/cpu.cfs_quota_us")), pin(read_text(dir + "/cpu.cfs_period_us"));
  double quota = 0, period = 0;
  if (!(qin >> quota) || !(pin >> period) || !(quota > 0) || !(period > 0)) return 0;
  return quota / period;
}

/// The smallest quota from the process's cgroup up to the hierarchy's mounted root.
double hierarchy_quota(const std::string& proc_self_cgroup, const std::string& mountinfo, bool v1) {
  const Mount m = find_mount(mountinfo, v1);
  bool found = false;
  const std::string path = cgroup_path(proc_self_cgroup, v1, found);
  if (m.point.empty() || !found) return 0;
  // The part of the cgroup path below the mount's root (in a container the mount's root
  // is the container's own cgroup); outside it, only the mount point itself is known.
  std::string rel;
  const std::string root = m.root == "/" ? "" : m.root;
  if (path.compare(0, root.size(), root) == 0 && (path.size() == root.size() || path[root.size()] == '/'))
    rel = path.substr(root.size());
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  double best = 0;
  for (;;) {
    const double q = quota_in(m.point + rel, v1);
    if (q > 0 && (best == 0 || q < best)) best = q;
    if (rel.empty()) break;
    rel.erase(rel.find_last_of('/'));
  }
  return best;
}

}  // namespace

int affinity_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

double cgroup_cpu_quota(const std::string& proc_self_cgroup, const std::string& mountinfo) {
  const double v2 = hierarchy_quota(proc_self_cgroup, mountinfo, false);
  const double v1 = hierarchy_quota(proc_self_cgroup, mountinfo, true);
  if (v2 > 0 && v1 > 0) return std::min(v1, v2);
  return std::max(v1, v2);
}

double cgroup_cpu_quota() {
  return cgroup_cpu_quota(read_text("/proc/self/cgroup"), read_text("/proc/self/mountinfo"));
}

int usable_cpu_count() {
  const int cpus = affinity_cpu_count();
  const double quota = cgroup_cpu_quota();
  if (!(quota > 0)) return cpus;
  return std::max(1, std::min(cpus, static_cast<int>(std::ceil(quota))));
}

}  // namespace simphant
