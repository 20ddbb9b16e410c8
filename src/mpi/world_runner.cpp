#include "contactuq/mpi/world_runner.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include "contactuq/study/threads.hpp"
#include "fit_runner.hpp"
#include "messages.hpp"
#include "transport.hpp"

namespace contactuq::mpi {

using namespace detail;

namespace {

// An evaluated block of this rank, or why its evaluation failed.
struct finished_block {
  std::size_t first = 0;
  std::optional<study::evaluated_block> block;  // nullopt: evaluation threw `error`
  std::string error;
};

// Blocks evaluated on `threads` threads of this rank, compressed by `prepare`.
class local_blocks {
 public:
  local_blocks(const study::block_evaluator& evaluate, std::function<void(io::ensemble_block&)> prepare,
               std::size_t threads)
      : evaluate_(evaluate), prepare_(std::move(prepare)), jobs_(threads) {}
  void submit(std::size_t first, std::size_t size) {
    jobs_.submit([this, first, size] {
      finished_block f{first, std::nullopt, {}};
      try {
        study::evaluated_block e = evaluate_(first, size);
        prepare_(e.block);
        f.block = std::move(e);
      } catch (const std::exception& e) {
        f.error = e.what();
      } catch (...) {
        f.error = "unknown exception";
      }
      return f;
    });
  }
  std::deque<finished_block> take() { return jobs_.take(); }
  std::size_t in_flight() const noexcept { return jobs_.in_flight(); }

 private:
  const study::block_evaluator& evaluate_;
  std::function<void(io::ensemble_block&)> prepare_;
  local_jobs<finished_block> jobs_;  // last: destroyed first, once its jobs are done
};

// Blocks per request for a rank with `threads` threads: enough samples to keep them busy.
std::size_t blocks_per_request(std::size_t threads, std::size_t block_rows) {
  return std::clamp<std::size_t>((64 * threads + block_rows - 1) / block_rows, 1, 64);
}

// The study a worker read last, kept for the next one with the same document, read the same
// way: a method that evaluates many batches of its own rows (reliability) runs each as a study
// of its own, and its model is made once.
class study_cache {
 public:
  // The study of `m`, with the sampling rank 0's method set after reading.
  study::ensemble_study& read(const study_message& m) {
    if (!study_ || m.text != doc_->text() || m.file != doc_->file() || !(m.reading == study_->reading)) {
      study_.reset();
      doc_.reset();
      doc_.emplace(io::study_document::parse(m.text, m.file));
      study_.emplace(study::read_ensemble_study(*doc_, m.reading));
    }
    study_->sampling.samples = m.samples;
    study_->sampling.failures = m.failures;
    study_->sampling.retries = m.retries;
    study_->sampling.sobol = m.sobol;
    return *study_;
  }

