#include "ensemble_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>
#include <optional>

#include "contactuq/io/ensemble_merge.hpp"
#include "contactuq/study/threads.hpp"

namespace contactuq::engine::detail {
namespace {

double physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

// Seconds since the previous lap (or construction).
class lap_timer {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(now - std::exchange(last_, now)).count();
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Blocks of about this many seconds of work on the run's threads (study::run_options::
// block_seconds): a slow study commits a block to its file every few seconds, so a kill loses
// at most that; cheap studies still get blocks of whole chunks.
constexpr double block_seconds = 2.0;
// A run planned to take longer than this says so once, after its first blocks.
constexpr double long_run_seconds = 180.0;

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// Prints, once, how long a long run will take: from the rate of this run's samples measured
// over its first blocks (at least a few seconds, so that the start-up does not count for much).
class time_estimate {
 public:
  time_estimate(std::FILE* to, std::size_t first, std::size_t threads) : to_(to), first_(first), threads_(threads) {}
  void operator()(std::size_t done, std::size_t n) {
    if (said_ || done <= first_ || done >= n) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < 3.0) return;
    said_ = true;
    const double per_sample = elapsed / static_cast<double>(done - first_);
    const double total = per_sample * static_cast<double>(n - first_);
    if (total < long_run_seconds) return;
    fmt::print(to_, "estimated time: about {} for {} samples ({:.3g} s per sample on {} thread{}); {} left\n",
               duration_text(total), n - first_, per_sample * static_cast<double>(threads_), threads_,
               threads_ == 1 ? "" : "s", duration_text(total - elapsed));
    std::fflush(to_);
  }

 private:
  std::FILE* to_;
  std::size_t first_, threads_;
  bool said_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The file and where the job's rows start: a new file, or what a resumed one already holds.
struct opened_file {
  io::ensemble_writer writer;
  std::optional<io::ensemble> previous;
};

opened_file open_file(const run_options& o, const std::filesystem::path& out, const io::ensemble_schema& schema) {
  std::optional<io::ensemble> previous;
  const auto part = io::unfinished_path(out);
  if (o.resume) io::recover_interrupted_finish(out);  // before reading what the file holds
  if (o.resume && (std::filesystem::exists(out) || std::filesystem::exists(part)))
    previous = io::read_ensemble(std::filesystem::exists(part) ? part : out);
  return {o.resume ? io::ensemble_writer::resume(out, schema)
                   : io::ensemble_writer::create(out, schema, {.deflate_level = o.compression}),
          std::move(previous)};
}

// Finishes the file of a run whose rows are all in, with the method's report beside it.
void finish(const ensemble_job& job, const run_options& o, const std::filesystem::path& out,
            io::ensemble_writer& writer, const recording_sink& sink, lap_timer& clock, run_result& r) {
  // The file is finished on another thread while the summary is computed: both are serial
  // work at the end of every run.
  auto finished = std::async(std::launch::async, [&writer] { writer.finish(io::iso8601_now()); });
  const std::string summary = o.shard.empty() && job.summary ? job.summary(sink) : std::string();
  r.timing.emplace_back("summary", clock.lap());
  finished.get();
  if (o.shard.empty() && job.finished) job.finished(out, sink);
  r.timing.emplace_back("finish", clock.lap());
  std::FILE* to = report(o);
  fmt::print(to, "{}", summary);
  fmt::print(to, "\nwrote {} ({} samples{})\n", out.string(), r.planned,
             o.shard.empty() ? "" : fmt::format(", shard {} of the plan", o.shard));
  if (sink.failed() == r.planned) {
    fmt::print(errors(o), "contactuq run: every sample failed ({} of {}); the file holds no result:\n{}",
               sink.failed(), r.planned, failures_text(sink));
    r.exit_code = 1;
  }
}

}  // namespace

void recording_sink::keep(const io::sample_matrix& outputs, const std::vector<std::int32_t>& status,
                          const std::vector<std::string>& messages) {
  for (Eigen::Index i = 0; i < outputs.rows(); ++i)
    for (std::size_t j = 0; j < outputs_.size(); ++j) outputs_[j].push_back(outputs(i, static_cast<Eigen::Index>(j)));
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (status[i] == static_cast<std::int32_t>(io::sample_status::failed)) {
      ++failed_;
      auto [it, added] = failure_messages_.try_emplace(messages[i], 0, status_.size() + i);
      ++it->second.first;
    } else if (status[i] == static_cast<std::int32_t>(io::sample_status::ok) && !messages[i].empty()) {
      if (noted_++ == 0) first_note_ = {status_.size() + i, messages[i]};
    }
  }
  status_.insert(status_.end(), status.begin(), status.end());
}

std::vector<std::tuple<std::string, std::size_t, std::size_t>> recording_sink::failure_messages() const {
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> v;
  for (const auto& [m, c] : failure_messages_) v.emplace_back(m, c.first, c.second);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return std::get<1>(a) > std::get<1>(b); });
  return v;
}

std::string failures_text(const recording_sink& sink) {
  std::string out;
  const auto messages = sink.failure_messages();
  constexpr std::size_t shown = 5;
  for (std::size_t k = 0; k < std::min(messages.size(), shown); ++k) {
    const auto& [m, count, first] = messages[k];
    fmt::format_to(std::back_inserter(out), "    {} x {} (first: sample {})\n", count, m, first);
  }
  if (messages.size() > shown)
    fmt::format_to(std::back_inserter(out), "    ... and {} other messages\n", messages.size() - shown);
  return out;
}

