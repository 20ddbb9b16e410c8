#include "contactuq/study/ensemble_runner.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "contactuq/error.hpp"
#include "contactuq/model/evaluation_context.hpp"
#include "contactuq/study/threads.hpp"

namespace contactuq::study {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

io::ensemble_block empty_block(const model::model& m, std::size_t first, std::size_t size) {
  const auto rows = static_cast<Eigen::Index>(size);
  io::ensemble_block b;
  b.first = first;
  b.inputs.resize(rows, static_cast<Eigen::Index>(m.inputs().size()));
  b.outputs = io::sample_matrix::Constant(rows, static_cast<Eigen::Index>(m.outputs().size()), nan);
  for (const auto& c : m.curves())
    b.curves.push_back(io::sample_matrix::Constant(rows, static_cast<Eigen::Index>(c.abscissa.size()), nan));
  b.status.assign(size, static_cast<std::int32_t>(io::sample_status::not_run));
  b.messages.assign(size, "");
  return b;
}

struct sample_result {
  bool failed = false;
  bool retried = false;
  bool done = false;  // false: not run (cancelled)
};

// Evaluates sample r of the block with `m`, writing its row; never throws.
sample_result evaluate_sample(const model::model& m, const std::vector<std::size_t>& columns,
                              io::ensemble_block& b, Eigen::Index r, int attempts) {
  std::span<const double> x(b.inputs.row(r).data(), static_cast<std::size_t>(b.inputs.cols()));
  std::vector<double> mapped;
  if (!columns.empty()) {  // a case whose model has inputs of its own
    for (std::size_t k = 0; k < columns.size(); ++k)
      mapped.push_back(columns[k] == epistemic_case::npos ? m.inputs()[k].nominal : x[columns[k]]);
    x = mapped;
  }
  std::string message;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    try {
      model::evaluation e = m.evaluate(x);
      for (std::size_t j = 0; j < e.outputs.size(); ++j) b.outputs(r, static_cast<Eigen::Index>(j)) = e.outputs[j];
      for (std::size_t k = 0; k < e.curves.size(); ++k)
        b.curves[k].row(r) = Eigen::Map<const Eigen::RowVectorXd>(e.curves[k].data(),
                                                                  static_cast<Eigen::Index>(e.curves[k].size()));
      b.status[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(io::sample_status::ok);
      auto& stored = b.messages[static_cast<std::size_t>(r)];
      stored = std::move(e.note);
      if (attempt > 0)
        stored = fmt::format("succeeded at attempt {}: {}{}", attempt + 1, message,
                             stored.empty() ? "" : fmt::format("; {}", stored));
      return {false, attempt > 0};
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception";
    }
  }
  // A failed attempt may have written part of a row before throwing: none of it is kept.
  b.outputs.row(r).setConstant(nan);
  for (auto& c : b.curves) c.row(r).setConstant(nan);
  b.status[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(io::sample_status::failed);
  b.messages[static_cast<std::size_t>(r)] = attempts > 1 ? fmt::format("{} (after {} attempts)", message, attempts)
                                                         : message;
  return {true, false};
}

// Rows [r0, r1) of the block through the model's batch entry point; a row that fails there is
// evaluated again alone, so that its retries and message are evaluate_sample's.
void evaluate_rows(const model::model& m, io::ensemble_block& b, std::size_t r0, std::size_t r1, int attempts,
                   std::span<sample_result> results) {
  const std::size_t rows = r1 - r0;
  const auto at = [&](io::sample_matrix& a) {
    return std::span<double>(a.row(static_cast<Eigen::Index>(r0)).data(), rows * static_cast<std::size_t>(a.cols()));
  };
  std::vector<std::string> errors(rows), notes(rows);
  model::batch batch{rows, std::span<const double>(at(b.inputs)), at(b.outputs), {}, errors, notes};
  for (auto& c : b.curves) batch.curves.push_back(at(c));
  m.evaluate_batch(batch);
  static const std::vector<std::size_t> no_columns;
  for (std::size_t r = r0; r < r1; ++r) {
    if (errors[r - r0].empty()) {
      b.status[r] = static_cast<std::int32_t>(io::sample_status::ok);
      b.messages[r] = std::move(notes[r - r0]);
    } else
      results[r] = evaluate_sample(m, no_columns, b, static_cast<Eigen::Index>(r), attempts);
    results[r].done = true;
  }
}

// Hands finished blocks to the sink on a thread of its own, in order, so that appending (the
// HDF5 writes) overlaps the evaluation of the next blocks even with one worker thread. At most
// `capacity` blocks wait: push() blocks while the queue is full, so memory stays bounded. A
// sink that throws stops the appending; the exception comes back from push() or finish().
class background_appender {
 public:
  background_appender(sample_sink& sink, std::size_t capacity,
                      std::function<void(const evaluated_block&)> after_append)
      : sink_(sink), capacity_(capacity), after_(std::move(after_append)), thread_([this] { loop(); }) {}
  background_appender(const background_appender&) = delete;
  background_appender& operator=(const background_appender&) = delete;
  ~background_appender() {
    try {
      finish();
    } catch (...) {
      // Reported by finish() where the caller calls it; here only on unwinding.
    }
  }

  // Queues a block; rethrows a failure of the sink. Returns false once the sink failed.
  void push(std::shared_ptr<evaluated_block> block) {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < capacity_ || error_; });
    waited_ += std::chrono::steady_clock::now() - start;
    if (error_) return;
    queue_.push_back(std::move(block));
    ready_.notify_one();
  }
  bool failed() {
    const std::lock_guard lock(mutex_);
    return error_ != nullptr;
  }
  // Waits for the queued blocks to be appended; rethrows the sink's exception.
  void finish() {
    const auto start = std::chrono::steady_clock::now();
    {
      const std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) thread_.join();
    waited_ += std::chrono::steady_clock::now() - start;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  // Seconds the caller spent waiting for the sink (a full queue, and the last blocks).
  double waited_seconds() const { return std::chrono::duration<double>(waited_).count(); }

 private:
  void loop() {
    while (true) {
      std::shared_ptr<evaluated_block> block;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty() || done_; });
        if (queue_.empty()) return;
        block = std::move(queue_.front());
        queue_.pop_front();
      }
      space_.notify_one();
      try {
        sink_.append(block->block);
        if (after_) after_(*block);
      } catch (...) {
        const std::lock_guard lock(mutex_);
        error_ = std::current_exception();
        queue_.clear();
        space_.notify_all();
        return;
      }
    }
  }

  sample_sink& sink_;
  const std::size_t capacity_;
  std::function<void(const evaluated_block&)> after_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<std::shared_ptr<evaluated_block>> queue_;
  bool done_ = false;
  std::exception_ptr error_;
  std::chrono::steady_clock::duration waited_{};
  std::thread thread_;  // last: started once the rest is set up
};

