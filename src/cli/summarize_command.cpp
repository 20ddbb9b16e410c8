// `contactuq summarize FILE.h5 [--json]`: statistics of every scalar output of an ensemble with
// bootstrap confidence intervals (uq/statistics.hpp), and how many samples failed.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "commands.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/uq/statistics.hpp"
#include "json_writer.hpp"

namespace contactuq::cli {
namespace {

struct summarize_options {
  std::string file;
  bool json = false;
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::vector<double> probabilities = {0.05, 0.5, 0.95};
  std::uint64_t seed = 1;
};

struct status_counts {
  std::size_t ok = 0, failed = 0, not_run = 0;
  // Distinct failure messages with how often each occurred, most frequent first.
  std::vector<std::pair<std::string, std::size_t>> messages;
};

status_counts count_status(const io::ensemble& e) {
  status_counts c;
  std::map<std::string, std::size_t> by_message;
  for (std::size_t i = 0; i < e.rows; ++i) {
    switch (static_cast<io::sample_status>(e.status[i])) {
      case io::sample_status::ok: ++c.ok; break;
      case io::sample_status::failed:
        ++c.failed;
        ++by_message[e.messages[i]];
        break;
      default: ++c.not_run;
    }
  }
  c.messages.assign(by_message.begin(), by_message.end());
  std::stable_sort(c.messages.begin(), c.messages.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return c;
}

std::string percent_label(double p) { return fmt::format("{:g}%", 100.0 * p); }

std::string attribute(const io::ensemble_input& in, std::string_view key) {
  for (const auto& [k, v] : in.attributes)
    if (k == key) return v;
  return {};
}

void print_text(const io::ensemble& e, const std::vector<uq::summary>& summaries, const status_counts& c,
                const summarize_options& o) {
  const auto& m = e.schema.metadata;
  fmt::print("{}: {} of {} samples ({}, seed {}), {} thread{} on {}\n", o.file, e.rows, m.samples, m.design, m.seed,
             m.threads, m.threads == 1 ? "" : "s", m.host.empty() ? "?" : m.host);
  fmt::print("  study {}, contactuq {}{}, started {}, {}\n", m.study_path, m.contactuq_version,
             m.git_commit.empty() ? "" : fmt::format(" ({})", m.git_commit.substr(0, 12)), m.start_time,
             m.end_time.empty() ? "not finished" : fmt::format("finished {}", m.end_time));
  fmt::print("  status: {} ok, {} failed, {} not run\n", c.ok, c.failed, c.not_run);
  for (std::size_t k = 0; k < std::min<std::size_t>(c.messages.size(), 5); ++k)
    fmt::print("    {} x {}\n", c.messages[k].second, c.messages[k].first);
  if (c.messages.size() > 5) fmt::print("    ... {} other messages\n", c.messages.size() - 5);

  fmt::print("\nUncertain inputs:\n");
  for (const auto& in : e.schema.inputs)
    if (in.role != io::input_role::fixed)
      fmt::print("  {:<18} {:<10} {:<9} {}\n", in.name, in.unit.empty() ? "-" : in.unit, io::to_string(in.role),
                 attribute(in, "distribution"));

  const std::string ci = fmt::format("{:g}% CI", 100.0 * o.confidence);
  fmt::print("\nOutputs (SI units; {} from {} bootstrap resamples; failed samples left out):\n", ci, o.bootstrap);
  for (std::size_t j = 0; j < summaries.size(); ++j) {
    const auto& out = e.schema.outputs[j];
    const uq::summary& s = summaries[j];
    fmt::print("\n  {} [{}]: {} values", out.name, out.unit.empty() ? "-" : out.unit, s.used);
    if (s.skipped > 0) fmt::print(", {} left out (failed or not finite)", s.skipped);
    fmt::print("\n    {:<6} {:>13}   {:>13} {:>13}\n", "", "estimate", ci + " low", "high");
    const auto row = [](std::string_view label, double v, const uq::interval* i) {
      if (i)
        fmt::print("    {:<6} {:>13.6g}   {:>13.6g} {:>13.6g}\n", label, v, i->low, i->high);
      else
        fmt::print("    {:<6} {:>13.6g}\n", label, v);
    };
    row("mean", s.mean, &s.mean_ci);
    row("sd", s.stddev, &s.stddev_ci);
    row("min", s.min, nullptr);
    for (const auto& q : s.quantiles) row(percent_label(q.probability), q.value, &q.ci);
    row("max", s.max, nullptr);
  }
}

void print_json(const io::ensemble& e, const std::vector<uq::summary>& summaries, const status_counts& c,
                const summarize_options& o) {
  json_writer w;
  const auto& m = e.schema.metadata;
  w.begin_object();
  w.field("file", o.file);
  w.field("format", std::string_view("contactuq-ensemble"));
  w.key("metadata");
  w.begin_object();
  w.field("study_path", m.study_path);
  w.field("contactuq_version", m.contactuq_version);
  w.field("git_commit", m.git_commit);
  w.field("design", m.design);
  w.field("seed", static_cast<std::size_t>(m.seed));
  w.field("samples", m.samples);
  w.field("rows", e.rows);
  w.field("start_time", m.start_time);
  w.field("end_time", m.end_time);
  w.field("host", m.host);
  w.field("threads", m.threads);
  w.end_object();
  w.key("status");
  w.begin_object();
  w.field("ok", c.ok);
  w.field("failed", c.failed);
  w.field("not_run", c.not_run);
  w.key("failure_messages");
  w.begin_array();
  for (const auto& [text, count] : c.messages) {
    w.begin_object();
    w.field("message", text);
    w.field("count", count);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.key("bootstrap");
  w.begin_object();
  w.field("resamples", o.bootstrap);
  w.field("confidence", o.confidence);
  w.field("seed", static_cast<std::size_t>(o.seed));
  w.end_object();
  w.key("outputs");
  w.begin_array();
  for (std::size_t j = 0; j < summaries.size(); ++j) {
    const uq::summary& s = summaries[j];
    const auto interval = [&w](std::string_view key, const uq::interval& i) {
      w.key(key);
      w.begin_array();
      w.value(i.low);
      w.value(i.high);
      w.end_array();
    };
    w.begin_object();
    w.field("name", e.schema.outputs[j].name);
    w.field("unit", e.schema.outputs[j].unit);
    w.field("count", s.count);
    w.field("used", s.used);
    w.field("left_out", s.skipped);
    w.field("mean", s.mean);
    interval("mean_ci", s.mean_ci);
    w.field("sd", s.stddev);
    interval("sd_ci", s.stddev_ci);
    w.field("min", s.min);
    w.field("max", s.max);
    w.key("quantiles");
    w.begin_array();
    for (const auto& q : s.quantiles) {
      w.begin_object();
      w.field("p", q.probability);
      w.field("value", q.value);
      interval("ci", q.ci);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  fmt::print("{}\n", w.str());
}

void summarize_ensemble(const summarize_options& o) {
  const io::ensemble e = io::read_ensemble(o.file, {.curves = false});
  uq::summary_options so;
  so.bootstrap_resamples = o.bootstrap;
  so.confidence = o.confidence;
  so.probabilities = o.probabilities;
  so.seed = o.seed;
  so.validate();
  std::vector<uq::summary> summaries;
  for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
    const auto column = e.outputs.col(static_cast<Eigen::Index>(j));
    const std::vector<double> values(column.begin(), column.end());
    summaries.push_back(uq::summarize(values, so));
  }
  const status_counts c = count_status(e);
  if (o.json)
    print_json(e, summaries, c, o);
  else
    print_text(e, summaries, c, o);
}

}  // namespace

void add_summarize_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "summarize", "Statistics of every scalar output of an ensemble file, with bootstrap confidence intervals");
  auto o = std::make_shared<summarize_options>();
  sub->add_option("file", o->file, "HDF5 file written by `contactuq run`")->required()->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "Print JSON instead of tables");
  sub->add_option("--bootstrap", o->bootstrap, "Bootstrap resamples for the intervals (0: none)")
      ->capture_default_str();
  sub->add_option("--confidence", o->confidence, "Confidence level of the intervals")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.9999));
  sub->add_option("--quantiles", o->probabilities, "Probabilities of the quantiles, e.g. 0.05,0.5,0.95")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--seed", o->seed, "Seed of the bootstrap resampling")->capture_default_str();
  sub->callback([o, &exit_code] {
    const std::string format = io::file_format(o->file);
    if (format == "contactuq-ensemble")
      summarize_ensemble(*o);
    else
      throw std::runtime_error(fmt::format("{}: not a contactuq ensemble (format \"{}\"); summarize reads the files "
                                           "`contactuq run` writes",
                                           o->file, format));
    exit_code = 0;
  });
}

}  // namespace contactuq::cli
