// `contactuq summarize FILE.h5 [--json]`: statistics of every scalar output of an ensemble with
// bootstrap confidence intervals (uq/statistics.hpp), and how many samples failed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "commands.hpp"
#include "contactuq/io/display_units.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/nested_summary.hpp"
#include "contactuq/study/output_analysis.hpp"
#include "contactuq/uq/replicates.hpp"
#include "contactuq/uq/statistics.hpp"
#include "json_writer.hpp"

namespace contactuq::cli {
namespace {

struct summarize_options {
  std::string file;
  bool json = false;
  bool si = false;  ///< ignore the study's [output] units
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::vector<double> probabilities = {0.05, 0.5, 0.95};
  std::uint64_t seed = 1;
};

struct status_counts {
  std::size_t ok = 0, failed = 0, not_run = 0;
  // Distinct failure messages with how often each occurred, most frequent first.
  std::vector<std::pair<std::string, std::size_t>> messages;
  // Valid samples that carry a note from the model (e.g. an undecided outcome), and the first.
  std::size_t noted = 0;
  std::size_t first_noted = 0;
};

status_counts count_status(const io::ensemble& e) {
  status_counts c;
  std::map<std::string, std::size_t> by_message;
  for (std::size_t i = 0; i < e.rows; ++i) {
    switch (static_cast<io::sample_status>(e.status[i])) {
      case io::sample_status::ok:
        ++c.ok;
        if (!e.messages[i].empty() && c.noted++ == 0) c.first_noted = i;
        break;
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

// A finished plain QMC study with replicates, whose intervals come from them.
bool replicate_intervals(const io::ensemble& e) {
  const auto& m = e.schema.metadata;
  return m.replicates > 1 && m.cases() == 1 && m.pick_freeze_inputs == 0 && e.rows == m.samples;
}

void print_text(const io::ensemble& e, const std::vector<uq::summary>& summaries, const status_counts& c,
                const summarize_options& o, bool nested, std::string_view units) {
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
  if (c.noted > 0)
    fmt::print("  valid samples with a note: {} (in /messages; first, sample {}: {})\n", c.noted, c.first_noted,
               e.messages[c.first_noted]);

  fmt::print("\nUncertain inputs:\n");
  for (const auto& in : e.schema.inputs)
    if (in.role != io::input_role::fixed)
      fmt::print("  {:<18} {:<10} {:<9} {}\n", in.name, in.unit.empty() ? "-" : in.unit, io::to_string(in.role),
                 in.role == io::input_role::aleatoric   ? attribute(in, "distribution")
                 : in.role == io::input_role::epistemic ? fmt::format("choices {}", attribute(in, "choices"))
                                                        : fmt::format("{} in {}", attribute(in, "value"),
                                                                      attribute(in, "bounds")));

  if (nested) return;  // per case, below: pooling the cases would mix the model forms
  const std::string ci = fmt::format("{:g}% CI", 100.0 * o.confidence);
  if (replicate_intervals(e))
    fmt::print("\nOutputs ({}; {} from {} independent QMC replicates; failed samples left out):\n", units, ci,
               e.schema.metadata.replicates);
  else
    fmt::print("\nOutputs ({}; {} from {} bootstrap resamples; failed samples left out):\n", units, ci, o.bootstrap);
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

std::string ci_text(const uq::interval& i) { return fmt::format("[{:.4g}, {:.4g}]", i.low, i.high); }

void print_nested_text(const study::nested_summary& n, const summarize_options& o) {
  fmt::print("\n{} epistemic case{} x {} aleatoric samples (common random numbers){}\n", n.cases.size(),
             n.cases.size() == 1 ? "" : "s", n.samples_per_case,
             n.pick_freeze ? fmt::format("; Saltelli pick-freeze design, {} evaluations per case",
                                         n.samples_per_case * (n.aleatoric_inputs.size() + 2))
                           : "");
  const std::string ci = fmt::format("{:g}% CI", 100.0 * o.confidence);
  for (const auto& out : n.outputs) {
    fmt::print("\n  {} [{}]\n", out.name, out.unit.empty() ? "-" : out.unit);
    fmt::print("    {:<28} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12}{}\n", "case", "failed", "mean", "sd", "5%", "50%",
               "95%", out.flag ? fmt::format("   P(= 1) [{}]", ci) : "");
    for (const auto& c : out.cases) {
      const auto& u = c.summary;
      fmt::print("    {:<28} {:>6} {:>12.5g} {:>12.5g} {:>12.5g} {:>12.5g} {:>12.5g}", c.label, u.skipped, u.mean,
                 u.stddev, u.quantiles.size() > 0 ? u.quantiles[0].value : NAN,
                 u.quantiles.size() > 1 ? u.quantiles[1].value : NAN, u.quantiles.size() > 2 ? u.quantiles[2].value : NAN);
      if (c.one) fmt::print("   {:.4f} {}", c.one->value, ci_text(c.one->ci));
      fmt::print("\n");
    }
    const auto& d = out.decomposition;
    const double scale = d ? std::abs(d->mean) : 0.0;
    if (d && !(d->total_variance.value > 1e-24 * (1.0 + scale * scale))) {
      fmt::print("    the same value for every case and sample: no variance to decompose\n");
      continue;
    }
    if (d) {
      fmt::print("    variance: total {:.4g} = aleatoric E[Var] {:.4g} + epistemic Var[E] {:.4g}; epistemic share "
                 "{:.1f} % {}\n",
                 d->total_variance.value, d->aleatoric_variance.value, d->epistemic_variance.value,
                 d->epistemic_share_percent.value, ci_text(d->epistemic_share_percent.ci));
      fmt::print("    model form as a factor: first-order {:.3f} {}, total-order {:.3f} {} ({} of {} samples "
                 "used)\n",
                 d->model_first_order.value, ci_text(d->model_first_order.ci), d->model_total_order.value,
                 ci_text(d->model_total_order.ci), d->used, d->samples);
    }
    for (const auto& c : out.cases) {
      if (!c.sobol) continue;
      fmt::print("    Sobol indices, {} ({} of {} rows used):\n", c.label, c.sobol->used, c.sobol->rows);
      if (!(c.sobol->variance.value > 0.0)) {
        fmt::print("      no variance in this case\n");
        continue;
      }
      bool unresolved = false;
      const auto interval_text = [&](const uq::estimate& e) {
        if (!std::isnan(e.ci.low) && !std::isnan(e.ci.high)) return ci_text(e.ci);
        unresolved = unresolved || !std::isnan(e.value);
        return std::string("[unresolved]");
      };
      for (std::size_t i = 0; i < n.aleatoric_inputs.size(); ++i)
        fmt::print("      {:<22} first {:6.3f} {:<20} total {:6.3f} {}\n", n.aleatoric_inputs[i],
                   c.sobol->first_order[i].value, interval_text(c.sobol->first_order[i]),
                   c.sobol->total_order[i].value, interval_text(c.sobol->total_order[i]));
      if (unresolved)
        fmt::print("      (no interval: some bootstrap resamples hold no variance, as a 0/1 output with few\n"
                   "       failures does; the indices are not resolved, use more samples or a continuous output)\n");
    }
  }
}

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

void nested_json(json_writer& w, const study::nested_summary& n) {
  const auto interval = [&w](std::string_view key, const uq::interval& i) { write_interval(w, key, i); };
  const auto estimate = [&](std::string_view key, const uq::estimate& e) { write_estimate(w, key, e); };
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
    for (const auto& c : out.cases) {
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
      if (c.one) {
        w.key("probability_of_1");
        w.begin_object();
        w.field("value", c.one->value);
        interval("ci", c.one->ci);
        w.field("events", c.one->events);
        w.field("trials", c.one->trials);
        w.end_object();
      }
      if (c.sobol) {
        w.key("sobol");
        w.begin_object();
        w.field("used", c.sobol->used);
        for (const auto& [key, indices] : {std::pair{"first_order", &c.sobol->first_order},
                                           std::pair{"total_order", &c.sobol->total_order}}) {
          w.key(key);
          w.begin_array();
          for (const auto& e : *indices) write_estimate(w, "", e, false);
          w.end_array();
        }
        w.end_object();
      }
      w.end_object();
    }
    w.end_array();
    if (const auto& d = out.decomposition) {
      w.key("decomposition");
      w.begin_object();
      w.field("used", d->used);
      estimate("total_variance", d->total_variance);
      estimate("aleatoric_variance", d->aleatoric_variance);
      estimate("epistemic_variance", d->epistemic_variance);
      estimate("epistemic_share_percent", d->epistemic_share_percent);
      estimate("model_first_order", d->model_first_order);
      estimate("model_total_order", d->model_total_order);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// Rankings replicate the whole regression per resample: fewer resamples than the moments.
constexpr std::size_t ranking_resamples = 200;

std::string estimate_text(const uq::estimate& e) {
  if (std::isnan(e.value)) return "undefined";
  if (std::isnan(e.ci.low)) return fmt::format("{:7.3f}", e.value);
  return fmt::format("{:7.3f} [{:6.3f}, {:6.3f}]", e.value, e.ci.low, e.ci.high);
}

std::string limit_text(const io::output_limit& l, double factor, const std::string& unit) {
  const std::string u = unit.empty() ? "" : fmt::format(" {}", unit);
  if (std::isinf(l.low)) return fmt::format("> {:.6g}{}", l.high * factor, u);
  if (std::isinf(l.high)) return fmt::format("< {:.6g}{}", l.low * factor, u);
  return fmt::format("outside [{:.6g}, {:.6g}]{}", l.low * factor, l.high * factor, u);
}

void print_analysis_text(const io::ensemble& e, const study::ensemble_analysis& a, const summarize_options& o,
                         const std::vector<double>& factors) {
  const std::string ci = fmt::format("{:g}% CI", 100.0 * o.confidence);
  bool any_limit = false, any_flag = false;
  for (const auto& out : a.outputs) any_limit = any_limit || out.violation, any_flag = any_flag || out.one;
  if (any_limit) {
    fmt::print("\nSpecification limits ([output.limits]): P(violation) with its Wilson {}\n", ci);
    for (std::size_t j = 0; j < a.outputs.size(); ++j) {
      const auto& out = a.outputs[j];
      if (!out.violation) continue;
      const auto& v = *out.violation;
      fmt::print("  {:<22} {:<24} {:.4f} [{:.4f}, {:.4f}]  ({} of {} parts)\n", e.schema.outputs[j].name,
                 limit_text(*out.limit, factors[j], e.schema.outputs[j].unit), v.value, v.ci.low, v.ci.high, v.events,
                 v.trials);
    }
  }
  if (any_flag) {
    fmt::print("\n0/1 outputs: P(= 1) with its Wilson {}\n", ci);
    for (std::size_t j = 0; j < a.outputs.size(); ++j)
      if (const auto& one = a.outputs[j].one)
        fmt::print("  {:<22} {:.4f} [{:.4f}, {:.4f}]  ({} of {})\n", e.schema.outputs[j].name, one->value, one->ci.low,
                   one->ci.high, one->events, one->trials);
  }
  if (a.ranked_inputs.empty()) return;
  const std::size_t b = std::min<std::size_t>(o.bootstrap, ranking_resamples);
  fmt::print("\nWhich inputs drive each output: Spearman's rho, partial rank correlation (PRCC) and standardized "
             "regression coefficient (SRC){}:\n",
             b > 0 ? fmt::format(", {} from {} bootstrap resamples", ci, b) : "");
  for (std::size_t j = 0; j < a.outputs.size(); ++j) {
    const auto& r = a.outputs[j].ranking;
    if (!r || a.outputs[j].one) continue;  // a 0/1 output has its proportion above
    fmt::print("\n  {} ({} samples; R^2 of the linear regression {}: {})\n", e.schema.outputs[j].name, r->used,
               estimate_text(r->r2),
               r->r2.value > 0.7 ? "SRC apply" : "the output is far from linear in its inputs, read Spearman and PRCC");
    fmt::print("    {:<18} {:<26} {:<26} {:<26}\n", "input", "Spearman", "PRCC", "SRC");
    // Strongest first, by |PRCC| (NaN last).
    std::vector<std::size_t> order(a.ranked_inputs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto key = [&](std::size_t i) { return std::isnan(r->prcc[i].value) ? -1.0 : std::abs(r->prcc[i].value); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) > key(y); });
    for (const std::size_t i : order)
      fmt::print("    {:<18} {:<26} {:<26} {:<26}\n", a.ranked_inputs[i], estimate_text(r->spearman[i]),
                 estimate_text(r->prcc[i]), estimate_text(r->src[i]));
  }
}

// A nested study: P(violation) per model, and the inputs' PRCC per model side by side (strongest
// first by their largest |PRCC|); the JSON carries Spearman, SRC and every interval.
void print_cases_analysis_text(const io::ensemble& e, const std::vector<study::ensemble_analysis>& cases,
                               const summarize_options& o, const std::vector<double>& factors) {
  const std::string ci = fmt::format("{:g}% CI", 100.0 * o.confidence);
  const auto& first = cases.front();
  bool any_limit = false;
  for (const auto& out : first.outputs) any_limit = any_limit || out.violation;
  if (any_limit) {
    fmt::print("\nSpecification limits ([output.limits]) under each model: P(violation) with its Wilson {}\n", ci);
    for (std::size_t j = 0; j < first.outputs.size(); ++j) {
      if (!first.outputs[j].violation) continue;
      fmt::print("  {} {}\n", e.schema.outputs[j].name,
                 limit_text(*first.outputs[j].limit, factors[j], e.schema.outputs[j].unit));
      for (const auto& c : cases) {
        const auto& v = *c.outputs[j].violation;
        fmt::print("    {:<24} {:.4f} [{:.4f}, {:.4f}]  ({} of {} parts)\n", c.label, v.value, v.ci.low, v.ci.high,
                   v.events, v.trials);
      }
    }
  }
  if (first.ranked_inputs.empty()) return;
  std::size_t width = 8;
  for (const auto& c : cases) width = std::max(width, c.label.size());
  fmt::print("\nWhich inputs drive each output under each model: partial rank correlation (PRCC) over the {} "
             "independent samples of each model; Spearman, SRC and intervals in --json\n",
             first.rows);
  for (std::size_t j = 0; j < first.outputs.size(); ++j) {
    if (first.outputs[j].one) continue;  // a 0/1 output: its proportion per model is above
    const auto prcc = [&](const study::ensemble_analysis& c, std::size_t i) {
      return c.outputs[j].ranking ? c.outputs[j].ranking->prcc[i].value : std::nan("");
    };
    std::vector<double> strongest(first.ranked_inputs.size(), -1.0);
    for (std::size_t i = 0; i < strongest.size(); ++i)
      for (const auto& c : cases)
        if (!std::isnan(prcc(c, i))) strongest[i] = std::max(strongest[i], std::abs(prcc(c, i)));
    fmt::print("\n  {}\n", e.schema.outputs[j].name);
    if (std::all_of(strongest.begin(), strongest.end(), [](double v) { return v < 0; })) {
      fmt::print("    no variance under any model: nothing to rank\n");
      continue;
    }
    fmt::print("    {:<22}", "input");
    for (const auto& c : cases) fmt::print(" {:>{}}", c.label, width);
    fmt::print("\n");
    std::vector<std::size_t> order(strongest.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return strongest[x] > strongest[y]; });
    for (const std::size_t i : order) {
      fmt::print("    {:<22}", first.ranked_inputs[i]);
      for (const auto& c : cases) fmt::print(" {:>{}}", std::isnan(prcc(c, i)) ? std::string("-") : fmt::format("{:.3f}", prcc(c, i)), width);
      fmt::print("\n");
    }
  }
}

void analysis_json(json_writer& w, const study::ensemble_analysis& a, std::size_t j, double factor) {
  const auto& out = a.outputs[j];
  const auto proportion = [&w](std::string_view key, const uq::event_probability& p) {
    w.key(key);
    w.begin_object();
    w.field("value", p.value);
    write_interval(w, "ci", p.ci);
    w.field("events", p.events);
    w.field("trials", p.trials);
    w.end_object();
  };
  if (out.violation) {
    w.key("limit");
    w.begin_object();
    w.field("low", out.limit->low * factor);
    w.field("high", out.limit->high * factor);
    proportion("p_violation", *out.violation);
    w.end_object();
  }
  if (out.one) proportion("probability_of_1", *out.one);
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

void print_json(const io::ensemble& e, const std::vector<uq::summary>& summaries, const status_counts& c,
                const summarize_options& o, const std::optional<study::nested_summary>& nested,
                const std::vector<study::ensemble_analysis>& analyses, const std::vector<double>& factors) {
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
  w.field("resamples", o.bootstrap);
  w.field("confidence", o.confidence);
  w.field("seed", static_cast<std::size_t>(o.seed));
  w.end_object();
  w.key("outputs");
  w.begin_array();
  for (std::size_t j = 0; j < summaries.size(); ++j) {
    const uq::summary& s = summaries[j];
    const auto interval = [&w](std::string_view key, const uq::interval& i) { write_interval(w, key, i); };
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
    if (analyses.size() == 1) {
      analysis_json(w, analyses.front(), j, factors[j]);
    } else if (!analyses.empty()) {  // a nested study: per model, never pooled
      w.key("by_case");
      w.begin_array();
      for (const auto& a : analyses) {
        w.begin_object();
        w.field("case", a.label);
        w.field("samples", a.rows);
        analysis_json(w, a, j, factors[j]);
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  if (nested) nested_json(w, *nested);
  w.end_object();
  fmt::print("{}\n", w.str());
}

// Returns the number of samples that ran without failing.
std::size_t summarize_ensemble(const summarize_options& o) {
  io::ensemble e = io::read_ensemble(o.file, {.curves = false});
  // Rankings, limits and 0/1 proportions per epistemic case, from the SI values; pooling the
  // cases of a nested study would mix model forms.
  study::analysis_options ao;
  ao.ranking = {.bootstrap_resamples = std::min<std::size_t>(o.bootstrap, ranking_resamples),
                .confidence = o.confidence,
                .seed = o.seed};
  ao.confidence = o.confidence;
  const std::vector<study::ensemble_analysis> analyses = study::analyze_cases(e, o.file, ao);
  const std::vector<double> factors =
      o.si ? std::vector<double>(e.schema.outputs.size(), 1.0) : io::convert_for_display(e, o.file);
  const bool converted = std::any_of(factors.begin(), factors.end(), [](double f) { return f != 1.0; });
  uq::summary_options so;
  so.bootstrap_resamples = o.bootstrap;
  so.confidence = o.confidence;
  so.probabilities = o.probabilities;
  so.seed = o.seed;
  so.validate();
  const bool is_nested = e.schema.metadata.cases() > 1 || e.schema.metadata.pick_freeze_inputs > 0;
  // The pooled statistics of a nested study mix the model forms; only the JSON carries them.
  std::vector<uq::summary> summaries;
  if (!is_nested || o.json)
    for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
      const auto column = e.outputs.col(static_cast<Eigen::Index>(j));
      const std::vector<double> values(column.begin(), column.end());
      // RQMC points are dependent: the intervals come from the replicates, not the bootstrap.
      summaries.push_back(replicate_intervals(e) ? uq::summarize_replicates(values, e.schema.metadata.replicates, so)
                                                 : uq::summarize(values, so));
    }
  const status_counts c = count_status(e);
  std::optional<study::nested_summary> nested;
  if (is_nested) {
    study::nested_summary_options no;
    no.summary = so;
    no.summary.bootstrap_resamples = 0;  // per-case quantiles without intervals: the table is wide already
    no.sensitivity.bootstrap_resamples = o.bootstrap;
    no.sensitivity.confidence = o.confidence;
    no.sensitivity.seed = o.seed;
    nested = study::summarize_nested(e, no);
  }
  if (o.json) {
    print_json(e, summaries, c, o, nested, analyses, factors);
  } else {
    print_text(e, summaries, c, o, is_nested, converted ? "the study's [output] units" : "SI units");
    if (analyses.size() == 1) print_analysis_text(e, analyses.front(), o, factors);
    if (nested) print_nested_text(*nested, o);
    if (analyses.size() > 1) print_cases_analysis_text(e, analyses, o, factors);
  }
  return c.ok;
}

}  // namespace

void add_summarize_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "summarize", "Statistics of every scalar output of an ensemble file, with bootstrap confidence intervals; "
                   "the attributes and datasets of any other result file");
  auto o = std::make_shared<summarize_options>();
  sub->add_option("file", o->file, "HDF5 file written by `contactuq run` (any method)")->required()->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "Print JSON instead of tables");
  sub->add_flag("--si", o->si, "SI units, whatever the study's [output] units ask for");
  sub->add_option("--bootstrap", o->bootstrap, "Bootstrap resamples for the intervals (0: none, at most 100000)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  sub->add_option("--confidence", o->confidence, "Confidence level of the intervals")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.9999));
  sub->add_option("--quantiles", o->probabilities, "Probabilities of the quantiles, e.g. 0.05,0.5,0.95")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--seed", o->seed, "Seed of the bootstrap resampling")->capture_default_str();
  sub->callback([o, &exit_code] {
    const std::string format = io::file_format(o->file);
    exit_code = 0;
    if (format != "contactuq-ensemble") {
      if (!format.starts_with("contactuq-"))
        throw std::runtime_error(fmt::format("{}: not a file written by contactuq (format \"{}\")", o->file, format));
      print_result_description(o->file, o->json);
      return;
    }
    if (summarize_ensemble(*o) == 0) {
      // Exit code 1: nothing to summarize (README, "Exit codes").
      fmt::print(stderr, "contactuq summarize: {}: no sample succeeded; every statistic above is empty\n", o->file);
      exit_code = 1;
    }
  });
}

}  // namespace contactuq::cli