void refuse_oversized(const io::study_document& doc, const run_options& o, const study::ensemble_study& s,
                      bool streamed) {
  // Kept for the summary: every scalar output, status and message; and the input matrix unless
  // the plan's rows are made block by block.
  const auto n = static_cast<double>(s.rows());
  const double inputs = streamed ? 0.0 : static_cast<double>(s.model.inputs().size());
  const double bytes = n * (8.0 * (inputs + static_cast<double>(s.model.outputs().size())) + 8.0 + 40.0);
  const double available = physical_memory();
  if (!o.yes && available > 0 && bytes > 0.5 * available)
    throw std::invalid_argument(fmt::format(
        "{}: {} samples need about {:.1f} GiB of memory, more than half of this machine's {:.1f} GiB; use fewer "
        "samples (or run with --yes to try anyway)",
        doc.file(), s.rows(), bytes / (1 << 30), available / (1 << 30)));
}

std::size_t threads_of(const run_options& o) {
  return study::worker_threads(o.threads);
}

run_result run_ensemble_job(const io::study_document& doc, const run_options& o, const std::filesystem::path& out,
                            ensemble_job job) {
  lap_timer clock;
  io::make_parent_folder(out);
  const std::size_t threads = threads_of(o);
  io::ensemble_schema& schema = job.schema;
  schema.metadata.start_time = io::iso8601_now();
  schema.metadata.host = io::host_name();
  schema.metadata.git_commit = o.build_commit;
  schema.metadata.threads = threads;
  if (o.executor) schema.metadata.mpi_ranks = o.executor->processes();
  // A shard: plan rows [first, end) only, numbered in the plan (io/ensemble_merge.hpp).
  std::pair<std::size_t, std::size_t> range{0, job.plan.rows()};
  if (!o.shard.empty()) {
    const io::shard_spec spec = io::parse_shard(o.shard);
    range = io::shard_range(spec, job.plan.rows());
    schema = io::shard_schema(schema, spec);
  }
  auto [writer, previous] = open_file(o, out, schema);
  recording_sink sink(writer, job.study.model.outputs().size());
  if (previous) {
    const auto rows = static_cast<Eigen::Index>(std::min(previous->rows, writer.completed()));
    sink.keep(previous->outputs.topRows(rows), {previous->status.begin(), previous->status.begin() + rows},
              {previous->messages.begin(), previous->messages.begin() + rows});
  }

  std::FILE* to = report(o);
  fmt::print(to, "{}, {} thread{}{}\n", job.description, threads, threads == 1 ? "" : "s",
             o.executor ? fmt::format(" on each of {} MPI ranks", o.executor->processes()) : "");
  if (writer.completed() > 0) fmt::print(to, "resuming after sample {}\n", range.first + writer.completed());
  std::fflush(to);

  const double open_seconds = clock.lap();
  study::run_options ro;
  ro.threads = o.threads;
  // Whole chunks where samples are cheap (each compressed once, by a worker); where they are
  // costly, blocks of a few seconds that the writer assembles into chunks.
  ro.block_size = writer.chunk_rows();
  ro.block_seconds = block_seconds;
  ro.first_block = writer.chunk_rows() - writer.completed() % writer.chunk_rows();  // after a cut-short block
  ro.first = range.first + writer.completed();
  ro.end = range.second;
  ro.stop = o.stop;
  ro.cancel = o.cancel;
  ro.pause_after_blocks = o.pause_after_blocks;
  ro.progress = [estimate = time_estimate(to, ro.first, threads * (o.executor ? o.executor->processes() : 1)),
                 &o](std::size_t done, std::size_t n) mutable {
    estimate(done, n);
    if (o.progress) o.progress(done, n);
  };
  const study::run_summary result = o.executor ? o.executor->run(doc, job.study, job.plan, sink, ro)
                                               : study::run_ensemble(job.study, job.plan, sink, ro);

  run_result r{.method_name = job.method_name, .output = out};
  r.timing = {{"plan", job.plan_seconds}, {"open", open_seconds}, {"evaluate", clock.lap()}, {"waited for the writer", result.sink_wait_seconds}};
  r.planned = range.second - range.first;  // rows of this file
  r.failed = sink.failed();
  std::FILE* err = errors(o);
  // Aborted first: the failure that aborts may be in the last block.
  if (result.aborted) {
    writer.close();
    fmt::print(err, "contactuq run: aborted (failures = \"abort\"): {}\n", result.abort_message);
    fmt::print(err, "{} of {} samples are in {}; {} failed:\n{}", result.completed - range.first, r.planned,
               out.string(), sink.failed(), failures_text(sink));
    r.exit_code = 1;
  } else if (result.completed == range.second) {
    finish(job, o, out, writer, sink, clock, r);
  } else if (result.completed == range.first && !o.resume) {
    writer.close();  // removes the empty new file: whatever was at `out` stays as it was
    fmt::print(err, "\ncontactuq run: interrupted before its first sample was written; {} is as it was\n",
               out.string());
    r.exit_code = 130;
  } else {
    writer.close();
    fmt::print(err, "\ncontactuq run: interrupted; {} of {} samples are in {}. Continue with:\n  contactuq run {} -o {}{} --resume\n",
               result.completed - range.first, r.planned, out.string(), doc.file(), out.string(),
               o.shard.empty() ? "" : " --shard " + o.shard);
    r.exit_code = 130;
  }
  return r;
}

}  // namespace contactuq::engine::detail
