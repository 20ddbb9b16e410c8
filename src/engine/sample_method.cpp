// Sampling studies (sample, nested): the study's design of inputs, evaluated and written by the
// ensemble run (ensemble_run.hpp), and the statistics of every scalar output.
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <iterator>

#include "contactuq/io/ensemble_merge.hpp"
#include "contactuq/uq/statistics.hpp"
#include "ensemble_run.hpp"

namespace contactuq::engine::detail {
namespace {

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

}  // namespace

run_result run_sample(const io::study_document& doc, const run_options& o, const path& out) {
  const study::ensemble_study s = study::read_ensemble_study(doc);
  const std::string name = s.cases.size() > 1 ? "nested" : "sample";
  refuse_oversized(doc, o, s, study::sample_plan::streams(s));
  if (!o.shard.empty()) io::shard_range(io::parse_shard(o.shard), s.rows());  // a bad --shard fails here
  if (o.check_only) return {.method_name = name, .output = out, .planned = s.rows()};
  // Before the output is touched: a run that cannot start leaves it as it was.
  const auto start = std::chrono::steady_clock::now();
  const study::sample_plan plan(s);
  const std::chrono::duration<double> plan_time = std::chrono::steady_clock::now() - start;
  return run_ensemble_job(
      doc, o, out,
      {.study = s,
       .plan = plan,
       .schema = study::ensemble_schema_for(s, doc),
       .method_name = name,
       .description = fmt::format(
           "model {}, {} samples ({}, seed {}), {} aleatoric inputs", s.model.name(),
           s.cases.size() > 1 ? fmt::format("{} epistemic cases x {}", s.cases.size(), s.per_case())
                              : fmt::format("{}", s.per_case()),
           uq::to_string(s.sampling.design.kind), s.sampling.design.seed, s.aleatoric().size()),
       .plan_seconds = plan_time.count(),
       .summary = [&s](const recording_sink& sink) { return summary_text(s, sink); }});
}

method sample_method() {
  return {.name = "sample",
          .summary = "Monte Carlo, LHS or QMC over the aleatoric inputs",
          .counts = "samples",
          .progress_unit = "samples",
          .resumable = true,
          .shards = true,
          .run = run_sample};
}

method nested_method() {
  return {.name = "nested",
          .summary = "epistemic cases x aleatoric samples with common random numbers",
          .counts = "samples",
          .progress_unit = "samples",
          .resumable = true,
          .shards = true,
          .run = run_sample};
}

}  // namespace contactuq::engine::detail
