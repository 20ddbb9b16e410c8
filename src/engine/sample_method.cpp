// Sampling studies (sample, nested): plan the inputs, evaluate them in parallel blocks, write
// them through the ensemble store, summarise the scalar outputs.
#include <fmt/format.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>

#include "contactuq/io/ensemble_merge.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/uq/statistics.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {
namespace {

// Writes every block to the file and keeps the scalar outputs and statuses for the summary.
class recording_sink : public study::sample_sink {
 public:
  recording_sink(io::ensemble_writer& writer, std::size_t outputs) : writer_(writer), outputs_(outputs) {}
  void prepare(io::ensemble_block& b) const override { writer_.precompress(b); }
  std::optional<io::chunk_compression> compression() const override { return writer_.compression(); }
  void append(const io::ensemble_block& b) override {
    writer_.append(b);
    keep(b.outputs, b.status, b.messages);
  }
  void keep(const io::sample_matrix& outputs, const std::vector<std::int32_t>& status,
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
  const std::vector<std::vector<double>>& outputs() const { return outputs_; }
  std::size_t failed() const { return failed_; }
  // Valid samples whose model left a note (e.g. an undecided outcome), and the first of them.
  std::size_t noted() const { return noted_; }
  const std::pair<std::size_t, std::string>& first_note() const { return first_note_; }
  // Distinct failure messages, most frequent first: (message, count, first sample).
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> failure_messages() const {
    std::vector<std::tuple<std::string, std::size_t, std::size_t>> v;
    for (const auto& [m, c] : failure_messages_) v.emplace_back(m, c.first, c.second);
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return std::get<1>(a) > std::get<1>(b); });
    return v;
  }

 private:
  io::ensemble_writer& writer_;
  std::vector<std::vector<double>> outputs_;
  std::vector<std::int32_t> status_;
  std::size_t failed_ = 0, noted_ = 0;
  std::pair<std::size_t, std::string> first_note_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> failure_messages_;  // count, first sample
};

// The distinct failure messages with their counts, the most frequent first.
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

void print_failures(const recording_sink& sink, std::FILE* to) { fmt::print(to, "{}", failures_text(sink)); }

// Bytes the run keeps in memory: for the summary every scalar output, status and message, and
// the input matrix unless the design's rows are made block by block (study::sample_plan).
double memory_estimate(const study::ensemble_study& s) {
  const auto n = static_cast<double>(s.rows());
  const double inputs = study::sample_plan::streams(s) ? 0.0 : static_cast<double>(s.model.inputs().size());
  return n * (8.0 * (inputs + static_cast<double>(s.model.outputs().size())) + 8.0 + 40.0);
}

double physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

void print_row(std::string& to, std::string_view label, std::size_t width, std::string_view unit,
               const uq::summary& u) {
  fmt::format_to(std::back_inserter(to), "  {:<{}} {:>8} {:>7} {:>11.4g} {:>11.4g} {:>11.4g} {:>11.4g} {:>11.4g} {:>11.4g} {:>11.4g}\n", label,
             width, unit, u.skipped, u.mean, u.stddev, u.min, u.quantiles[0].value, u.quantiles[1].value,
             u.quantiles[2].value, u.max);
}

// One line per output; in a nested study one line per output and epistemic case.
std::string summary_text(const study::ensemble_study& s, const recording_sink& sink) {
  std::string to;
  uq::summary_options opt;
  opt.bootstrap_resamples = 0;  // `contactuq summarize` gives the confidence intervals
  const bool nested = s.cases.size() > 1;
  std::size_t width = 18;
  for (const auto& v : s.model.outputs()) width = std::max(width, v.name.size());
  for (const auto& c : s.cases) width = std::max(width, c.label.size() + 2);
  fmt::format_to(std::back_inserter(to), "\n  {:<{}} {:>8} {:>7} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}\n",
             nested ? "output / case" : "output", width, "unit", "failed", "mean", "sd", "min", "5%", "50%", "95%", "max");
  // Every output (and case) summarised at once: sorting each is the bulk of the work.
  const std::size_t n = s.per_case(), cases = nested ? s.cases.size() : 1, outputs = s.model.outputs().size();
  std::vector<uq::summary> summaries(outputs * cases);
  tbb::parallel_for(std::size_t{0}, summaries.size(), [&](std::size_t k) {
    const auto& values = sink.outputs()[k / cases];
    summaries[k] = nested ? uq::summarize(std::span<const double>(values).subspan((k % cases) * n, n), opt)
                          : uq::summarize(values, opt);
  });
  for (std::size_t j = 0; j < outputs; ++j) {
    const auto& v = s.model.outputs()[j];
    if (!nested) {
      print_row(to, v.name, width, v.unit, summaries[j]);
      continue;
    }
    fmt::format_to(std::back_inserter(to), "  {}\n", v.name);
    for (std::size_t c = 0; c < cases; ++c)
      print_row(to, fmt::format("  {}", s.cases[c].label), width, v.unit, summaries[j * cases + c]);
  }
  fmt::format_to(std::back_inserter(to), "\n  failed samples: {} of {} (statistics leave them out; \"failed\" above also counts NaN "
                 "outputs of samples that ran)\n",
             sink.failed(), s.rows());
  if (sink.noted() > 0)
    fmt::format_to(std::back_inserter(to), "  valid samples with a note: {} (in /messages; first, sample {}: {})\n",
                   sink.noted(), sink.first_note().first, sink.first_note().second);
  return to + failures_text(sink);
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

}  // namespace