 private:
  std::optional<io::study_document> doc_;
  std::optional<study::ensemble_study> study_;
};

// A worker rank's side of one study; returns true when rank 0 ended the job instead (it failed
// before it could end the study).
bool serve_study(const study_message& m, study_cache& cache) {
  study::ensemble_study* s = nullptr;
  io::sample_matrix given;  // a plan of given rows: those of this rank's blocks, as they come
  std::optional<study::sample_plan> inputs;
  try {
    s = &cache.read(m);
    if (m.rows_given) {
      given.resize(static_cast<Eigen::Index>(s->rows()), static_cast<Eigen::Index>(s->inputs.size()));
      inputs.emplace(*s, given);
    } else {
      inputs.emplace(*s);
    }
  } catch (const std::exception& e) {
    send_error(whole_study, e.what());
    s = nullptr;
  }
  const std::size_t threads = study::worker_threads(m.threads);
  std::optional<study::block_evaluator> evaluate;
  std::optional<local_blocks> local;
  if (s) {
    evaluate.emplace(*s, *inputs);
    local.emplace(
        *evaluate,
        [&m](io::ensemble_block& b) {
          if (m.compression) io::precompress(b, *m.compression);
        },
        threads);
    send_numbers({threads}, 0, ready_tag);
  }
  return serve_until_done(
      [&](int tag, const std::vector<std::byte>& bytes) {
        if (tag != blocks_tag || !local) return;
        block_assignment a = unpack_blocks(bytes);
        const std::uint64_t end = std::min(a.end, static_cast<std::uint64_t>(s->rows()));
        if (m.rows_given) {
          // Written before the blocks are submitted, into rows no thread reads yet.
          const std::uint64_t size = std::min(a.first + a.count * a.rows, end) - std::min(a.first, end);
          if (!a.inputs || static_cast<std::uint64_t>(a.inputs->rows()) != size || a.inputs->cols() != given.cols()) {
            send_error(a.first, "blocks came without the inputs of their samples (a different build of contactuq?)");
            return;
          }
          given.middleRows(static_cast<Eigen::Index>(a.first), a.inputs->rows()) = *a.inputs;
        }
        for (std::uint64_t k = 0; k < a.count && a.first + k * a.rows < end; ++k)
          local->submit(a.first + k * a.rows, std::min(a.rows, end - (a.first + k * a.rows)));
      },
      [&](outbox& out) {
        bool any = false;
        if (local)
          for (auto& f : local->take()) {
            any = true;
            if (f.block)
              out.send(pack(*f.block), result_tag);
            else
              send_error(f.first, f.error);
          }
        return any;
      });
}

// Rank 0's side of a sampling study: hands blocks of samples out to every rank (itself
// included), takes the evaluated blocks back and appends them to the sink in order.
class sample_schedule {
 public:
  sample_schedule(const study::ensemble_study& study, const study::sample_plan& inputs,
                  study::sample_sink& sink, const study::run_options& options,
                  const study::block_evaluator& evaluate, int ranks, std::size_t n, std::size_t rows,
                  std::size_t threads)
      : inputs_(inputs),
        sink_(sink),
        options_(options),
        ranks_(ranks),
        n_(n),
        rows_(rows),
        abort_on_failure_(study.sampling.failures == study::failure_policy::abort),
        // This thread calls MPI and appends; `threads` others evaluate.
        local_(evaluate, [&sink](io::ensemble_block& b) { sink.prepare(b); }, threads),
        state_(static_cast<std::size_t>(ranks)) {
    state_[0] = {true, blocks_per_request(threads, rows), 0};
    capacity_ = state_[0].per_request;
    summary_.first = summary_.completed = options.first;
    next_ = options.first;
    // Until every rank is ready, this one takes no more than its share of the blocks: a small
    // plan (a batch of designs) would otherwise be all its own before the others could start.
    local_share_ = ((n - options.first + rows - 1) / rows + static_cast<std::size_t>(ranks) - 1) /
                   static_cast<std::size_t>(ranks);
  }

  // Until every block is back and every rank has answered.
  void run() {
    backoff wait;
    for (;;) {
      bool busy = receive_messages();
      busy = take_local() || busy;
      append_ready();
      if (options_.stop && options_.stop->load()) stop_handing_out();
      busy = hand_out() || busy;
      if (next_ >= n_ || paused()) stop_handing_out();
      if (!handing_out_ && in_flight() == 0 && all_answered()) break;
      if (busy)
        wait.reset();
      else
        wait.pause();
    }
    // Paused (run_options::pause_after_blocks): every block handed out is in the sink.
    if (paused() && summary_.completed < n_ && !summary_.aborted && !failure_ && error_.empty())
      study::wait_for_stop(options_);
  }

  // The summary, or the first failure of the run.
  study::run_summary result() {
    if (failure_) std::rethrow_exception(failure_);
    if (!error_.empty()) throw std::runtime_error(error_);
    summary_.stopped = !summary_.aborted && summary_.completed < n_;
    return summary_;
  }

 private:
  struct rank_state {
    bool answered = false;      // ready or error
    std::size_t per_request = 0;  // blocks handed out at once; 0: takes no work
    std::size_t in_flight = 0;  // blocks handed out and not yet back
  };

  void stop_handing_out() { handing_out_ = false; }
  bool paused() const { return options_.pause_after_blocks > 0 && handed_ == options_.pause_after_blocks; }
  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
    stop_handing_out();
  }

  // A block back from any rank: kept until the blocks before it are in the sink.
  void arrived(study::evaluated_block e, int from) {
    const io::ensemble_block& b = e.block;
    const bool same_inputs = b.first + b.size() <= inputs_.rows() &&
                             static_cast<std::size_t>(b.inputs.cols()) == inputs_.cols() &&
                             b.inputs == inputs_.rows(b.first, b.size());
    if (!same_inputs)
      fail(fmt::format("rank {} sampled other inputs for samples [{}, {}) than rank 0 (a different build of "
                       "contactuq, or another kind of machine?)",
                       from, b.first, b.first + b.size()));
    else
      pending_.emplace(b.first, std::move(e));  // append_ready drops it after a failure
  }