// Where the blocks of a run end (run_options::block_size, first_block, block_seconds). A block
// never crosses a block_size boundary counted from the first one, so blocks of block_size
// samples are whole chunks of the file (compressed by the workers, written once), and smaller
// ones, cut by cost, tile a chunk that the writer assembles from them (io::ensemble_writer).
class block_sizer {
 public:
  block_sizer(const run_options& o, std::size_t workers, const block_evaluator& cost)
      : size_(o.block_size), anchor_(o.first + (o.first_block > 0 ? o.first_block : 0)),
        seconds_(o.block_seconds), workers_(std::max<std::size_t>(1, workers)), cost_(cost) {}

  // Samples of the block that starts at `next` (< end).
  std::size_t operator()(std::size_t next, std::size_t end) const {
    const std::size_t boundary = next < anchor_ ? anchor_ : anchor_ + ((next - anchor_) / size_ + 1) * size_;
    std::size_t rows = boundary - next;
    if (seconds_ > 0) rows = std::min(rows, by_cost());
    return std::min(rows, end - next);
  }

 private:
  // block_seconds of work on every worker thread, from the cost measured so far; one sample per
  // thread until a sample has been timed (a slow study commits its first samples soon). At
  // least 1/64 of a chunk: the writer rewrites a chunk at each block that adds to it, and each
  // rewrite leaves the space of the chunk's last version behind (io/ensemble_writer.cpp).
  std::size_t by_cost() const {
    const double per_sample = cost_.seconds_per_sample();
    if (per_sample <= 0) return workers_;
    const double rows = seconds_ * static_cast<double>(workers_) / per_sample;
    if (rows >= static_cast<double>(size_)) return size_;
    return std::max({std::size_t{1}, size_ / 64, static_cast<std::size_t>(rows)});
  }

