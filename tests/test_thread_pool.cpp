// ThreadPool (core/thread_pool.hpp): every item exactly once for any (n_items, chunk,
// threads), the worker index in range and never shared by two chunks at once, exceptions
// rethrown and the pool usable after them, many regions in a row, nested and concurrent
// use refused, and idle workers that take no CPU time (the point of the pool: passive
// waiting, docs/performance.md "Threads").
#include <gtest/gtest.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "simphant/core/cpu_limits.hpp"
#include "simphant/core/thread_pool.hpp"

namespace simphant {
namespace {

/// CPU time of the whole process (every thread) [s].
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

TEST(ThreadPool, EveryItemExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 7}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int n : {0, 1, 2, 3, 5, 8, 17, 64, 1000, 4099}) {
      for (int chunk : {-1, 0, 1, 2, 3, 7, 64, 5000}) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
        for (auto& h : hits) h.store(0);
        std::vector<std::atomic<int>> inside(static_cast<std::size_t>(threads));
        for (auto& x : inside) x.store(0);
        std::atomic<int> bad{0};
        pool.parallel_for(n, chunk, [&](int begin, int end, int worker) {
          const int expect_max = chunk > 0 ? chunk : n;
          if (begin < 0 || end > n || begin >= end || end - begin > expect_max) ++bad;
          if (worker < 0 || worker >= threads) {
            ++bad;
            return;
          }
          // One chunk at a time per worker: per-worker scratch needs no lock.
          if (inside[static_cast<std::size_t>(worker)].fetch_add(1) != 0) ++bad;
          for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
          inside[static_cast<std::size_t>(worker)].fetch_sub(1);
        });
        EXPECT_EQ(bad.load(), 0) << "threads " << threads << " n " << n << " chunk " << chunk;
        int wrong = 0;
        for (auto& h : hits) wrong += h.load() != 1;
        EXPECT_EQ(wrong, 0) << "threads " << threads << " n " << n << " chunk " << chunk;
      }
    }
  }
}

TEST(ThreadPool, AutomaticChunkGivesEveryWorkerSeveralChunks) {
  // chunk <= 0: about 8 chunks per worker, so that a worker slowed by another process
  // takes fewer of them (dynamic scheduling, not one static block per worker).
  ThreadPool pool(4);
  std::atomic<int> chunks{0}, largest{0};
  pool.parallel_for(1000, 0, [&](int begin, int end, int) {
    ++chunks;
    int l = largest.load();
    while (end - begin > l && !largest.compare_exchange_weak(l, end - begin)) {
    }
  });
  EXPECT_EQ(largest.load(), 32);  // ceil(1000 / 32)
  EXPECT_EQ(chunks.load(), 32);
}

TEST(ThreadPool, SizeOneRunsInlineOnTheCaller) {
  for (int threads : {1, 0, -3}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), 1);
    const std::thread::id caller = std::this_thread::get_id();
    int calls = 0, next = 0;
    pool.parallel_for(100, 7, [&](int begin, int end, int worker) {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      EXPECT_EQ(worker, 0);
      EXPECT_EQ(begin, next);  // the chunks in order
      EXPECT_EQ(end, std::min(begin + 7, 100));
      next = end;
      ++calls;
    });
    EXPECT_EQ(calls, 15);
    EXPECT_EQ(next, 100);
  }
}

TEST(ThreadPool, WorkersRunChunksOnOtherThreads) {
  // With blocking chunks the caller cannot run them all: the workers must take some.
  ThreadPool pool(3);
  std::atomic<int> started{0};
  std::vector<std::atomic<int>> by_worker(3);
  for (auto& x : by_worker) x.store(0);
  pool.parallel_for(3, 1, [&](int, int, int worker) {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    by_worker[static_cast<std::size_t>(worker)].fetch_add(1);
  });
  for (int w = 0; w < 3; ++w) EXPECT_EQ(by_worker[static_cast<std::size_t>(w)].load(), 1) << "worker " << w;
}

TEST(ThreadPool, ExceptionIsRethrownAndThePoolStaysUsable) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    std::atomic<int> ran{0};
    try {
      pool.parallel_for(200, 1, [&](int begin, int, int) {
        ++ran;
        if (begin == 37) throw std::runtime_error("item 37 failed");
      });
      ADD_FAILURE() << "no exception, threads " << threads;
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 37 failed");
    }
    EXPECT_GE(ran.load(), 1);
    EXPECT_LE(ran.load(), 200);
    // A region after the exception runs every item once, with no stale error.
    std::vector<std::atomic<int>> hits(500);
    for (auto& h : hits) h.store(0);
    pool.parallel_for(500, 3, [&](int begin, int end, int) {
      for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    int wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    EXPECT_EQ(wrong, 0) << "threads " << threads;
  }
}

TEST(ThreadPool, FirstOfSeveralExceptionsIsRethrown) {
  ThreadPool pool(4);
  std::atomic<int> thrown{0};
  EXPECT_THROW(pool.parallel_for(64, 1,
                                 [&](int, int, int) {
                                   ++thrown;
                                   throw std::out_of_range("every item throws");
                                 }),
               std::out_of_range);
  // Chunks not yet started when the first exception was thrown are skipped.
  EXPECT_GE(thrown.load(), 1);
  EXPECT_LE(thrown.load(), 64);
}