  // Blocks in order into the sink; an abort drops every later block.
  void append_ready() {
    for (auto it = pending_.begin(); it != pending_.end() && it->first == summary_.completed && !summary_.aborted && !failure_;
         it = pending_.erase(it)) {
      const study::evaluated_block& e = it->second;
      try {
        sink_.append(e.block);
      } catch (...) {
        failure_ = std::current_exception();
        stop_handing_out();
        break;
      }
      summary_.completed = e.block.first + e.block.size();
      summary_.failed += e.failed;
      summary_.retried += e.retried;
      if (abort_on_failure_ && e.first_failure) {
        summary_.aborted = true;
        summary_.abort_message = fmt::format("sample {} failed: {}", e.block.first + *e.first_failure,
                                             e.block.messages[*e.first_failure]);
        stop_handing_out();
      }
      if (options_.progress) options_.progress(summary_.completed, n_);
    }
    if (summary_.aborted || failure_ || !error_.empty()) pending_.clear();
  }

  std::size_t in_flight() const {
    std::size_t k = local_.in_flight();
    for (int w = 1; w < ranks_; ++w) k += state_[static_cast<std::size_t>(w)].in_flight;
    return k;
  }
  bool all_answered() const {
    return std::all_of(state_.begin(), state_.end(), [](const rank_state& r) { return r.answered; });
  }

  // The messages of the other ranks that are waiting: ready, error, result. True if any came.
  bool receive_messages() {
    bool busy = false;
    while (const auto probed = poll(MPI_ANY_SOURCE)) {
      busy = true;
      const int from = probed->MPI_SOURCE;
      rank_state& r = state_[static_cast<std::size_t>(from)];
      const std::vector<std::byte> bytes = receive(*probed);
      if (probed->MPI_TAG == ready_tag) {
        byte_reader reader(bytes);
        r.answered = true;
        r.per_request = blocks_per_request(reader.get<std::uint64_t>(), rows_);
        capacity_ += r.per_request;
      } else if (probed->MPI_TAG == error_tag) {
        byte_reader reader(bytes);
        const auto first = reader.get<std::uint64_t>();
        const std::string what = reader.get_string();
        if (first == whole_study) {
          r.answered = true;
          fail(fmt::format("rank {} could not read the study: {}", from, what));
        } else {
          --r.in_flight;
          fail(fmt::format("rank {}, samples from {}: {}", from, first, what));
        }
      } else if (probed->MPI_TAG == result_tag) {
        --r.in_flight;
        study::evaluated_block e;
        try {
          e = unpack_block(bytes);
        } catch (const std::exception& x) {
          fail(fmt::format("rank {}: {}", from, x.what()));
          continue;
        }
        arrived(std::move(e), from);
      }
    }
    return busy;
  }

  // The blocks this rank's threads finished. True if any.
  bool take_local() {
    bool busy = false;
    for (auto& f : local_.take()) {
      busy = true;
      if (f.block)
        arrived(std::move(*f.block), 0);
      else
        fail(fmt::format("rank 0, samples from {}: {}", f.first, f.error));
    }
    return busy;
  }

  // Hand out whole requests while the blocks held (in flight or waiting to be appended) stay
  // within a window: memory stays bounded behind a slow block, and a rank a little slower
  // than the others (rank 0 also writes) does not hold them up. True if any went out.
  bool hand_out() {
    bool busy = false;
    for (int w = 0; w < ranks_ && handing_out_; ++w) {
      rank_state& r = state_[static_cast<std::size_t>(w)];
      const std::size_t held = w == 0 ? local_.in_flight() : r.in_flight;
      if (r.per_request == 0 || held > r.per_request) continue;  // up to two requests: one queued
      if ((next_ - summary_.completed) / rows_ + r.per_request > 4 * capacity_ + 64) break;
      // Never more than a share of what is left (guided self-scheduling): a small plan of costly
      // samples (pin-slot) still spreads over every rank, and the last blocks go out one by one.
      const std::size_t left = (n_ - next_ + rows_ - 1) / rows_;
      std::size_t count =
          std::min({r.per_request, left, std::max<std::size_t>(1, left / (2 * static_cast<std::size_t>(ranks_)))});
      if (options_.pause_after_blocks > 0) count = std::min(count, options_.pause_after_blocks - handed_);
      if (count == 0) break;
      if (w == 0 && !all_answered()) {
        count = std::min(count, local_share_ - std::min(local_share_, handed_local_));
        if (count == 0) continue;
      }
      if (w == 0) {
        handed_local_ += count;
        for (std::size_t k = 0; k < count; ++k) local_.submit(next_ + k * rows_, std::min(rows_, n_ - (next_ + k * rows_)));
      } else {
        block_assignment a{next_, count, rows_, n_, std::nullopt};
        // A plan of given rows: the blocks' inputs go with them (the worker cannot remake them).
        if (inputs_.given()) a.inputs = inputs_.rows(next_, std::min(n_, next_ + count * rows_) - next_);
        send(pack(a), w, blocks_tag);
        r.in_flight += count;
      }
      next_ = std::min(n_, next_ + count * rows_);
      handed_ += count;
      busy = true;
    }
    return busy;
  }