  const std::size_t size_, anchor_;
  const double seconds_;
  const std::size_t workers_;
  const block_evaluator& cost_;
};

}  // namespace

void memory_sink::append(const io::ensemble_block& block) {
  if (all_.status.empty()) {
    all_ = block;
    return;
  }
  if (block.first != all_.first + all_.size())
    throw std::invalid_argument(fmt::format("memory_sink: block starts at sample {}, expected {}", block.first,
                                            all_.first + all_.size()));
  auto stack = [](io::sample_matrix& a, const io::sample_matrix& b) {
    io::sample_matrix c(a.rows() + b.rows(), b.cols());
    c << a, b;
    a = std::move(c);
  };
  stack(all_.inputs, block.inputs);
  stack(all_.outputs, block.outputs);
  for (std::size_t k = 0; k < block.curves.size(); ++k) stack(all_.curves[k], block.curves[k]);
  all_.status.insert(all_.status.end(), block.status.begin(), block.status.end());
  all_.messages.insert(all_.messages.end(), block.messages.begin(), block.messages.end());
}

void run_options::validate() const {
  require(block_size >= 1, "block_size", static_cast<double>(block_size), "", ">= 1");
  require(block_seconds >= 0 && block_seconds <= 86400, "block_seconds", block_seconds, "s", "in [0, 86400]");
  require(threads <= 65536, "threads", static_cast<double>(threads), "", "in [0, 65536]");
}

void wait_for_stop(const run_options& options) {
  const auto raised = [&options] {
    return (options.stop && options.stop->load()) || (options.cancel && options.cancel->load());
  };
  if (!options.stop && !options.cancel) return;
  while (!raised()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

block_evaluator::block_evaluator(const ensemble_study& study, const sample_plan& inputs)
    : study_(study), inputs_(inputs),
      attempts_(study.sampling.failures == failure_policy::retry ? 1 + study.sampling.retries : 1) {
  if (inputs.rows() != study.rows() || inputs.cols() != study.model.inputs().size())
    throw std::invalid_argument(fmt::format("block_evaluator: inputs are {} x {}, the study needs {} x {}",
                                            inputs.rows(), inputs.cols(), study.rows(), study.model.inputs().size()));
}

// The model of sample i is its case's; one that is not thread safe gets a clone per thread.
const model::model& block_evaluator::model_for(std::size_t i) const {
  const std::size_t c = i / study_.per_case();
  const model::model& shared = study_.case_model(c);
  if (shared.thread_safe()) return shared;
  auto& local = clones_.local();
  if (local.size() <= c) local.resize(c + 1);
  if (!local[c]) local[c].emplace(shared.clone());
  return *local[c];
}

double block_evaluator::seconds_per_sample() const {
  const std::uint64_t samples = timed_samples_.load(std::memory_order_relaxed);
  return samples == 0 ? 0.0 : 1e-9 * static_cast<double>(timed_nanoseconds_.load(std::memory_order_relaxed)) /
                                  static_cast<double>(samples);
}

// Times the rows one thread evaluates in a row, for seconds_per_sample: the count is kept in
// `to` and both are added once, when it goes out of scope (also on a cancel).
class block_evaluator::timed_rows {
 public:
  timed_rows(const block_evaluator& owner, std::size_t begin) : owner_(owner), begin_(begin), end_(begin) {}
  timed_rows(const timed_rows&) = delete;
  timed_rows& operator=(const timed_rows&) = delete;
  ~timed_rows() {
    if (end_ == begin_) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_);
    owner_.timed_nanoseconds_.fetch_add(static_cast<std::uint64_t>(ns.count()), std::memory_order_relaxed);
    owner_.timed_samples_.fetch_add(end_ - begin_, std::memory_order_relaxed);
  }
  void to(std::size_t end) { end_ = end; }

 private:
  const block_evaluator& owner_;
  const std::size_t begin_;
  std::size_t end_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

evaluated_block block_evaluator::operator()(std::size_t first, std::size_t size,
                                            const std::atomic<bool>* cancel) const {
  require(first + size <= study_.rows(), "block end", static_cast<double>(first + size), "",
          "<= the number of samples");
  static const std::vector<std::size_t> no_columns;
  evaluated_block out;
  io::ensemble_block& b = out.block;
  b = empty_block(study_.model, first, size);
  b.inputs = inputs_.rows(first, size);
  std::vector<sample_result> results(size);
  std::atomic<bool> cancelled = false;
  // Models with a batch entry point get runs of up to 8 rows of one case; the others one row at
  // a time.
  const std::size_t grain = study_.model.has_batch() ? 8 : 1;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size, grain), [&](const tbb::blocked_range<std::size_t>& range) {
    timed_rows timed(*this, range.begin());
    for (std::size_t r = range.begin(); r < range.end(); timed.to(r)) {
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        cancelled = true;
        return;
      }
      const std::size_t i = first + r, c = i / study_.per_case();
      const auto& columns = study_.cases.empty() ? no_columns : study_.cases[c].input_columns;
      const model::model& m = model_for(i);
      if (m.has_batch() && columns.empty()) {
        const std::size_t end = std::min(range.end(), (c + 1) * study_.per_case() - first);  // within the case
        evaluate_rows(m, b, r, end, attempts_, results);
        r = end;
      } else {
        // Which sample of which case, for a model that tells its program (external).
        const model::evaluation_scope context(
            {static_cast<long long>(i % study_.per_case()),
             study_.cases.empty() || study_.epistemic.empty() ? std::string_view() : study_.cases[c].label});
        results[r] = evaluate_sample(m, columns, b, static_cast<Eigen::Index>(r), attempts_);
        results[r].done = true;
        ++r;
      }
    }
  });
  // A cancelled block keeps the samples before its first one not run.
  out.cancelled = cancelled;
  const std::size_t kept = static_cast<std::size_t>(
      std::find_if(results.begin(), results.end(), [](const sample_result& r) { return !r.done; }) - results.begin());
  if (kept < size) b.keep_first(kept);
  for (std::size_t r = 0; r < kept; ++r) {
    out.failed += results[r].failed;
    out.retried += results[r].retried;
    if (results[r].failed && !out.first_failure) out.first_failure = r;
  }
  return out;
}

