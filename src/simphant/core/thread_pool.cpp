#include "simphant/core/thread_pool.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "simphant/core/cpu_limits.hpp"

namespace simphant {

// One region at a time. The caller publishes the region (body, n_items, chunk, a new
// generation) under the mutex and wakes the workers; every thread, the caller included,
// then claims chunks from `cursor`, which packs the region's generation (high 32 bits)
// with the next unclaimed item (low 32 bits), by compare-and-swap. A worker that woke
// for a region that has since ended and been followed by another finds a different
// generation in the cursor and claims nothing, so it never runs an old body on a new
// region's items. The region ends when `completed` reaches n_items; the caller waits for
// that, not for every worker to have woken, so a worker that another process keeps off
// the CPU delays the region only by the chunk it holds.
struct ThreadPool::Shared {
  std::mutex mutex;
  std::condition_variable start;  ///< workers wait here for a new generation (or stop)
  std::condition_variable done;   ///< the caller waits here for completed == n_items
  std::vector<std::thread> workers;
  // The region, written by the caller under the mutex.
  Callback body{nullptr, nullptr};
  int n_items = 0, chunk = 1;
  std::uint32_t generation = 0;
  bool stop = false;
  std::atomic<std::uint64_t> cursor{0};  ///< generation << 32 | next item
  std::atomic<int> completed{0};         ///< items whose chunk has returned (or was skipped)
  std::atomic<bool> failed{false};       ///< a body threw: skip the chunks not yet started
  std::exception_ptr error;              ///< the first exception (under the mutex)

  static std::uint64_t pack(std::uint32_t gen, int item) {
    return static_cast<std::uint64_t>(gen) << 32 | static_cast<std::uint32_t>(item);
  }

  /// Claims and runs chunks of region `gen` until none is left (worker w).
  void work(std::uint32_t gen, Callback f, int n, int c, int w) {
    std::uint64_t cur = cursor.load(std::memory_order_acquire);
    for (;;) {
      if (static_cast<std::uint32_t>(cur >> 32) != gen) return;
      const int begin = static_cast<int>(cur & 0xffffffffu);
      if (begin >= n) return;
      const int end = begin + std::min(c, n - begin);
      if (!cursor.compare_exchange_weak(cur, pack(gen, end), std::memory_order_acq_rel, std::memory_order_acquire))
        continue;
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          f(begin, end, w);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex);
          if (!error) error = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
      // The last chunk to return wakes the caller; taking the mutex first means the
      // caller is either before its predicate check or inside wait, never in between.
      if (completed.fetch_add(end - begin, std::memory_order_acq_rel) + (end - begin) == n) {
        std::lock_guard<std::mutex> lock(mutex);
        done.notify_one();
      }
      cur = cursor.load(std::memory_order_acquire);
    }
  }

  void loop(int w) {
    std::uint32_t seen = 0;
    for (;;) {
      Callback f;
      int n, c;
      {
        std::unique_lock<std::mutex> lock(mutex);
        start.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
        f = body;
        n = n_items;
        c = chunk;
      }
      work(seen, f, n, c, w);
    }
  }

  void stop_and_join() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    start.notify_all();
    for (std::thread& t : workers) t.join();
    workers.clear();
  }
};

ThreadPool::ThreadPool(int threads) : threads_(std::max(1, threads)), shared_(std::make_unique<Shared>()) {
  shared_->workers.reserve(static_cast<std::size_t>(threads_ - 1));
  try {
    for (int w = 1; w < threads_; ++w) shared_->workers.emplace_back([s = shared_.get(), w] { s->loop(w); });
  } catch (...) {
    shared_->stop_and_join();
    throw;
  }
}

ThreadPool::~ThreadPool() { shared_->stop_and_join(); }

void ThreadPool::run(int n_items, int chunk, Callback body) {
  if (n_items <= 0) return;
  if (busy_.exchange(true, std::memory_order_acquire))
    throw std::logic_error(
        "ThreadPool::parallel_for: the pool is already running a region (a body called parallel_for on its own "
        "pool, or two threads share one pool)");
  struct Release {
    std::atomic<bool>& busy;
    ~Release() { busy.store(false, std::memory_order_release); }
  } release{busy_};
  if (chunk <= 0) chunk = static_cast<int>(std::max<long long>(1, (n_items + 8LL * threads_ - 1) / (8LL * threads_)));
  if (threads_ == 1 || n_items <= chunk) {  // on the caller, chunk by chunk as the workers would
    for (int begin = 0; begin < n_items; begin += std::min(chunk, n_items - begin))
      body(begin, begin + std::min(chunk, n_items - begin), 0);
    return;
  }
  Shared& s = *shared_;
  std::uint32_t gen;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    gen = ++s.generation;
    s.body = body;
    s.n_items = n_items;
    s.chunk = chunk;
    s.completed.store(0, std::memory_order_relaxed);
    s.failed.store(false, std::memory_order_relaxed);
    s.error = nullptr;
    s.cursor.store(Shared::pack(gen, 0), std::memory_order_release);
  }
  s.start.notify_all();
  s.work(gen, body, n_items, chunk, 0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.done.wait(lock, [&] { return s.completed.load(std::memory_order_acquire) == n_items; });
    error = s.error;
    s.error = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

int parallel_chunk(int n_items, int item_work, int threads) {
  constexpr long long kMinChunkWork = 16;
  const long long by_work = (kMinChunkWork + std::max(1, item_work) - 1) / std::max(1, item_work);
  const long long per_worker = 8LL * std::max(1, threads);
  const long long by_balance = std::max(1LL, (static_cast<long long>(n_items) + per_worker - 1) / per_worker);
  return static_cast<int>(std::max(1LL, std::min(by_work, by_balance)));
}

int default_thread_count() { return usable_cpu_count(); }

int resolve_thread_count(int requested) { return requested > 0 ? requested : default_thread_count(); }

}  // namespace simphant
