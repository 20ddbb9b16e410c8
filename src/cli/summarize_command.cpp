// `contactuq summarize FILE.h5 [--json]`: prints the library's report of an ensemble
// (study/summary_report.hpp: statistics with intervals, status, rankings, limits, proportions,
// nested per-case results) as tables or as JSON, and its summary of a reliability file
// (study/reliability_summary.hpp) and of a surrogate file (study/surrogate_summary.hpp); any other
// result file is described.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "commands.hpp"
#include "contactuq/calibrate/bayesian_output.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/reliability_summary.hpp"
#include "contactuq/study/summary_report.hpp"
#include "contactuq/study/surrogate_summary.hpp"

namespace contactuq::cli {

namespace {

struct summarize_options {
  std::string file;
  bool json = false;
  study::summary_options report;
};

std::string percent_label(double p) { return fmt::format("{:g}%", 100.0 * p); }

std::string attribute(const io::ensemble_input& in, std::string_view key) {
  for (const auto& [k, v] : in.attributes)
    if (k == key) return v;
  return {};
}

void print_text(const study::summary_report& r) {
  const auto& m = r.schema.metadata;
  const study::status_counts& c = r.status;
  fmt::print("{}: {} of {} samples ({}, seed {}), {} thread{} on {}\n", r.file, r.rows, m.samples, m.design, m.seed,
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
               c.first_note);

  fmt::print("\nUncertain inputs:\n");
  for (const auto& in : r.schema.inputs)
    if (in.role != io::input_role::fixed)
      fmt::print("  {:<18} {:<10} {:<9} {}\n", in.name, in.unit.empty() ? "-" : in.unit, io::to_string(in.role),
                 in.role == io::input_role::aleatoric   ? attribute(in, "distribution")
                 : in.role == io::input_role::epistemic ? fmt::format("choices {}", attribute(in, "choices"))
                                                        : fmt::format("{} in {}", attribute(in, "value"),
                                                                      attribute(in, "bounds")));

  if (r.nested) return;  // per case, below: pooling the cases would mix the model forms
  const std::string ci = fmt::format("{:g}% CI", 100.0 * r.options.confidence);
  const char* units = r.converted ? "the study's [output] units" : "SI units";
  if (r.replicate_intervals)
    fmt::print("\nOutputs ({}; {} from {} independent QMC replicates; failed samples left out):\n", units, ci,
               m.replicates);
  else
    fmt::print("\nOutputs ({}; {} from {} bootstrap resamples; failed samples left out):\n", units, ci, r.options.bootstrap);
  for (std::size_t j = 0; j < r.outputs.size(); ++j) {
    const auto& out = r.schema.outputs[j];
    const uq::summary& s = r.outputs[j];
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

void print_nested_text(const study::nested_summary& n, double confidence) {
  fmt::print("\n{} epistemic case{} x {} aleatoric samples (common random numbers){}\n", n.cases.size(),
             n.cases.size() == 1 ? "" : "s", n.samples_per_case,
             n.pick_freeze ? fmt::format("; Saltelli pick-freeze design, {} evaluations per case",
                                         n.samples_per_case * (n.aleatoric_inputs.size() + 2))
                           : "");
  const std::string ci = fmt::format("{:g}% CI", 100.0 * confidence);
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

void print_analysis_text(const study::summary_report& r, const study::ensemble_analysis& a) {
  const std::string ci = fmt::format("{:g}% CI", 100.0 * r.options.confidence);
  const auto& outputs = r.schema.outputs;
  bool any_limit = false, any_flag = false;
  for (const auto& out : a.outputs) any_limit = any_limit || out.violation, any_flag = any_flag || out.one;
  if (any_limit) {
    fmt::print("\nSpecification limits ([output.limits]): P(violation) with its Wilson {}\n", ci);
    for (std::size_t j = 0; j < a.outputs.size(); ++j) {
      const auto& out = a.outputs[j];
      if (!out.violation) continue;
      const auto& v = *out.violation;
      fmt::print("  {:<22} {:<24} {:.4f} [{:.4f}, {:.4f}]  ({} of {} parts)\n", outputs[j].name,
                 limit_text(*out.limit, r.factors[j], outputs[j].unit), v.value, v.ci.low, v.ci.high, v.events,
                 v.trials);
    }
  }
  if (any_flag) {
    fmt::print("\n0/1 outputs: P(= 1) with its Wilson {}\n", ci);
    for (std::size_t j = 0; j < a.outputs.size(); ++j)
      if (const auto& one = a.outputs[j].one)
        fmt::print("  {:<22} {:.4f} [{:.4f}, {:.4f}]  ({} of {})\n", outputs[j].name, one->value, one->ci.low,
                   one->ci.high, one->events, one->trials);
  }
  if (a.ranked_inputs.empty()) return;
  const std::size_t b = r.ranking_resamples;
  fmt::print("\nWhich inputs drive each output: Spearman's rho, partial rank correlation (PRCC) and standardized "
             "regression coefficient (SRC){}:\n",
             b > 0 ? fmt::format(", {} from {} bootstrap resamples", ci, b) : "");
  for (std::size_t j = 0; j < a.outputs.size(); ++j) {
    const auto& rk = a.outputs[j].ranking;
    if (!rk || a.outputs[j].one) continue;  // a 0/1 output has its proportion above
    fmt::print("\n  {} ({} samples; R^2 of the linear regression {}: {})\n", outputs[j].name, rk->used,
               estimate_text(rk->r2),
               rk->r2.value > 0.7 ? "SRC apply" : "the output is far from linear in its inputs, read Spearman and PRCC");
    fmt::print("    {:<18} {:<26} {:<26} {:<26}\n", "input", "Spearman", "PRCC", "SRC");
    // Strongest first, by |PRCC| (NaN last).
    std::vector<std::size_t> order(a.ranked_inputs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto key = [&](std::size_t i) { return std::isnan(rk->prcc[i].value) ? -1.0 : std::abs(rk->prcc[i].value); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) > key(y); });
    for (const std::size_t i : order)
      fmt::print("    {:<18} {:<26} {:<26} {:<26}\n", a.ranked_inputs[i], estimate_text(rk->spearman[i]),
                 estimate_text(rk->prcc[i]), estimate_text(rk->src[i]));
  }
}

// A nested study: P(violation) per model, and the inputs' PRCC per model side by side (strongest
// first by their largest |PRCC|); the JSON carries Spearman, SRC and every interval.
void print_cases_analysis_text(const study::summary_report& r) {
  const std::string ci = fmt::format("{:g}% CI", 100.0 * r.options.confidence);
  const auto& cases = r.analyses;
  const auto& outputs = r.schema.outputs;
  const auto& first = cases.front();
  bool any_limit = false;
  for (const auto& out : first.outputs) any_limit = any_limit || out.violation;
  if (any_limit) {
    fmt::print("\nSpecification limits ([output.limits]) under each model: P(violation) with its Wilson {}\n", ci);
    for (std::size_t j = 0; j < first.outputs.size(); ++j) {
      if (!first.outputs[j].violation) continue;
      fmt::print("  {} {}\n", outputs[j].name, limit_text(*first.outputs[j].limit, r.factors[j], outputs[j].unit));
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
    fmt::print("\n  {}\n", outputs[j].name);
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

}  // namespace

void add_summarize_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "summarize", "Statistics of every scalar output of an ensemble file, with bootstrap confidence intervals; "
                   "the attributes and datasets of any other result file");
  auto o = std::make_shared<summarize_options>();
  study::summary_options& r = o->report;
  sub->add_option("file", o->file, "HDF5 file written by `contactuq run` (any method)")->required()->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "Print JSON instead of tables");
  sub->add_flag("--si", r.si, "SI units, whatever the study's [output] units ask for");
  sub->add_option("--bootstrap", r.bootstrap, "Bootstrap resamples for the intervals (0: none, at most 100000)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  sub->add_option("--confidence", r.confidence, "Confidence level of the intervals")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.9999));
  sub->add_option("--quantiles", r.probabilities, "Probabilities of the quantiles, e.g. 0.05,0.5,0.95")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--seed", r.seed, "Seed of the bootstrap resampling")->capture_default_str();
  sub->callback([o, &exit_code] {
    const std::string format = io::file_format(o->file);
    exit_code = 0;
    if (format != "contactuq-ensemble") {
      if (!format.starts_with("contactuq-"))
        throw std::runtime_error(fmt::format("{}: not a file written by contactuq (format \"{}\")", o->file, format));
      if (format == "contactuq-reliability") {
        const study::reliability_summary summary = study::summarize_reliability(o->file, o->report.si);
        if (o->json)
          fmt::print("{}\n", study::to_json(summary));
        else
          fmt::print("{}", study::to_text(summary));
      } else if (format == "contactuq-posterior") {
        fmt::print("{}", o->json ? calibrate::posterior_file_json(o->file) + "\n" : calibrate::describe_posterior_file(o->file));
      } else if (format == "contactuq-surrogate") {
        const study::surrogate_summary summary = study::summarize_surrogate(o->file);
        if (o->json)
          fmt::print("{}\n", study::to_json(summary));
        else
          fmt::print("{}", study::to_text(summary));
      } else {
        print_result_description(o->file, o->json);
      }
      return;
    }
    study::summary_options options = o->report;
    options.pooled_nested = o->json;  // the tables never show a nested study's pooled statistics
    const study::summary_report report = study::summarize(o->file, options);
    if (o->json) {
      fmt::print("{}\n", study::to_json(report));
    } else {
      print_text(report);
      if (report.analyses.size() == 1) print_analysis_text(report, report.analyses.front());
      if (report.nested_statistics) print_nested_text(*report.nested_statistics, report.options.confidence);
      if (report.analyses.size() > 1) print_cases_analysis_text(report);
    }
    if (report.status.ok == 0) {
      // Exit code 1: nothing to summarize (README, "Exit codes").
      fmt::print(stderr, "contactuq summarize: {}: no sample succeeded; every statistic above is empty\n", o->file);
      exit_code = 1;
    }
  });
}

}  // namespace contactuq::cli
