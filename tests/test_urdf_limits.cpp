// URDF import at its limits (docs/reliability.md, "URDF"): deep chains imported without
// recursion (run on a thread with a small stack), link and joint counts refused before
// any tree is built, deep XML nesting, NUL bytes, cycles refused before urdfdom links
// them (no memory lost per call), and input files that are not regular or too large.
#include <malloc.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "simphant/core/input_file.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("urdf_limits");
  return dir;
}

const char* kInertial =
    "<inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>";

std::string link(const std::string& name, bool inertial = true) {
  return "<link name=\"" + name + "\">" + (inertial ? kInertial : "") + "</link>";
}
std::string joint(const std::string& name, const std::string& type, const std::string& parent,
                  const std::string& child) {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent + "\"/><child link=\"" + child +
         "\"/><origin xyz=\"0 0 0.01\"/><axis xyz=\"0 0 1\"/></joint>";
}

/// A serial chain base -> l1 -> ... -> l<n>: joint 1 continuous, the rest fixed.
std::string chain(int n) {
  std::string s = "<robot name=\"chain\"><link name=\"base\"/>";
  for (int k = 1; k <= n; ++k) {
    s += link("l" + std::to_string(k));
    s += joint("j" + std::to_string(k), k == 1 ? "continuous" : "fixed", k == 1 ? "base" : "l" + std::to_string(k - 1),
               "l" + std::to_string(k));
  }
  return s + "</robot>";
}

/// Runs `f` on a thread with a 256 KiB stack (a recursion as deep as a long chain would
/// overflow it) and rethrows nothing: returns whether f returned normally.
bool on_small_stack(const std::function<void()>& f) {
  struct Arg {
    const std::function<void()>* f;
    bool ok = false;
  } arg{&f};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t t;
  const int rc = pthread_create(
      &t, &attr,
      [](void* p) -> void* {
        auto* a = static_cast<Arg*>(p);
        try {
          (*a->f)();
          a->ok = true;
        } catch (...) {
        }
        return nullptr;
      },
      &arg);
  pthread_attr_destroy(&attr);
  if (rc != 0) return false;
  pthread_join(t, nullptr);
  return arg.ok;
}

