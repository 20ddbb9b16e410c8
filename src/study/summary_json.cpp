// `contactuq summarize --json`, and the dict Python's contactuq.analyze() returns: one writer.
#include <string_view>

#include "contactuq/io/json_writer.hpp"
#include "contactuq/study/summary_report.hpp"

namespace contactuq::study {
namespace {

using io::json_writer;

// [low, high] under `key`.
void write_interval(json_writer& w, std::string_view key, const uq::interval& i) {
  w.key(key);
  w.begin_array();
  w.value(i.low);
  w.value(i.high);
  w.end_array();
}

// {"value": v, "ci": [low, high]}, under `key` inside an object or as an array element.
void write_estimate(json_writer& w, std::string_view key, const uq::estimate& e, bool keyed = true) {
  if (keyed) w.key(key);
  w.begin_object();
  w.field("value", e.value);
  write_interval(w, "ci", e.ci);
  w.end_object();
}

// {"value", "ci", "events", "trials"} under `key`.
void write_proportion(json_writer& w, std::string_view key, const uq::event_probability& p) {
  w.key(key);
  w.begin_object();
  w.field("value", p.value);
  write_interval(w, "ci", p.ci);
  w.field("events", p.events);
  w.field("trials", p.trials);
  w.end_object();
}

void write_case_statistics(json_writer& w, const case_statistics& c) {
  w.begin_object();
  w.field("label", c.label);
  w.field("used", c.summary.used);
  w.field("left_out", c.summary.skipped);
  w.field("mean", c.summary.mean);
  w.field("sd", c.summary.stddev);
  w.field("min", c.summary.min);
  w.field("max", c.summary.max);
  w.key("quantiles");
  w.begin_array();
  for (const auto& q : c.summary.quantiles) {
    w.begin_object();
    w.field("p", q.probability);
    w.field("value", q.value);
    w.end_object();
  }
  w.end_array();
  if (c.one) write_proportion(w, "probability_of_1", *c.one);
  if (c.sobol) {
    w.key("sobol");
    w.begin_object();
    w.field("used", c.sobol->used);
    for (const auto& [key, indices] :
         {std::pair{"first_order", &c.sobol->first_order}, std::pair{"total_order", &c.sobol->total_order}}) {
      w.key(key);
      w.begin_array();
      for (const auto& e : *indices) write_estimate(w, "", e, false);
      w.end_array();
    }
    w.end_object();
  }
  w.end_object();
}

void write_nested(json_writer& w, const nested_summary& n) {
  w.key("nested");
  w.begin_object();
  w.key("cases");
  w.begin_array();
  for (const auto& c : n.cases) w.value(c);
  w.end_array();
  w.key("aleatoric_inputs");
  w.begin_array();
  for (const auto& c : n.aleatoric_inputs) w.value(c);
  w.end_array();
  w.field("samples_per_case", n.samples_per_case);
  w.key("outputs");
  w.begin_array();
  for (const auto& out : n.outputs) {
    w.begin_object();
    w.field("name", out.name);
    w.field("unit", out.unit);
    w.key("cases");
    w.begin_array();
    for (const auto& c : out.cases) write_case_statistics(w, c);
    w.end_array();
    if (const auto& d = out.decomposition) {
      w.key("decomposition");
      w.begin_object();
      w.field("used", d->used);
      write_estimate(w, "total_variance", d->total_variance);
      write_estimate(w, "aleatoric_variance", d->aleatoric_variance);
      write_estimate(w, "epistemic_variance", d->epistemic_variance);
      write_estimate(w, "epistemic_share_percent", d->epistemic_share_percent);
      write_estimate(w, "model_first_order", d->model_first_order);
      write_estimate(w, "model_total_order", d->model_total_order);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// Output j's limit (in display units: `factor` per SI unit), proportion and ranking.
void write_analysis(json_writer& w, const ensemble_analysis& a, std::size_t j, double factor) {
  const auto& out = a.outputs[j];
  if (out.violation) {
    w.key("limit");
    w.begin_object();
    w.field("low", out.limit->low * factor);
    w.field("high", out.limit->high * factor);
    write_proportion(w, "p_violation", *out.violation);
    w.end_object();
  }
  if (out.one) write_proportion(w, "probability_of_1", *out.one);
  if (!out.ranking) return;
  w.key("ranking");
  w.begin_object();
  w.field("used", out.ranking->used);
  w.key("inputs");
  w.begin_array();
  for (const auto& name : a.ranked_inputs) w.value(name);
  w.end_array();
  for (const auto& [key, values] : {std::pair{"spearman", &out.ranking->spearman}, std::pair{"prcc", &out.ranking->prcc},
                                    std::pair{"src", &out.ranking->src}}) {
    w.key(key);
    w.begin_array();
    for (const auto& e : *values) write_estimate(w, "", e, false);
    w.end_array();
  }
  write_estimate(w, "r2", out.ranking->r2);
  w.end_object();
}

void write_output(json_writer& w, const summary_report& r, std::size_t j) {
  const uq::summary& s = r.outputs[j];
  w.begin_object();
  w.field("name", r.schema.outputs[j].name);
  w.field("unit", r.schema.outputs[j].unit);
  w.field("count", s.count);
  w.field("used", s.used);
  w.field("left_out", s.skipped);
  w.field("mean", s.mean);
  write_interval(w, "mean_ci", s.mean_ci);
  w.field("sd", s.stddev);
  write_interval(w, "sd_ci", s.stddev_ci);
  w.field("min", s.min);
  w.field("max", s.max);
  w.key("quantiles");
  w.begin_array();
  for (const auto& q : s.quantiles) {
    w.begin_object();
    w.field("p", q.probability);
    w.field("value", q.value);
    write_interval(w, "ci", q.ci);
    w.end_object();
  }
  w.end_array();
  if (r.analyses.size() == 1) {
    write_analysis(w, r.analyses.front(), j, r.factors[j]);
  } else if (!r.analyses.empty()) {  // a nested study: per model, never pooled
    w.key("by_case");
    w.begin_array();
    for (const auto& a : r.analyses) {
      w.begin_object();
      w.field("case", a.label);
      w.field("samples", a.rows);
      write_analysis(w, a, j, r.factors[j]);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

void write_header(json_writer& w, const summary_report& r) {
  const auto& m = r.schema.metadata;
  w.field("file", r.file);
  w.field("format", std::string_view("contactuq-ensemble"));
  w.key("metadata");
  w.begin_object();
  w.field("study_path", m.study_path);
  w.field("contactuq_version", m.contactuq_version);
  w.field("git_commit", m.git_commit);
  w.field("design", m.design);
  w.field("seed", static_cast<std::size_t>(m.seed));
  w.field("samples", m.samples);
  w.field("rows", r.rows);
  w.field("start_time", m.start_time);
  w.field("end_time", m.end_time);
  w.field("host", m.host);
  w.field("threads", m.threads);
  w.end_object();
  const status_counts& c = r.status;
  w.key("status");
  w.begin_object();
  w.field("ok", c.ok);
  w.field("failed", c.failed);
  w.field("not_run", c.not_run);
  w.field("noted", c.noted);
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
  w.field("resamples", r.options.bootstrap);
  w.field("confidence", r.options.confidence);
  w.field("seed", static_cast<std::size_t>(r.options.seed));
  w.end_object();
}

}  // namespace

std::string to_json(const summary_report& report) {
  json_writer w;
  w.begin_object();
  write_header(w, report);
  w.key("outputs");
  w.begin_array();
  for (std::size_t j = 0; j < report.outputs.size(); ++j) write_output(w, report, j);
  w.end_array();
  if (report.nested_statistics) write_nested(w, *report.nested_statistics);
  w.end_object();
  return w.str();
}

}  // namespace contactuq::study
