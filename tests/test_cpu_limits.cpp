// cpu_limits (core/cpu_limits.hpp): the affinity mask's CPU count against
// sched_getaffinity's own answer, and the cgroup CPU quota read from a fake cgroup tree
// (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us; the smallest along the
// ancestors; a container's mount root; no quota).
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "simphant/core/cpu_limits.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("simphant_cgroup_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  /// Writes text to root_/rel, making its directories.
  void write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string mount(const std::string& rel) const { return (root_ / rel).string(); }
  fs::path root_;
};

TEST(CpuLimits, AffinityCountMatchesTheMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(affinity_cpu_count(), CPU_COUNT(&set));
  EXPECT_GE(usable_cpu_count(), 1);
  EXPECT_LE(usable_cpu_count(), affinity_cpu_count());
}

TEST_F(CgroupTree, V2QuotaIsTheSmallestAlongTheAncestors) {
  const std::string mi = "30 23 0:26 / " + mount("cg2") + " rw,nosuid - cgroup2 cgroup2 rw\n";
  write("cg2/cpu.max", "max 100000\n");
  write("cg2/a/cpu.max", "250000 100000\n");  // 2.5 CPUs on the parent
  write("cg2/a/b/cpu.max", "max 100000\n");    // none on the process's own cgroup
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota("0::/a/b\n", mi), 2.5);
  write("cg2/a/b/cpu.max", "50000 100000\n");  // 0.5 CPU below it wins
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota("0::/a/b\n", mi), 0.5);
}

TEST_F(CgroupTree, V2WithoutQuotaOrFilesIsZero) {
  const std::string mi = "30 23 0:26 / " + mount("cg2") + " rw - cgroup2 cgroup2 rw\n";
  write("cg2/cpu.max", "max 100000\n");
  EXPECT_EQ(cgroup_cpu_quota("0::/\n", mi), 0.0);
  EXPECT_EQ(cgroup_cpu_quota("0::/missing/dir\n", mi), 0.0);
  EXPECT_EQ(cgroup_cpu_quota("", mi), 0.0);
  EXPECT_EQ(cgroup_cpu_quota("0::/\n", ""), 0.0);
  write("cg2/x/cpu.max", "garbage\n");
  EXPECT_EQ(cgroup_cpu_quota("0::/x\n", mi), 0.0);
}

TEST_F(CgroupTree, V2ContainerMountRoot) {
  // In a container the mount's root is the container's own cgroup: the process's path
  // /docker/abc maps to the mount point itself.
  const std::string mi = "30 23 0:26 /docker/abc " + mount("cg2") + " rw - cgroup2 cgroup2 rw\n";
  write("cg2/cpu.max", "150000 100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota("0::/docker/abc\n", mi), 1.5);
}

TEST_F(CgroupTree, V1CpuController) {
  // The hierarchy whose super options list "cpu" exactly (not cpuacct or cpuset alone).
  const std::string mi = "32 31 0:29 / " + mount("cpuset") + " rw - cgroup cgroup rw,cpuset\n" +
                         "33 31 0:30 / " + mount("cpu") + " rw - cgroup cgroup rw,cpu,cpuacct\n";
  write("cpu/cpu.cfs_quota_us", "-1\n");
  write("cpu/cpu.cfs_period_us", "100000\n");
  write("cpu/job/cpu.cfs_quota_us", "300000\n");
  write("cpu/job/cpu.cfs_period_us", "100000\n");
  write("cpuset/job/cpu.cfs_quota_us", "50000\n");  // not the cpu hierarchy: ignored
  write("cpuset/job/cpu.cfs_period_us", "100000\n");
  const std::string cg = "4:cpuset:/job\n3:cpu,cpuacct:/job\n0::/\n";
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota(cg, mi), 3.0);
  EXPECT_EQ(cgroup_cpu_quota("3:cpu,cpuacct:/\n", mi), 0.0);  // -1: no quota
}

TEST_F(CgroupTree, BothHierarchiesTheSmallerWins) {
  const std::string mi = "30 23 0:26 / " + mount("cg2") + " rw - cgroup2 cgroup2 rw\n" + "33 31 0:30 / " +
                         mount("cpu") + " rw - cgroup cgroup rw,cpu\n";
  write("cg2/cpu.max", "400000 100000\n");
  write("cpu/cpu.cfs_quota_us", "200000\n");
  write("cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota("1:cpu:/\n0::/\n", mi), 2.0);
}

TEST_F(CgroupTree, EscapedMountPoint) {
  // mountinfo writes a blank in a path as \040.
  write("with space/cpu.max", "100000 100000\n");
  const std::string mi = "30 23 0:26 / " + mount("with\\040space") + " rw - cgroup2 cgroup2 rw\n";
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota("0::/\n", mi), 1.0);
}

}  // namespace
}  // namespace simphant