/// parse_urdf(xml) throws UrdfError containing every fragment.
void expect_urdf_error(const std::string& xml, std::initializer_list<const char*> fragments) {
  try {
    parse_urdf(xml, "limits.urdf");
    ADD_FAILURE() << "no UrdfError";
  } catch (const UrdfError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("URDF limits.urdf: ", 0), 0u) << msg;
    for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

TEST(UrdfLimits, ADeepChainWithinTheLimitsImportsWithoutRecursion) {
  // 4000 links: one moving joint, 3999 fixed ones merged into it. A recursive walk (and a
  // recursive free of urdfdom's links) would need megabytes of stack here.
  const std::string xml = chain(4000);
  ReducedModel rm;
  ASSERT_TRUE(on_small_stack([&] { rm = parse_urdf(xml, "deep.urdf"); }));
  ASSERT_EQ(rm.nq(), 1);
  EXPECT_DOUBLE_EQ(rm.links[0].mass, 4000.0);  // every fixed child merged
  // The merged CoM: links at z = 0, 0.01, ..., 39.99 in l1's frame: mean 19.995.
  EXPECT_NEAR(rm.links[0].com.z, 19.995, 1e-9);
}

TEST(UrdfLimits, TenThousandLinksAreRefusedBeforeAnyWalk) {
  const std::string xml = chain(10000);
  bool refused = false;
  ASSERT_TRUE(on_small_stack([&] {
    try {
      parse_urdf(xml, "limits.urdf");
    } catch (const UrdfError& e) {
      refused = std::string(e.what()).find("10001 links; at most 4096") != std::string::npos;
    }
  }));
  EXPECT_TRUE(refused);
  // Joints count with fixed ones, even when the links are few.
  std::string many = "<robot name=\"r\"><link name=\"base\"/>" + link("a");
  for (int k = 0; k <= kMaxUrdfJoints; ++k) many += joint("f" + std::to_string(k), "fixed", "base", "a");
  expect_urdf_error(many + "</robot>", {"4097 joints (fixed ones included); at most 4096"});
}

TEST(UrdfLimits, DeepXmlNestingAndNulBytesAreRefused) {
  std::string deep = "<robot name=\"r\"><link name=\"base\"/>";
  for (int k = 0; k < 100000; ++k) deep += "<a>";
  for (int k = 0; k < 100000; ++k) deep += "</a>";
  deep += "</robot>";
  bool refused = false;
  ASSERT_TRUE(on_small_stack([&] {
    try {
      parse_urdf(deep, "limits.urdf");
    } catch (const UrdfError& e) {
      refused = std::string(e.what()).find("nested more than 256 deep") != std::string::npos;
    }
  }));
  EXPECT_TRUE(refused);
  // Nesting inside comments, CDATA and quoted values does not count.
  std::string fine = "<robot name=\"r\"><!--";
  for (int k = 0; k < 1000; ++k) fine += "<a>";
  fine += "--><link name=\"base\" note=\"<<<<\"/>" + link("a") + joint("j", "continuous", "base", "a") + "</robot>";
  EXPECT_EQ(parse_urdf(fine, "fine.urdf").nq(), 1);
  // A NUL byte would end the text for TinyXML, silently dropping the rest.
  std::string nul = chain(2);
  nul.insert(nul.size() - 8, std::string(1, '\0'));
  expect_urdf_error(nul, {"a NUL byte at byte"});
  // A character reference to NUL: TinyXML would cut the name "a&#0;b" to "a".
  for (const char* ref : {"&#0;", "&#x0;", "&#X000;", "&#00;"}) {
    const std::string xml = "<robot name=\"r\"><link name=\"base\"/>" + link(std::string("a") + ref + "b") +
                            joint("j", "continuous", "base", std::string("a") + ref + "b") + "</robot>";
    expect_urdf_error(xml, {"a character reference to NUL"});
  }
  EXPECT_EQ(parse_urdf("<robot name=\"r&#65;&#x42;\"><link name=\"base\"/>" + link("a") +
                           joint("j", "continuous", "base", "a") + "</robot>",
                       "refs.urdf")
                .name,
            "rAB");
}

// Found by fuzz_urdf under AddressSanitizer: TinyXML 2.6.2 steps over a UTF-8 lead byte
// by the length it announces, so a text ending inside such a sequence was read past its
// end, into whatever the buffer held beyond it. Here the string's spare capacity holds the
// rest of a valid robot: read past the end, it would import as a 1-joint robot.
TEST(UrdfLimits, TinyXmlNeverReadsPastTheEndOfTheText) {
  const std::string visible = "<?xml version=\"1.0\"?><robot name=\"r\"><link name=\"base\"/>" + link("a") +
                              "<joint name=\"j\xe7";
  std::string xml = visible + std::string(1, '\0') + "y\" type=\"continuous\"><parent link=\"base\"/>" +
                    "<child link=\"a\"/></joint></robot>";
  xml.resize(visible.size());  // the hidden rest stays in the buffer, after the terminator
  ASSERT_EQ(xml.size(), visible.size());
  expect_urdf_error(xml, {"limits.urdf"});
  // The same document, complete, imports.
  EXPECT_EQ(parse_urdf(visible.substr(0, visible.size() - 1) + "\" type=\"continuous\"><parent link=\"base\"/><child link=\"a\"/></joint></robot>",
                       "closed.urdf")
                .nq(),
            1);
}

TEST(UrdfLimits, CyclesAreNamedAndLeakNothing) {
  const std::string base = "<link name=\"base\"/>";
  // No root: every link has a parent.
  const std::string no_root = "<robot name=\"r\">" + link("a") + link("b") + joint("j1", "continuous", "a", "b") +
                              joint("j2", "continuous", "b", "a") + "</robot>";
  // A cycle beside a valid tree (urdfdom returns a model for this one).
  const std::string beside = "<robot name=\"r\">" + base + link("x") + link("a") + link("b") + link("c") +
                             joint("j0", "continuous", "base", "x") + joint("j1", "continuous", "a", "b") +
                             joint("j2", "continuous", "b", "c") + joint("j3", "continuous", "c", "a") + "</robot>";
  // A link that is its own parent.
  const std::string self = "<robot name=\"r\">" + base + link("a") + joint("j0", "continuous", "base", "a") +
                           link("b") + joint("js", "continuous", "b", "b") + "</robot>";
  expect_urdf_error(no_root, {"kinematic loop", "a -> b -> a"});
  expect_urdf_error(beside, {"kinematic loop", "a -> b -> c -> a"});
  expect_urdf_error(self, {"joint 'js'", "kinematic loop", "b -> b"});
  // urdfdom links a cycle into a reference cycle of its links and never frees it
  // (about 1.4 KB per call for `no_root`). Rejected before urdfdom, nothing stays.
  // (Under AddressSanitizer mallinfo2 reports nothing; LeakSanitizer checks instead.)
  auto in_use = [] { return mallinfo2().uordblks; };
  for (int k = 0; k < 10; ++k) EXPECT_THROW(parse_urdf(no_root, "warm.urdf"), UrdfError);
  const std::size_t before = in_use();
  for (int k = 0; k < 2000; ++k) {
    for (const std::string* xml : {&no_root, &beside, &self}) {
      try {
        parse_urdf(*xml, "leak.urdf");
      } catch (const UrdfError&) {
      }
    }
  }
  const std::size_t after = in_use();
  EXPECT_LT(after, before + 64 * 1024) << "heap grew by " << (after - before) << " bytes over 6000 rejected URDFs";
}

TEST(UrdfLimits, InputFilesAreRegularAndBounded) {
  auto expect_load_error = [](const std::string& file, const char* fragment) {
    try {
      load_urdf(file);
      ADD_FAILURE() << "no UrdfError for " << file;
    } catch (const UrdfError& e) {
      EXPECT_NE(std::string(e.what()).find("URDF " + file + ": "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_load_error("/dev/zero", "not a regular file");
  expect_load_error(temp_dir().string(), "is a directory");
  const fs::path fifo = temp_dir() / "robot.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_load_error(fifo.string(), "not a regular file");
  const fs::path big = temp_dir() / "big.urdf";
  {
    std::ofstream out(big);
  }
  fs::resize_file(big, kMaxInputFileBytes + 1);
  expect_load_error(big.string(), "over the limit");
  const fs::path ok = temp_dir() / "ok.urdf";
  {
    std::ofstream out(ok);
    out << chain(3);
  }
  EXPECT_EQ(load_urdf(ok.string()).nq(), 1);
}

}  // namespace
}  // namespace simphant