  const study::sample_plan& inputs_;
  study::sample_sink& sink_;
  const study::run_options& options_;
  const int ranks_;
  const std::size_t n_;     // end of the samples to run
  const std::size_t rows_;  // samples per block
  const bool abort_on_failure_;
  local_blocks local_;
  std::vector<rank_state> state_;
  std::size_t capacity_ = 0;  // blocks all ready ranks may hold at once
  study::run_summary summary_;
  std::size_t next_ = 0;  // next sample to hand out
  std::size_t handed_ = 0;  // blocks handed out (run_options::pause_after_blocks)
  std::size_t local_share_ = 0;   // blocks this rank takes before every rank is ready
  std::size_t handed_local_ = 0;  // blocks this rank took
  std::map<std::size_t, study::evaluated_block> pending_;  // back, waiting for earlier blocks
  bool handing_out_ = true;
  std::string error_;  // the first error of a rank: the run fails with it
  std::exception_ptr failure_;  // of this rank (the sink)
};

}  // namespace

session::session(int& argc, char**& argv) {
  if (!launched()) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_FUNNELED) {
    if (rank_ == 0)
      fmt::print(stderr, "contactuq: error: this MPI library offers no thread support (MPI_THREAD_FUNNELED); "
                         "contactuq evaluates with threads inside each rank\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

session::~session() {
  if (!active_) return;
  if (rank_ == 0)
    for (int w = 1; w < size_; ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, quit_tag, MPI_COMM_WORLD);
  MPI_Finalize();
}

int session::serve() {
  try {
    study_cache studies;  // across the studies of the job
    backoff wait;
    for (;;) {
      // Polled, not a blocking probe: MPI spins in one, on a core that rank 0 needs between the
      // many short studies of a method (an optimiser's batches of designs).
      const auto next = poll(0);
      if (!next) {
        wait.pause();
        continue;
      }
      wait.reset();
      const MPI_Status probed = *next;
      const std::vector<std::byte> bytes = receive(probed);
      if (probed.MPI_TAG == quit_tag) return 0;
      if (probed.MPI_TAG == study_tag && serve_study(unpack_study(bytes), studies)) return 0;
      if (probed.MPI_TAG == fits_tag && serve_fits(unpack_study(bytes), *this)) return 0;
    }
  } catch (const std::exception& e) {
    // Nothing rank 0 could be told (errors of a study are sent to it): the job ends here.
    fmt::print(stderr, "contactuq (MPI rank {}): error: {}\n", rank_, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 2;
}

study::run_summary world_runner::run(const io::study_document& doc, const study::ensemble_study& study,
                                     const study::sample_plan& inputs, study::sample_sink& sink,
                                     const study::run_options& options) {
  options.validate();
  // Between start and finish the other ranks run a calibration, not the serve loop.
  if (started_) throw std::logic_error("world_runner::run between start and finish");
  const std::size_t n = options.end > 0 ? options.end : study.rows();
  if (n > study.rows() || options.first > n)
    throw std::invalid_argument(fmt::format("world_runner: samples [{}, {}) of {}", options.first, n, study.rows()));
  const int ranks = session_.size();
  // Blocks of whole chunks, compressed where they are evaluated; a plan of fewer than 32 such
  // blocks per rank (a few costly samples of uneven cost: pin-slot) is cut finer, so that the
  // work spreads over every rank, and rank 0's writer compresses those blocks itself.
  const std::size_t share = (n - options.first + 32 * static_cast<std::size_t>(ranks) - 1) /
                            (32 * static_cast<std::size_t>(ranks));
  const std::size_t rows = std::max<std::size_t>(1, std::min(options.block_size, share));

  // Every rank reads the study as rank 0 did; until each has answered (ready or error) none may be
  // told it is over.
  study_message m{
      .text = doc.text(), .file = doc.file(), .threads = options.threads, .compression = sink.compression()};
  m.reading = study.reading;
  m.samples = study.sampling.samples;
  m.failures = study.sampling.failures;
  m.retries = study.sampling.retries;
  m.sobol = study.sampling.sobol;
  m.rows_given = inputs.given();
  const std::vector<std::byte> announcement = pack(m);
  for (int w = 1; w < ranks; ++w) send(announcement, w, study_tag);

  const std::size_t threads = study::worker_threads(options.threads);
  const study::block_evaluator evaluate(study, inputs);
  sample_schedule schedule(study, inputs, sink, options, evaluate, ranks, n, rows, threads);
  schedule.run();
  for (int w = 1; w < ranks; ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, done_tag, MPI_COMM_WORLD);
  return schedule.result();
}
}  // namespace contactuq::mpi
