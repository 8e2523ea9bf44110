#pragma once
// How many CPUs this process may use: the CPUs of its affinity mask (taskset, numactl,
// a container's cpuset), capped by the CPU bandwidth quota of its cgroup (a container's
// `--cpus`, systemd's CPUQuota=). The default worker count (core/thread_pool.hpp,
// default_thread_count) is built on it.
#include <string>

namespace simphant {

/// CPUs in this process's affinity mask (sched_getaffinity); std::thread's
/// hardware_concurrency() when the mask cannot be read; >= 1.
int affinity_cpu_count();

/// The CPU bandwidth quota of this process's cgroup in CPUs (quota / period; the
/// smallest along the cgroup's ancestors), 0 when none is set or the files cannot be
/// read. cgroup v2: cpu.max ("max 100000" or "<quota> <period>"); v1: cpu.cfs_quota_us
/// (-1: none) and cpu.cfs_period_us, under the hierarchy holding the "cpu" controller.
double cgroup_cpu_quota();

/// The same from given texts: proc_self_cgroup is /proc/self/cgroup, mountinfo is
/// /proc/self/mountinfo; the cgroup files are read under the mount points mountinfo
/// names (tests give a mount point in a temporary directory). With both a v2 and a v1
/// "cpu" hierarchy, the smaller quota wins.
double cgroup_cpu_quota(const std::string& proc_self_cgroup, const std::string& mountinfo);

/// min(affinity_cpu_count(), ceil(cgroup_cpu_quota())) where a quota is set; >= 1.
int usable_cpu_count();

}  // namespace simphant
