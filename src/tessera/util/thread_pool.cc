#include "tessera/util/thread_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tessera/util/exception_guard.h"
#include "tessera/util/operation_control.h"

namespace tessera::util {

namespace {

constexpr int kMaxThreads = 4096;
// Chunks per thread taking part: more than one, so a slow chunk does not hold up the others.
constexpr int64_t kChunksPerThread = 4;

// True while this thread runs a loop body: a ParallelFor started there runs inline.
thread_local bool in_loop_body = false;

int ComputeNumThreads() {
  if (const int configured = ParseNumThreads(std::getenv("TESSERA_NUM_THREADS"))) {
    return configured;
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(hardware, 1, kMaxThreads));
}

// One ParallelFor call: its chunks are claimed by the caller and by helping workers through
// `next_chunk`; the caller waits until `finished_chunks` reaches `num_chunks`.
struct Job {
  const std::function<arrow::Status(int64_t, int64_t)>* body = nullptr;
  std::string operation;                // the caller's current operation, for errors of the workers
  OperationControl* control = nullptr;  // the caller's, for progress and cancellation
  int64_t count = 0;
  int64_t chunk_size = 1;
  int64_t num_chunks = 0;
  int helpers_wanted = 0;  // workers still allowed to join (guarded by the pool's mutex)
  std::atomic<int64_t> next_chunk{0};
  std::vector<arrow::Status> statuses;  // one per chunk, each written by the thread running it

  std::mutex mutex;
  std::condition_variable all_finished;
  int64_t finished_chunks = 0;  // guarded by `mutex`

  // Runs chunks until none is left to claim.
  void RunChunks() {
    // A loop nested in a body (run inline) names the same operation on a worker thread.
    const OperationName name(operation);
    const ControlScope control_scope(control);
    in_loop_body = true;
    for (;;) {
      const int64_t chunk = next_chunk.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= num_chunks) break;
      const int64_t begin = chunk * chunk_size;
      const int64_t end = std::min(count, begin + chunk_size);
      statuses[static_cast<size_t>(chunk)] =
          GuardExceptions(CurrentOperation(), [&] { return (*body)(begin, end); });
      std::lock_guard<std::mutex> lock(mutex);
      if (++finished_chunks == num_chunks) all_finished.notify_all();
    }
    in_loop_body = false;
  }

  bool HasUnclaimedChunks() const {
    return next_chunk.load(std::memory_order_relaxed) < num_chunks;
  }
};

// The workers and the queue of loops they may help with. Created once and never destroyed:
// workers may still be waiting on the queue while the process exits.
class Pool {
 public:
  explicit Pool(int workers) : owner_pid_(::getpid()) {
    threads_.reserve(static_cast<size_t>(workers));
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { WorkerLoop(); });
    for (std::thread& thread : threads_) thread.detach();
  }

  int workers() const { return static_cast<int>(threads_.size()); }
  bool InOwnerProcess() const { return ::getpid() == owner_pid_; }

  // `helpers` is job->helpers_wanted, read before the workers can see the job.
  void Submit(const std::shared_ptr<Job>& job, int helpers) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(job);
    }
    if (helpers == 1) {
      work_available_.notify_one();
    } else {
      work_available_.notify_all();
    }
  }

  // Takes `job` off the queue if no worker has taken its last helper place yet.
  void Withdraw(const std::shared_ptr<Job>& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::find(queue_.begin(), queue_.end(), job);
    if (it != queue_.end()) queue_.erase(it);
  }

 private:
  void WorkerLoop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_available_.wait(lock, [this] { return !queue_.empty(); });
      std::shared_ptr<Job> job = queue_.front();
      if (--job->helpers_wanted <= 0 || !job->HasUnclaimedChunks()) queue_.pop_front();
      lock.unlock();
      job->RunChunks();
      job.reset();
      lock.lock();
    }
  }

  const pid_t owner_pid_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_available_;
  std::deque<std::shared_ptr<Job>> queue_;
};

Pool& GlobalPool() {
  static Pool* pool = new Pool(NumThreads() - 1);
  return *pool;
}

}  // namespace

int ParseNumThreads(const char* text) {
  if (text == nullptr) return 0;
  const std::string_view digits(text);
  if (digits.empty() || digits.size() > 9) return 0;
  int value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value >= 1 && value <= kMaxThreads ? value : 0;
}

int NumThreads() {
  static const int num_threads = ComputeNumThreads();
  return num_threads;
}

arrow::Status ParallelFor(int64_t count, const std::function<arrow::Status(int64_t, int64_t)>& body,
                          int64_t min_chunk, int max_threads) {
  if (count <= 0) return arrow::Status::OK();
  min_chunk = std::max<int64_t>(min_chunk, 1);
  int threads = max_threads <= 0 ? NumThreads() : std::min(max_threads, NumThreads());
  threads = static_cast<int>(std::min<int64_t>(threads, (count + min_chunk - 1) / min_chunk));
  if (threads <= 1 || in_loop_body) {
    const bool was_in_body = in_loop_body;
    in_loop_body = true;
    arrow::Status status = GuardExceptions(CurrentOperation(), [&] { return body(0, count); });
    in_loop_body = was_in_body;
    return status;
  }
  Pool& pool = GlobalPool();
  if (!pool.InOwnerProcess()) {
    in_loop_body = true;
    arrow::Status status = GuardExceptions(CurrentOperation(), [&] { return body(0, count); });
    in_loop_body = false;
    return status;
  }

  auto job = std::make_shared<Job>();
  job->body = &body;
  job->operation = std::string(CurrentOperation());
  job->control = CurrentControl();
  job->count = count;
  job->chunk_size =
      std::max(min_chunk, (count + threads * kChunksPerThread - 1) / (threads * kChunksPerThread));
  job->num_chunks = (count + job->chunk_size - 1) / job->chunk_size;
  const int helpers = static_cast<int>(std::min<int64_t>(threads - 1, job->num_chunks - 1));
  job->helpers_wanted = helpers;
  job->statuses.resize(static_cast<size_t>(job->num_chunks));
  if (helpers > 0) pool.Submit(job, helpers);
  job->RunChunks();
  if (helpers > 0) pool.Withdraw(job);
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->all_finished.wait(lock, [&] { return job->finished_chunks == job->num_chunks; });
  }
  for (arrow::Status& status : job->statuses) {
    if (!status.ok()) return std::move(status);
  }
  return arrow::Status::OK();
}

}  // namespace tessera::util