run_result run_sample(const io::study_document& doc, const run_options& o, const path& out) {
  model::register_builtin_models();
  const study::ensemble_study s = study::read_ensemble_study(doc);
  const std::size_t threads = o.threads > 0 ? o.threads : static_cast<std::size_t>(tbb::info::default_concurrency());
  const double bytes = memory_estimate(s), available = physical_memory();
  if (!o.yes && available > 0 && bytes > 0.5 * available)
    throw std::invalid_argument(fmt::format(
        "{}: {} samples need about {:.1f} GiB of memory, more than half of this machine's {:.1f} GiB; use fewer "
        "samples (or run with --yes to try anyway)",
        doc.file(), s.rows(), bytes / (1 << 30), available / (1 << 30)));
  if (!o.shard.empty()) io::shard_range(io::parse_shard(o.shard), s.rows());  // a bad --shard fails here
  if (o.check_only) return {.kind = s.cases.size() > 1 ? method::nested : method::sample, .output = out, .planned = s.rows()};
  // Before the output is touched: a run that cannot start leaves it as it was.
  lap_timer clock;
  const study::sample_plan inputs(s);
  const double plan_seconds = clock.lap();
  make_parent(out);

  io::ensemble_schema schema = study::ensemble_schema_for(s, doc);
  schema.metadata.start_time = io::iso8601_now();
  schema.metadata.host = io::host_name();
  schema.metadata.git_commit = o.build_commit;
  schema.metadata.threads = threads;
  if (o.executor) schema.metadata.mpi_ranks = o.executor->processes();
  // A shard: plan samples [first, end) only, numbered in the plan (io/ensemble_merge.hpp).
  std::pair<std::size_t, std::size_t> range{0, s.rows()};
  if (!o.shard.empty()) {
    const io::shard_spec spec = io::parse_shard(o.shard);
    range = io::shard_range(spec, s.rows());
    schema = io::shard_schema(schema, spec);
  }

  // What a resumed file already holds, for the summary.
  std::optional<io::ensemble> previous;
  const path part = io::unfinished_path(out);
  if (o.resume) io::recover_interrupted_finish(out);  // before reading what the file holds
  if (o.resume && (std::filesystem::exists(out) || std::filesystem::exists(part)))
    previous = io::read_ensemble(std::filesystem::exists(part) ? part : out);
  io::ensemble_writer writer = o.resume ? io::ensemble_writer::resume(out, schema)
                                        : io::ensemble_writer::create(out, schema, {.deflate_level = o.compression});
  recording_sink sink(writer, s.model.outputs().size());
  if (previous) {
    const auto rows = static_cast<Eigen::Index>(std::min(previous->rows, writer.completed()));
    sink.keep(previous->outputs.topRows(rows), {previous->status.begin(), previous->status.begin() + rows},
              {previous->messages.begin(), previous->messages.begin() + rows});
  }

  std::FILE* to = report(o);
  fmt::print(to, "model {}, {} samples ({}, seed {}), {} aleatoric inputs, {} thread{}{}\n", s.model.name(),
             s.cases.size() > 1 ? fmt::format("{} epistemic cases x {}", s.cases.size(), s.per_case())
                                : fmt::format("{}", s.per_case()),
             uq::to_string(s.sampling.design.kind), s.sampling.design.seed, s.aleatoric().size(), threads,
             threads == 1 ? "" : "s",
             o.executor ? fmt::format(" on each of {} MPI ranks", o.executor->processes()) : "");
  if (writer.completed() > 0) fmt::print(to, "resuming after sample {}\n", range.first + writer.completed());
  std::fflush(to);

  const double open_seconds = clock.lap();
  study::run_options ro;
  ro.threads = o.threads;
  ro.block_size = writer.chunk_rows();  // whole chunks: each is compressed once
  ro.first_block = writer.chunk_rows() - writer.completed() % writer.chunk_rows();  // after a cut-short block
  ro.first = range.first + writer.completed();
  ro.end = range.second;
  ro.stop = o.stop;
  ro.cancel = o.cancel;
  ro.progress = o.progress;
  const study::run_summary result =
      o.executor ? o.executor->run(doc, s, inputs, sink, ro) : study::run_ensemble(s, inputs, sink, ro);

  run_result r{.kind = s.cases.size() > 1 ? method::nested : method::sample, .output = out};
  r.timing = {{"plan", plan_seconds}, {"open", open_seconds}, {"evaluate", clock.lap()},
              {"waited for the writer", result.sink_wait_seconds}};
  r.planned = range.second - range.first;  // samples of this file
  r.failed = sink.failed();
  std::FILE* err = errors(o);
  // Aborted first: the failure that aborts may be in the last block.
  if (result.aborted) {
    writer.close();
    fmt::print(err, "contactuq run: aborted (failures = \"abort\"): {}\n", result.abort_message);
    fmt::print(err, "{} of {} samples are in {}; {} failed:\n", result.completed - range.first, r.planned, out.string(),
               sink.failed());
    print_failures(sink, err);
    r.exit_code = 1;
  } else if (result.completed == range.second) {
    // The file is finished on another thread while the summary is computed: both are serial
    // work at the end of every run.
    auto finished = std::async(std::launch::async, [&writer] { writer.finish(io::iso8601_now()); });
    const std::string summary = o.shard.empty() ? summary_text(s, sink) : std::string();
    r.timing.emplace_back("summary", clock.lap());
    finished.get();
    r.timing.emplace_back("finish", clock.lap());
    fmt::print(to, "{}", summary);
    fmt::print(to, "\nwrote {} ({} samples{})\n", out.string(), r.planned,
               o.shard.empty() ? "" : fmt::format(", shard {} of the plan", o.shard));
    if (sink.failed() == r.planned) {
      fmt::print(err, "contactuq run: every sample failed ({} of {}); the file holds no result:\n", sink.failed(),
                 r.planned);
      print_failures(sink, err);
      r.exit_code = 1;
    }
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
