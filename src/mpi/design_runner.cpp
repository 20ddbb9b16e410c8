// Optimisation studies over the ranks of an MPI job: the samples of each batch of designs are
// evaluated in slices on every rank (include/contactuq/mpi/world_runner.hpp).
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactuq/mpi/world_runner.hpp"
#include "contactuq/opt/optimization_study.hpp"
#include "contactuq/study/threads.hpp"
#include "design_runner.hpp"
#include "messages.hpp"
#include "transport.hpp"

namespace contactuq::mpi {

using namespace detail;

namespace {

// A slice evaluated on this rank, or why it could not be.
struct finished_rows {
  design_outputs outputs;
  std::string error;  // "": outputs hold the result
};

finished_rows evaluate_rows(const opt::robust_problem& problem, const design_rows& job) {
  finished_rows f;
  f.outputs.job = job.job;
  try {
    f.outputs.outputs = problem.sample_rows(job.x, job.first, job.count, f.outputs.errors);
  } catch (const std::exception& e) {
    f.error = e.what();
  } catch (...) {
    f.error = "unknown exception";
  }
  return f;
}

std::size_t threads_or_all(std::uint64_t threads) {
  return study::worker_threads(threads);
}

// Threads that may evaluate slices at once: models that are not thread safe get one.
std::size_t slice_threads(const std::vector<opt::robust_problem>& problems, std::size_t threads) {
  const bool safe = std::all_of(problems.begin(), problems.end(),
                                [](const opt::robust_problem& p) { return p.model().thread_safe(); });
  return safe ? threads : 1;
}

}  // namespace

namespace detail {

bool serve_designs(const study_message& m) {
  std::vector<opt::robust_problem> problems;
  bool ready = false;
  try {
    const io::study_document doc = io::study_document::parse(m.text, m.file);
    const opt::optimization_study s = opt::read_optimization_study(doc);
    for (const auto& [label, model] : opt::optimization_models(s))
      problems.push_back(opt::make_robust_problem(s.base, model, s.objectives, s.constraints));
    ready = true;
  } catch (const std::exception& e) {
    send_error(whole_study, e.what());
  }
  const std::size_t threads = slice_threads(problems, threads_or_all(m.threads));
  std::optional<local_jobs<finished_rows>> local;
  if (ready) {
    local.emplace(threads);
    send_numbers({threads}, 0, ready_tag);
  }
  return serve_until_done(
      [&](int tag, const std::vector<std::byte>& bytes) {
        if (tag != rows_tag || !local) return;
        design_rows job = unpack_design_rows(bytes);
        if (job.model >= problems.size()) {
          send_error(job.job, fmt::format("model {} of {}", job.model, problems.size()));
          return;
        }
        const opt::robust_problem& problem = problems[job.model];
        local->submit([&problem, job = std::move(job)] { return evaluate_rows(problem, job); });
      },
      [&](outbox& out) {
        bool any = false;
        if (local)
          for (auto& f : local->take()) {
            any = true;
            if (f.error.empty())
              out.send(pack(f.outputs), rows_done_tag);
            else
              send_error(f.outputs.job, f.error);
          }
        return any;
      });
}

}  // namespace detail

struct world_runner::designs {
  explicit designs(std::size_t threads) : local(threads), local_threads(threads) {}
  local_jobs<finished_rows> local;
  std::size_t local_threads;
  std::vector<std::size_t> rank_threads;  // threads of each rank; [0] is this one's
};

world_runner::world_runner(const session& s) : session_(s) {}

world_runner::~world_runner() {
  try {
    finish();
  } catch (...) {
    // MPI failed at the end of the job: nothing left to tell.
  }
}

void world_runner::start(const io::study_document& doc, std::size_t threads) {
  finish();
  const int ranks = session_.size();
  const std::vector<std::byte> announcement =
      pack(study_message{.text = doc.text(), .file = doc.file(), .threads = threads});
  for (int w = 1; w < ranks; ++w) send(announcement, w, designs_tag);
  auto [rank_threads, failure] = wait_for_ranks(ranks);
  if (!failure.empty()) {
    for (int w = 1; w < ranks; ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, done_tag, MPI_COMM_WORLD);
    throw std::runtime_error(failure);
  }
  // This rank evaluates slices on its threads, with one more that calls MPI.
  const std::size_t local = threads_or_all(threads);
  designs_ = std::make_unique<designs>(local);
  rank_threads[0] = local;
  designs_->rank_threads = std::move(rank_threads);
}

std::vector<opt::robust_value> world_runner::evaluate(const opt::robust_problem& problem, std::size_t model,
                                                      const std::vector<std::vector<double>>& xs) {
  if (!designs_) throw std::logic_error("world_runner::evaluate before start");
  designs& d = *designs_;
  const int ranks = session_.size();
  const auto n = static_cast<std::size_t>(problem.samples().rows());
  const auto outputs = static_cast<Eigen::Index>(problem.model().outputs().size());
  std::size_t all_threads = 0;
  for (const std::size_t t : d.rank_threads) all_threads += t;
  // Slices of about a quarter of a thread's share, so that uneven samples even out.
  const std::size_t slice = std::clamp<std::size_t>((n * xs.size() + 4 * all_threads - 1) / (4 * all_threads), 1, n);
  std::vector<design_rows> jobs;
  for (std::size_t k = 0; k < xs.size(); ++k)
    for (std::size_t first = 0; first < n; first += slice)
      jobs.push_back({jobs.size(), model, first, std::min(slice, n - first), xs[k]});
  std::vector<std::size_t> design_of(jobs.size());
  for (std::size_t j = 0, k = 0; k < xs.size(); ++k)
    for (std::size_t first = 0; first < n; first += slice) design_of[j++] = k;

  std::vector<io::sample_matrix> y(xs.size(), io::sample_matrix(static_cast<Eigen::Index>(n), outputs));
  std::vector<std::vector<std::string>> errors(xs.size(), std::vector<std::string>(n));
  const auto arrived = [&](const design_outputs& o) {
    const design_rows& job = jobs.at(o.job);
    if (static_cast<std::size_t>(o.outputs.rows()) != job.count || o.outputs.cols() != outputs)
      throw std::runtime_error(fmt::format("MPI: slice {} came back as {} x {}, not {} x {}", o.job, o.outputs.rows(),
                                           o.outputs.cols(), job.count, outputs));
    const std::size_t k = design_of[o.job];
    y[k].middleRows(static_cast<Eigen::Index>(job.first), static_cast<Eigen::Index>(job.count)) = o.outputs;
    std::copy(o.errors.begin(), o.errors.end(), errors[k].begin() + static_cast<std::ptrdiff_t>(job.first));
  };

  const std::size_t local_limit = problem.model().thread_safe() ? 2 * d.local_threads : 1;
  std::vector<std::size_t> held(static_cast<std::size_t>(ranks), 0);
  std::size_t next = 0, back = 0;
  std::string failure;
  backoff wait;
  while (back < jobs.size()) {
    bool busy = false;
    // Up to two slices per thread held by each rank: one running, one queued.
    for (int w = 1; w < ranks && failure.empty(); ++w) {
      auto& h = held[static_cast<std::size_t>(w)];
      while (next < jobs.size() && h < 2 * d.rank_threads[static_cast<std::size_t>(w)]) {
        send(pack(jobs[next++]), w, rows_tag);
        ++h;
        busy = true;
      }
    }
    while (failure.empty() && next < jobs.size() && d.local.in_flight() < local_limit) {
      const design_rows& job = jobs[next++];
      d.local.submit([&problem, &job] { return evaluate_rows(problem, job); });
      busy = true;
    }
    const auto fail = [&](const std::string& what) {
      if (failure.empty()) failure = what;
    };
    while (const auto probed = poll(MPI_ANY_SOURCE)) {
      busy = true;
      const std::vector<std::byte> bytes = receive(*probed);
      --held[static_cast<std::size_t>(probed->MPI_SOURCE)];
      ++back;
      try {
        if (probed->MPI_TAG == rows_done_tag) {
          arrived(unpack_design_outputs(bytes));
        } else {
          byte_reader r(bytes);
          const auto job = r.get<std::uint64_t>();
          fail(fmt::format("rank {}, slice {}: {}", probed->MPI_SOURCE, job, r.get_string()));
        }
      } catch (const std::exception& e) {
        fail(fmt::format("rank {}: {}", probed->MPI_SOURCE, e.what()));
      }
    }
    for (auto& f : d.local.take()) {
      busy = true;
      ++back;
      try {
        if (f.error.empty())
          arrived(f.outputs);
        else
          fail(fmt::format("rank 0, slice {}: {}", f.outputs.job, f.error));
      } catch (const std::exception& e) {
        fail(e.what());
      }
    }
    if (!failure.empty() && next < jobs.size()) {
      back += jobs.size() - next;  // never handed out
      next = jobs.size();
    }
    if (busy)
      wait.reset();
    else
      wait.pause();
  }
  if (!failure.empty()) throw std::runtime_error(failure);
  std::vector<opt::robust_value> values;
  for (std::size_t k = 0; k < xs.size(); ++k) values.push_back(problem.value_of(y[k], errors[k]));
  return values;
}

void world_runner::finish() {
  if (!designs_) return;
  for (int w = 1; w < session_.size(); ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, done_tag, MPI_COMM_WORLD);
  designs_.reset();
}

}  // namespace contactuq::mpi
