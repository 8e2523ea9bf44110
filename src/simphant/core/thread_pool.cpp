#include "simphant/core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace simphant {

struct ThreadPool::Shared {
  std::mutex mutex;
  std::condition_variable start, done;
  std::vector<std::thread> workers;
  const std::function<void(int, int, int)>* body = nullptr;
  int n_items = 0, chunk = 1;
  std::atomic<int> next{0};
  std::uint64_t generation = 0;  ///< regions started
  int running = 0;               ///< workers still inside the current region
  bool stop = false;
  std::exception_ptr error;

  /// Takes chunks until none is left (worker w).
  void work(int w) {
    for (;;) {
      const int begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= n_items) return;
      try {
        (*body)(begin, std::min(begin + chunk, n_items), w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        next.store(n_items, std::memory_order_relaxed);  // the remaining chunks are skipped
      }
    }
  }

  void loop(int w) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        start.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
      }
      work(w);
      std::lock_guard<std::mutex> lock(mutex);
      if (--running == 0) done.notify_one();
    }
  }
};

ThreadPool::ThreadPool(int threads) : threads_(std::max(1, threads)), shared_(std::make_unique<Shared>()) {
  for (int w = 1; w < threads_; ++w) shared_->workers.emplace_back([this, w] { shared_->loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stop = true;
  }
  shared_->start.notify_all();
  for (std::thread& t : shared_->workers) t.join();
}

void ThreadPool::parallel_for(int n_items, int chunk, const std::function<void(int, int, int)>& body) {
  if (n_items <= 0) return;
  if (chunk <= 0) chunk = (n_items + threads_ - 1) / threads_;
  Shared& s = *shared_;
  if (threads_ == 1 || n_items <= chunk) {
    body(0, n_items, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.body = &body;
    s.n_items = n_items;
    s.chunk = chunk;
    s.next.store(0, std::memory_order_relaxed);
    s.error = nullptr;
    s.running = threads_ - 1;
    ++s.generation;
  }
  s.start.notify_all();
  s.work(0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.done.wait(lock, [&] { return s.running == 0; });
    error = s.error;
    s.body = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace simphant
