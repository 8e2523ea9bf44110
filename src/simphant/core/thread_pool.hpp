#pragma once
// ThreadPool: the CPU backends' worker threads. Workers sleep on a condition variable
// between parallel regions (passive waiting: an idle pool takes no CPU time from other
// processes, unlike a spinning OpenMP team), and a region hands out its items in chunks
// from an atomic counter (dynamic scheduling: a worker slowed by another process takes
// fewer chunks, and a region ends as soon as its items are done, without waiting for a
// worker that never got the CPU). Which worker runs an item never changes that item's
// arithmetic, so results are bit-identical for any thread count (docs/performance.md,
// "Threads").
#include <atomic>
#include <memory>
#include <type_traits>

namespace simphant {

class ThreadPool {
 public:
  /// threads: the workers, the calling thread included (values < 1 count as 1; 1 runs
  /// every region's chunks on the caller, in order, and starts no thread). Throws
  /// std::system_error when a thread cannot be started (the ones already started are
  /// stopped first).
  explicit ThreadPool(int threads);
  /// Wakes and joins the workers. Must not run while a region is in progress.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The workers, the calling thread included (>= 1).
  int size() const { return threads_; }

  /// Runs body(begin, end, worker) over [0, n_items) in chunks [begin, end) of at most
  /// `chunk` items (chunk <= 0: about 8 chunks per worker), with worker in [0, size())
  /// naming the thread that runs the chunk (0: the caller); a worker runs one chunk at a
  /// time, so per-worker scratch indexed by `worker` needs no lock. Every item runs
  /// exactly once, and parallel_for returns when every chunk has returned (its writes
  /// are then visible to the caller). n_items <= 0 runs nothing.
  ///
  /// Exceptions: the first exception thrown by a body is rethrown here once the region
  /// has ended; the chunks not yet started when it was thrown are skipped (their items
  /// do not run). The pool stays usable.
  ///
  /// Not re-entrant: a body must not call parallel_for on the same pool, and two threads
  /// must not call it on one pool at once; either throws std::logic_error (for every
  /// size(), so that a test with one thread catches it too). Another pool may be used
  /// inside a body.
  ///
  /// body is any callable void(int begin, int end, int worker); it is called through a
  /// pointer, never copied, so a region allocates nothing (the step loops' no-allocation
  /// rule, tests/test_no_allocation.cpp).
  template <class Body>
  void parallel_for(int n_items, int chunk, Body&& body) {
    using B = std::remove_reference_t<Body>;
    run(n_items, chunk, Callback{&call<B>, const_cast<void*>(static_cast<const void*>(std::addressof(body)))});
  }

 private:
  /// A region's body, type-erased without ownership.
  struct Callback {
    void (*fn)(void* body, int begin, int end, int worker);
    void* body;
    void operator()(int begin, int end, int worker) const { fn(body, begin, end, worker); }
  };
  template <class B>
  static void call(void* body, int begin, int end, int worker) {
    (*static_cast<B*>(body))(begin, end, worker);
  }
  void run(int n_items, int chunk, Callback body);

  struct Shared;
  int threads_;
  std::atomic<bool> busy_{false};  ///< a region is in progress (nested and concurrent use)
  std::unique_ptr<Shared> shared_;
};

/// A chunk size for parallel_for over n_items items of about item_work units each, a unit
/// being one instance-step or one evaluation of an instance (about 1 to 50 us on a CPU
/// core): enough items that a chunk holds >= 16 units, so that claiming it (one atomic
/// compare-and-swap) costs well under 1 % of it, yet at least 8 chunks per worker where
/// there are items enough, so that a worker another process keeps off the CPU holds back
/// at most a small tail of the region. threads: the pool's size(). >= 1.
int parallel_chunk(int n_items, int item_work, int threads);

/// The thread count that `threads = 0` (CLI `--threads 0`, the default; SimulatorOptions,
/// the Python Simulator) means: every CPU this process may use, usable_cpu_count()
/// (core/cpu_limits.hpp: the affinity mask, capped by a cgroup CPU quota). With sleeping
/// workers and dynamic chunks, more workers than free cores cost at most a region's tail,
/// so the count is not lowered on a busy machine (measured: docs/performance.md,
/// "Threads").
int default_thread_count();

/// requested > 0: requested; otherwise default_thread_count().
int resolve_thread_count(int requested);

}  // namespace simphant