run_summary run_ensemble(const ensemble_study& study, const io::sample_matrix& inputs, sample_sink& sink,
                         const run_options& options) {
  return run_ensemble(study, sample_plan(study, inputs), sink, options);
}

run_summary run_ensemble(const ensemble_study& study, const sample_plan& inputs, sample_sink& sink,
                         const run_options& options) {
  options.validate();
  const std::size_t rows = study.rows();
  const std::size_t n = options.end > 0 ? options.end : rows;  // evaluated: [first, n)
  require(n <= rows, "end", static_cast<double>(n), "", "<= the number of samples");
  require(options.first <= n, "first", static_cast<double>(options.first), "", "<= end, the last sample + 1");
  const block_evaluator evaluate(study, inputs);

  std::optional<tbb::global_control> limit;
  if (options.threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, options.threads);
  const std::size_t workers = worker_threads(options.threads);
  const block_sizer block_size(options, workers, evaluate);
  const bool abort_on_failure = study.sampling.failures == failure_policy::abort;

  run_summary summary;
  summary.first = summary.completed = options.first;
  std::size_t next = options.first;
  std::size_t started = 0;  // blocks this run has started (pause_after_blocks)
  std::atomic<bool> aborting = false;
  bool cancelled = false;  // a block was cancelled: nothing more reaches the sink
  using range = std::pair<std::size_t, std::size_t>;  // first, size
  // The sink's thread: after each block, what it holds and the progress.
  std::size_t appended = options.first;
  background_appender appender(sink, 2, [&](const evaluated_block& e) {
    appended = e.block.first + e.block.size();
    if (options.progress) options.progress(appended, n);
  });

  tbb::parallel_pipeline(
      2 * workers + 1,
      tbb::make_filter<void, range>(tbb::filter_mode::serial_in_order,
                                    [&](tbb::flow_control& fc) -> range {
                                      if (next >= n || aborting.load() || (options.stop && options.stop->load()) ||
                                          (options.cancel && options.cancel->load()) || appender.failed() ||
                                          (options.pause_after_blocks > 0 && started == options.pause_after_blocks)) {
                                        fc.stop();
                                        return {};
                                      }
                                      ++started;
                                      const range r{next, block_size(next, n)};
                                      next += r.second;
                                      return r;
                                    }) &
          tbb::make_filter<range, std::shared_ptr<evaluated_block>>(
              tbb::filter_mode::parallel,
              [&](range r) {
                auto e = std::make_shared<evaluated_block>(evaluate(r.first, r.second, options.cancel));
                if (e->block.size() > 0) sink.prepare(e->block);
                return e;
              }) &
          tbb::make_filter<std::shared_ptr<evaluated_block>, void>(
              tbb::filter_mode::serial_in_order, [&](const std::shared_ptr<evaluated_block>& e) {
                // After an abort, blocks already in flight are dropped: what reaches the sink does
                // not depend on timing. A cancelled block hands on what it finished; the blocks
                // behind it are dropped.
                if (summary.aborted || cancelled) return;
                cancelled = e->cancelled;
                if (e->block.size() == 0) return;
                summary.completed = e->block.first + e->block.size();
                summary.failed += e->failed;
                summary.retried += e->retried;
                if (abort_on_failure && e->first_failure) {
                  summary.aborted = true;
                  aborting = true;
                  const std::size_t i = e->block.first + *e->first_failure;
                  summary.abort_message =
                      fmt::format("sample {} failed: {}", i, e->block.messages[*e->first_failure]);
                }
                appender.push(e);
              }));
  appender.finish();  // every block queued is in the sink; rethrows the sink's failure
  summary.sink_wait_seconds = appender.waited_seconds();
  summary.completed = appended;  // the same, unless the sink failed (then finish() threw)
  summary.stopped = !summary.aborted && summary.completed < n;
  // Paused: every block started is in the sink (on disk, for a writer) while the run waits.
  if (summary.stopped && options.pause_after_blocks > 0 && started == options.pause_after_blocks)
    wait_for_stop(options);
  return summary;
}