TEST(ThreadPool, ManyRegionsInARow) {
  // 10,000 short regions: no deadlock, no lost or repeated item, no stale region (a worker
  // that wakes late must not run an old body on the new region's items).
  ThreadPool pool(4);
  std::vector<int> data(37, 0);
  for (int r = 0; r < 10000; ++r) {
    const int n = 1 + r % 37;
    pool.parallel_for(n, 1 + r % 5, [&, r](int begin, int end, int) {
      for (int i = begin; i < end; ++i) data[static_cast<std::size_t>(i)] += r;
    });
  }
  long long expect_total = 0, total = 0;
  for (int r = 0; r < 10000; ++r) expect_total += static_cast<long long>(r) * (1 + r % 37);
  for (int v : data) total += v;
  EXPECT_EQ(total, expect_total);
  for (int i = 0; i < 37; ++i) {
    long long expect = 0;
    for (int r = 0; r < 10000; ++r) expect += (1 + r % 37) > i ? r : 0;
    EXPECT_EQ(data[static_cast<std::size_t>(i)], expect) << "item " << i;
  }
}

TEST(ThreadPool, ManyPoolsCreatedAndDestroyed) {
  for (int k = 0; k < 200; ++k) {
    ThreadPool pool(1 + k % 5);
    std::atomic<int> sum{0};
    if (k % 3 != 0) pool.parallel_for(10, 1, [&](int begin, int end, int) { sum += end - begin; });
    EXPECT_EQ(sum.load(), k % 3 != 0 ? 10 : 0);
  }
}

TEST(ThreadPool, NestedUseOnTheSamePoolIsRefused) {
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    std::atomic<int> refused{0};
    pool.parallel_for(6, 1, [&](int, int, int) {
      try {
        pool.parallel_for(2, 1, [](int, int, int) {});
      } catch (const std::logic_error&) {
        ++refused;
      }
    });
    EXPECT_EQ(refused.load(), 6) << "threads " << threads;
    // Another pool inside a body is fine.
    std::atomic<int> items{0};
    pool.parallel_for(4, 1, [&](int b, int e, int) {
      for (int k = b; k < e; ++k) {
        ThreadPool inner(2);
        inner.parallel_for(10, 1, [&](int ib, int ie, int) { items += ie - ib; });
      }
    });
    EXPECT_EQ(items.load(), 40);
    // The refusal left the pool usable.
    std::atomic<int> after{0};
    pool.parallel_for(9, 2, [&](int b, int e, int) { after += e - b; });
    EXPECT_EQ(after.load(), 9);
  }
}

TEST(ThreadPool, ConcurrentUseFromTwoThreadsIsRefused) {
  ThreadPool pool(2);
  std::atomic<bool> entered{false}, release{false};
  std::thread a([&] {
    pool.parallel_for(1, 1, [&](int, int, int) {
      entered = true;
      while (!release.load()) std::this_thread::yield();
    });
  });
  while (!entered.load()) std::this_thread::yield();
  EXPECT_THROW(pool.parallel_for(4, 1, [](int, int, int) {}), std::logic_error);
  release = true;
  a.join();
  std::atomic<int> after{0};
  pool.parallel_for(4, 1, [&](int b, int e, int) { after += e - b; });
  EXPECT_EQ(after.load(), 4);
}

TEST(ThreadPool, IdleWorkersTakeNoCpuTime) {
  // Passive waiting: after a region, workers sleep on a condition variable. A spinning
  // team (OpenMP's active wait policy) would burn up to (threads - 1) x 0.2 s here.
  const int threads = 4;
  ThreadPool pool(threads);
  std::atomic<double> sink{0};
  for (int r = 0; r < 20; ++r)
    pool.parallel_for(64, 1, [&](int begin, int, int) {
      double x = begin;
      for (int k = 0; k < 2000; ++k) x = x * 0.999 + 1.0;
      sink.store(x);
    });
  const double cpu0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = process_cpu_seconds() - cpu0;
  // Near 0 (a few wake-ups of the test harness at most); 10 ms is 1.7 % of what three
  // spinning workers would take in the same wall time.
  EXPECT_LT(cpu, 0.010) << "process CPU time " << cpu << " s while the pool idled " << wall << " s";
}

TEST(ThreadCount, ResolveAndDefault) {
  EXPECT_EQ(resolve_thread_count(3), 3);
  EXPECT_EQ(resolve_thread_count(1), 1);
  EXPECT_EQ(resolve_thread_count(0), default_thread_count());
  EXPECT_EQ(resolve_thread_count(-2), default_thread_count());
  EXPECT_EQ(default_thread_count(), usable_cpu_count());
  EXPECT_GE(default_thread_count(), 1);
  EXPECT_LE(default_thread_count(), affinity_cpu_count());
}

}  // namespace
}  // namespace simphant
