#include "contactuq/mpi/world_runner.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <tbb/info.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include "contactuq/model/registry.hpp"
#include "design_runner.hpp"
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

// A worker rank's side of one study; returns true when rank 0 ended the job instead (it failed
// before it could end the study).
bool serve_study(const study_message& m) {
  std::optional<io::study_document> doc;
  std::optional<study::ensemble_study> s;
  std::optional<study::sample_plan> inputs;
  try {
    model::register_builtin_models();
    doc.emplace(io::study_document::parse(m.text, m.file));
    s.emplace(study::read_ensemble_study(*doc));
    inputs.emplace(*s);
  } catch (const std::exception& e) {
    send_error(whole_study, e.what());
    s.reset();
  }
  const std::size_t threads = m.threads > 0 ? m.threads : static_cast<std::size_t>(tbb::info::default_concurrency());
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
        byte_reader r(bytes);
        const auto first = r.get<std::uint64_t>(), count = r.get<std::uint64_t>(), rows = r.get<std::uint64_t>();
        const auto end = std::min(r.get<std::uint64_t>(), static_cast<std::uint64_t>(s->rows()));
        for (std::uint64_t k = 0; k < count && first + k * rows < end; ++k)
          local->submit(first + k * rows, std::min(rows, end - (first + k * rows)));
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
    for (;;) {
      MPI_Status probed;
      MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &probed);
      const std::vector<std::byte> bytes = receive(probed);
      if (probed.MPI_TAG == quit_tag) return 0;
      if (probed.MPI_TAG == study_tag && serve_study(unpack_study(bytes))) return 0;
      if (probed.MPI_TAG == designs_tag && serve_designs(unpack_study(bytes))) return 0;
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
  const bool abort_on_failure = study.sampling.failures == study::failure_policy::abort;

  // Every rank reads the study; until each has answered (ready or error) none may be told it is over.
  const std::vector<std::byte> announcement =
      pack(study_message{doc.text(), doc.file(), options.threads, sink.compression()});
  for (int w = 1; w < ranks; ++w) send(announcement, w, study_tag);

  const std::size_t threads =
      options.threads > 0 ? options.threads : static_cast<std::size_t>(tbb::info::default_concurrency());
  const study::block_evaluator evaluate(study, inputs);
  // This thread calls MPI and appends; `threads` others evaluate.
  local_blocks local(evaluate, [&sink](io::ensemble_block& b) { sink.prepare(b); }, threads);

  struct rank_state {
    bool answered = false;      // ready or error
    std::size_t per_request = 0;  // blocks handed out at once; 0: takes no work
    std::size_t in_flight = 0;  // blocks handed out and not yet back
  };
  std::vector<rank_state> state(static_cast<std::size_t>(ranks));
  state[0] = {true, blocks_per_request(threads, rows), 0};
  std::size_t capacity = state[0].per_request;  // blocks all ready ranks may hold at once

  study::run_summary summary;
  summary.first = summary.completed = options.first;
  std::size_t next = options.first;  // next sample to hand out
  std::map<std::size_t, study::evaluated_block> pending;  // back, waiting for earlier blocks
  bool handing_out = true;
  std::string error;  // the first error of a rank: the run fails with it
  std::exception_ptr failure;  // of this rank (the sink)

  const auto stop_handing_out = [&] { handing_out = false; };
  const auto fail = [&](const std::string& what) {
    if (error.empty()) error = what;
    stop_handing_out();
  };
  // A block back from any rank: kept until the blocks before it are in the sink.
  const auto arrived = [&](study::evaluated_block e, int from) {
    const io::ensemble_block& b = e.block;
    const bool same_inputs = b.first + b.size() <= inputs.rows() &&
                             static_cast<std::size_t>(b.inputs.cols()) == inputs.cols() &&
                             b.inputs == inputs.rows(b.first, b.size());
    if (!same_inputs)
      fail(fmt::format("rank {} sampled other inputs for samples [{}, {}) than rank 0 (a different build of "
                       "contactuq, or another kind of machine?)",
                       from, b.first, b.first + b.size()));
    else
      pending.emplace(b.first, std::move(e));  // append_ready drops it after a failure
  };
  // Blocks in order into the sink; an abort drops every later block.
  const auto append_ready = [&] {
    for (auto it = pending.begin(); it != pending.end() && it->first == summary.completed && !summary.aborted && !failure;
         it = pending.erase(it)) {
      const study::evaluated_block& e = it->second;
      try {
        sink.append(e.block);
      } catch (...) {
        failure = std::current_exception();
        stop_handing_out();
        break;
      }
      summary.completed = e.block.first + e.block.size();
      summary.failed += e.failed;
      summary.retried += e.retried;
      if (abort_on_failure && e.first_failure) {
        summary.aborted = true;
        summary.abort_message = fmt::format("sample {} failed: {}", e.block.first + *e.first_failure,
                                            e.block.messages[*e.first_failure]);
        stop_handing_out();
      }
      if (options.progress) options.progress(summary.completed, n);
    }
    if (summary.aborted || failure || !error.empty()) pending.clear();
  };
  const auto in_flight = [&] {
    std::size_t k = local.in_flight();
    for (int w = 1; w < ranks; ++w) k += state[static_cast<std::size_t>(w)].in_flight;
    return k;
  };
  const auto all_answered = [&] {
    return std::all_of(state.begin(), state.end(), [](const rank_state& r) { return r.answered; });
  };

  backoff wait;
  for (;;) {
    bool busy = false;
    while (const auto probed = poll(MPI_ANY_SOURCE)) {
      busy = true;
      const int from = probed->MPI_SOURCE;
      rank_state& r = state[static_cast<std::size_t>(from)];
      const std::vector<std::byte> bytes = receive(*probed);
      if (probed->MPI_TAG == ready_tag) {
        byte_reader reader(bytes);
        r.answered = true;
        r.per_request = blocks_per_request(reader.get<std::uint64_t>(), rows);
        capacity += r.per_request;
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
    for (auto& f : local.take()) {
      busy = true;
      if (f.block)
        arrived(std::move(*f.block), 0);
      else
        fail(fmt::format("rank 0, samples from {}: {}", f.first, f.error));
    }
    append_ready();
    if (options.stop && options.stop->load()) stop_handing_out();
    // Hand out whole requests while the blocks held (in flight or waiting to be appended) stay
    // within a window: memory stays bounded behind a slow block, and a rank a little slower
    // than the others (rank 0 also writes) does not hold them up.
    for (int w = 0; w < ranks && handing_out; ++w) {
      rank_state& r = state[static_cast<std::size_t>(w)];
      const std::size_t held = w == 0 ? local.in_flight() : r.in_flight;
      if (r.per_request == 0 || held > r.per_request) continue;  // up to two requests: one queued
      if ((next - summary.completed) / rows + r.per_request > 4 * capacity + 64) break;
      // Never more than a share of what is left (guided self-scheduling): a small plan of costly
      // samples (pin-slot) still spreads over every rank, and the last blocks go out one by one.
      const std::size_t left = (n - next + rows - 1) / rows;
      const std::size_t count =
          std::min({r.per_request, left, std::max<std::size_t>(1, left / (2 * static_cast<std::size_t>(ranks)))});
      if (count == 0) break;
      if (w == 0) {
        for (std::size_t k = 0; k < count; ++k) local.submit(next + k * rows, std::min(rows, n - (next + k * rows)));
      } else {
        send_numbers({next, count, rows, n}, w, blocks_tag);
        r.in_flight += count;
      }
      next = std::min(n, next + count * rows);
      busy = true;
    }
    if (next >= n) stop_handing_out();
    if (!handing_out && in_flight() == 0 && all_answered()) break;
    if (busy)
      wait.reset();
    else
      wait.pause();
  }
  for (int w = 1; w < ranks; ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, done_tag, MPI_COMM_WORLD);
  if (failure) std::rethrow_exception(failure);
  if (!error.empty()) throw std::runtime_error(error);
  summary.stopped = !summary.aborted && summary.completed < n;
  return summary;
}

}  // namespace contactuq::mpi
