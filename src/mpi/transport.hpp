#pragma once
// Point-to-point messaging of the ranks (only the thread that calls MPI uses it), and work run
// on this rank's threads while that thread keeps answering messages.

#include <mpi.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace contactuq::mpi::detail {

void send(const std::vector<std::byte>& bytes, int to, int tag);
void send_numbers(std::initializer_list<std::uint64_t> values, int to, int tag);
// Receives the message `probed` announced (MPI_Probe or MPI_Iprobe).
std::vector<std::byte> receive(const MPI_Status& probed);
// The next message from `from` (or MPI_ANY_SOURCE), if one has arrived.
std::optional<MPI_Status> poll(int from);

// Tells rank 0 that the work `about` (a block's first sample, a job, or whole_study) failed.
void send_error(std::uint64_t about, const std::string& what);

// Rank 0, after announcing a study: waits for every other rank's answer, ready (with the
// thread count it sent) or an error. Returns the threads of each rank (0 for rank 0 and for
// ranks that failed) and the first failure's text ("" when every rank is ready).
std::pair<std::vector<std::size_t>, std::string> wait_for_ranks(int ranks);

class outbox;

// A worker's loop over one study: hands each message of rank 0 to `on_message` (tag, bytes) and,
// between them, lets `collect` send what finished (returning whether there was any), until rank
// 0 ends the study (done_tag) or the job (quit_tag); true for the job. Messages after the end are
// left for the caller (a method that runs many studies sends the next one right after).
bool serve_until_done(const std::function<void(int, const std::vector<std::byte>&)>& on_message,
                      const std::function<bool(outbox&)>& collect);

// Sleeps a little longer each time nothing happened (up to 250 us), so that an idle loop costs
// almost no core while a busy one answers within microseconds.
class backoff {
 public:
  void reset() { wait_ = std::chrono::microseconds(5); }
  void pause() {
    std::this_thread::sleep_for(wait_);
    wait_ = std::min(2 * wait_, std::chrono::microseconds(250));
  }

 private:
  std::chrono::microseconds wait_{5};
};

// Messages on their way to rank 0. A blocking send of a large message would wait, polling at
// full speed, until rank 0 takes it: the core it spins on is one the rank's evaluation needs.
class outbox {
 public:
  ~outbox() { wait_all(); }
  void send(std::vector<std::byte> bytes, int tag);
  // Forgets the messages delivered; true when some were.
  bool progress();
  void wait_all();

 private:
  struct message {
    std::vector<std::byte> bytes;
    MPI_Request request;
  };
  std::list<message> sending_;  // a list: requests and buffers stay where MPI was told they are
};

// Jobs run on `threads` threads of this rank, their results collected by the thread that calls
// MPI, which takes no part in them: the jobs run in an arena of their own with no slot for it
// (under mpirun a rank is often bound to one core, where TBB would otherwise start no worker
// thread at all). A job must not throw: it returns its failure in its Result.
template <class Result>
class local_jobs {
 public:
  explicit local_jobs(std::size_t threads)
      : workers_(tbb::global_control::max_allowed_parallelism, threads + 1), arena_(static_cast<int>(threads), 0) {}
  local_jobs(const local_jobs&) = delete;
  local_jobs& operator=(const local_jobs&) = delete;
  ~local_jobs() {
    while (running_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  void submit(std::function<Result()> job) {
    ++in_flight_;
    ++running_;
    arena_.enqueue([this, job = std::move(job)] {
      Result r = job();
      {
        const std::lock_guard lock(mutex_);
        done_.push_back(std::move(r));
      }
      --running_;
    });
  }
  // The results finished since the last call.
  std::deque<Result> take() {
    std::deque<Result> out;
    {
      const std::lock_guard lock(mutex_);
      out.swap(done_);
    }
    in_flight_ -= out.size();
    return out;
  }
  std::size_t in_flight() const noexcept { return in_flight_; }

 private:
  tbb::global_control workers_;  // room for `threads` workers besides the thread calling MPI
  tbb::task_arena arena_;
  std::atomic<std::size_t> running_ = 0;
  std::mutex mutex_;
  std::deque<Result> done_;
  std::size_t in_flight_ = 0;  // only the calling thread
};

}  // namespace contactuq::mpi::detail
