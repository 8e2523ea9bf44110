#pragma once
// ThreadPool: the CPU backends' worker threads. Workers sleep on a condition variable
// between parallel regions (passive waiting: an idle pool takes no CPU time from other
// processes, unlike a spinning OpenMP team), and a region hands out its items in chunks
// from an atomic counter (dynamic scheduling: a worker slowed by another process takes
// fewer chunks). Which worker runs an item never changes that item's arithmetic, so
// results are bit-identical for any thread count (docs/performance.md, "Threads").
#include <functional>
#include <memory>

namespace simphant {

class ThreadPool {
 public:
  /// threads: the workers, the calling thread included (>= 1; 1 runs everything on the
  /// caller and starts no thread).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return threads_; }

  /// Runs body(begin, end, worker) over [0, n_items) in chunks of at most `chunk` items
  /// (chunk <= 0: one chunk per worker), worker in [0, size()); returns when every chunk
  /// has run. The first exception thrown by a body is rethrown here after the region ends.
  /// Not re-entrant: a body must not call parallel_for on the same pool.
  void parallel_for(int n_items, int chunk, const std::function<void(int begin, int end, int worker)>& body);

 private:
  struct Shared;
  int threads_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace simphant