io::ensemble_schema ensemble_schema_for(const ensemble_study& study, const io::study_document& doc) {
  io::ensemble_schema s;
  for (const input_spec& in : study.inputs) {
    io::ensemble_input e{in.name, in.unit, in.role, {}};
    if (in.distribution) e.attributes.emplace_back("distribution", in.distribution->describe());
    if (in.role == io::input_role::fixed || in.role == io::input_role::design)
      e.attributes.emplace_back("value", fmt::format("{}", in.value));
    if (in.role == io::input_role::design) e.attributes.emplace_back("bounds", fmt::format("[{}, {}]", in.low, in.high));
    for (const epistemic_parameter& p : study.epistemic)
      if (!p.model_key && p.name == in.name)
        e.attributes.emplace_back("choices", fmt::format("{}", fmt::join(p.values, ", ")));
    s.inputs.push_back(std::move(e));
  }
  for (const model::variable& v : study.model.outputs()) s.outputs.push_back({v.name, v.unit});
  for (const model::curve_output& c : study.model.curves())
    s.curves.push_back({c.name, c.abscissa.size(), c.abscissa_name, units::si_unit(c.abscissa_dim),
                        c.unit, c.abscissa});
  s.metadata.study_text = doc.text();
  s.metadata.study_path = doc.file();
  s.metadata.seed = study.sampling.design.seed;
  s.metadata.design = uq::to_string(study.sampling.design.kind);
  s.metadata.samples = study.rows();
  if (!study.epistemic.empty())
    for (const epistemic_case& c : study.cases) s.metadata.epistemic_cases.push_back(c.label);
  if (study.sampling.sobol) s.metadata.pick_freeze_inputs = study.aleatoric().size();
  s.metadata.replicates = study.sampling.design.replicates;
  s.metadata.method = study.epistemic.empty() ? "sample" : "nested";
  s.metadata.model = study.model.name();
  return s;
}

}  // namespace contactuq::study
