// The summary of a reliability file (engine/reliability_output.cpp writes it; layout in
// docs/hdf5-schema.md), and its text and JSON.
#include "contactuq/study/reliability_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "contactuq/io/display_units.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/json_writer.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/units/quantity.hpp"
#include "contactuq/uq/reliability.hpp"

namespace contactuq::study {
namespace {

namespace h5 = io::hdf5;
using io::json_writer;

double number(const h5::node& n, std::string_view key) {
  return n.has_attribute(key) ? n.numeric_attribute<double>(key) : NAN;
}
std::size_t count(const h5::node& n, std::string_view key) {
  return n.has_attribute(key) ? static_cast<std::size_t>(n.numeric_attribute<std::int64_t>(key))
                              : 0;
}
std::string text(const h5::node& n, std::string_view key) {
  return n.has_attribute(key) ? n.string_attribute(key) : "";
}
std::vector<double> doubles(const h5::group& g, std::string_view name) {
  return g.contains(name) ? g.open_dataset(name).read_doubles() : std::vector<double>{};
}

// A variable as shown: SI value * factor, in `unit`.
struct shown {
  std::string unit;
  double factor = 1.0;
};

// Per name in `names`, the unit the study stored in `f` shows it in: its [output] units for the
// variables of its model (rebuilt from its [model] table), or SI with `si`. Unknown names, and
// every name of a file whose study no longer reads, are shown as stored.
std::vector<shown> shown_units_of(const h5::file& f, const std::string& file,
                                  const std::vector<std::string>& names, bool si) {
  std::vector<shown> out(names.size());
  std::vector<io::named_dimension> variables;
  io::display_units chosen;
  try {
    if (!f.contains("study")) return out;
    const std::string study_text = f.open_dataset("study").read_text();
    variables = model::make_model(io::study_document::parse(study_text, file).root().table("model"))
                    .named_dimensions();
    if (!si) chosen = io::display_units_of_study(study_text, file, variables);
  } catch (const std::exception&) {
    return out;  // another version's study, or no model to name
  }
  for (std::size_t k = 0; k < names.size(); ++k)
    for (const auto& v : variables)
      if (v.name == names[k]) {
        out[k] = si ? shown{units::si_unit(v.dim), 1.0}
                    : shown{chosen.unit_for(v.name, v.dim), chosen.factor(v.name, v.dim)};
        break;
      }
  return out;
}

double normal_tail(double beta) { return 0.5 * std::erfc(beta / std::sqrt(2.0)); }  // Phi(-beta)

form_summary read_form(const h5::group& fg, const std::vector<std::string>& inputs,
                       const std::vector<shown>& units) {
  form_summary p;
  p.converged = count(fg, "converged") != 0;
  p.message = text(fg, "message");
  p.search = text(fg, "search");
  p.beta = number(fg, "beta");
  p.probability = p.converged ? normal_tail(p.beta) : NAN;
  p.g_at_design = number(fg, "g_at_design");
  p.g_at_origin = number(fg, "g_at_origin");
  p.iterations = doubles(fg, "history_beta").size();
  p.other_design_points = count(fg, "other_design_points");
  const std::vector<double> u = doubles(fg, "u_star"), x = doubles(fg, "x_star"),
                            alpha = doubles(fg, "alpha");
  p.complete = alpha.size() == inputs.size() && u.size() == inputs.size();
  for (std::size_t i = 0; i < std::min(alpha.size(), inputs.size()); ++i)
    p.design_point.push_back({inputs[i], units[i].unit, i < u.size() ? u[i] : NAN,
                              i < x.size() ? x[i] * units[i].factor : NAN, alpha[i],
                              alpha[i] * alpha[i]});
  return p;
}

// The levels of one subset run with the running product P_i, its interval and the calls so far.
// The interval's CoV is the file's cumulative_cov (the run's estimator over levels 0..i);
// files without it (written before it was stored) fall back to sqrt(sum delta_i^2).
subset_run_summary read_run(const h5::group& lg, double threshold_factor) {
  subset_run_summary run;
  run.reached_failure = count(lg, "reached_failure") != 0;
  const std::vector<double> threshold = doubles(lg, "threshold"),
                            probability = doubles(lg, "probability"),
                            samples = doubles(lg, "samples"),
                            acceptance = doubles(lg, "acceptance"), gamma = doubles(lg, "gamma"),
                            cov = doubles(lg, "cov"), cumulative = doubles(lg, "cumulative_cov");
  double p = 1.0, variance = 0.0, calls = 0.0;
  for (std::size_t i = 0; i < threshold.size(); ++i) {
    subset_level l{threshold[i] * threshold_factor,
                   probability[i],
                   samples[i],
                   acceptance[i],
                   gamma[i],
                   cov[i]};
    p *= probability[i];
    variance = i < cumulative.size() ? cumulative[i] * cumulative[i] : variance + cov[i] * cov[i];
    calls += i == 0 ? samples[0] : samples[i] - std::round(probability[i - 1] * samples[i - 1]);
    const double s = std::sqrt(std::log1p(variance));
    l.running_probability = p;
    l.running_low = p * std::exp(-1.959963984540054 * s);
    l.running_high = p * std::exp(1.959963984540054 * s);
    l.model_calls = calls;
    run.levels.push_back(l);
  }
  return run;
}

std::string probability_text(double p) {
  return std::isnan(p) ? std::string("none") : fmt::format("{:.4g}", p);
}

using out_it = std::back_insert_iterator<std::string>;

void form_text(out_it to, const reliability_summary& r, const form_summary& f) {
  fmt::format_to(to,
                 "\nFORM ({}, {}, {} iterations): beta = {:.6g}, P = Phi(-beta) = {}; |g(u*)| = "
                 "{:.3g}, g(0) = "
                 "{:.4g}\n",
                 f.search.empty() ? "?" : f.search, f.converged ? "converged" : "not converged",
                 f.iterations, f.beta, f.converged ? probability_text(f.probability) : "none",
                 f.g_at_design, f.g_at_origin);
  if (!f.converged && !f.message.empty()) fmt::format_to(to, "  {}\n", f.message);
  if (f.other_design_points > 0)
    fmt::format_to(to, "  {} other design point(s) found by other starts\n", f.other_design_points);
  if (!f.complete) return;
  std::size_t width = 8;
  for (const auto& name : r.inputs) width = std::max(width, name.size());
  fmt::format_to(to,
                 "  design point and importance factors (alpha = -grad g / |grad g| in u-space; "
                 "alpha > 0: a larger "
                 "value fails sooner)\n");
  fmt::format_to(to, "  {:<{}} {:>10} {:>13} {:<8} {:>8} {:>8}\n", "input", width, "u*", "x*",
                 "unit", "alpha", "alpha^2");
  for (const std::size_t i : f.by_importance()) {
    const design_point_row& p = f.design_point[i];
    const std::string x = std::isnan(p.x) ? "-" : fmt::format("{:.6g}", p.x);
    fmt::format_to(to, "  {:<{}} {:>10.4g} {:>13} {:<8} {:>8.4f} {:>8.4f}\n", p.input, width, p.u,
                   x, p.unit.empty() ? "-" : p.unit, p.alpha, p.importance);
  }
}

void sorm_text(out_it to, const sorm_summary& s) {
  std::vector<std::string> k;
  for (const double c : s.curvatures) k.push_back(fmt::format("{:.4g}", c));
  fmt::format_to(to, "\nSORM (main curvatures at u*: {}): P(failure) by\n",
                 k.empty() ? "none" : fmt::format("{}", fmt::join(k, ", ")));
  const auto line = [&](std::string_view name, double p, std::string_view tag) {
    fmt::format_to(to, "  {:<13} {:>11}   beta {:>8}{}\n", name, probability_text(p),
                   p > 0 && p < 1 ? fmt::format("{:.5g}", uq::reliability_index(p)) : "-", tag);
  };
  line("Breitung", s.breitung, "");
  line("Hohenbichler", s.hohenbichler, "");
  line("Tvedt", s.tvedt, std::isnan(s.tvedt) ? "" : "  (reported)");
}

void subset_text(out_it to, const reliability_summary& r, const subset_summary& s) {
  fmt::format_to(to, "\nSubset simulation: {} samples per level, p0 = {:g}, {} replicate{}\n",
                 s.samples_per_level, s.p0, s.runs.size(), s.runs.size() == 1 ? "" : "s");
  if (s.runs.size() > 1) {
    std::size_t reached = 0;
    for (const auto& run : s.runs) reached += run.reached_failure ? 1 : 0;
    std::vector<double> finite;
    for (const double e : s.run_estimates)
      if (std::isfinite(e)) finite.push_back(e);
    fmt::format_to(to, "  {} of {} replicates reached the failure domain", reached, s.runs.size());
    if (!finite.empty())
      fmt::format_to(to, "; their estimates from {:.4g} to {:.4g}",
                     *std::min_element(finite.begin(), finite.end()),
                     *std::max_element(finite.begin(), finite.end()));
    fmt::format_to(to, "\n");
  }
  if (s.runs.empty()) return;
  const subset_run_summary& run = s.runs.front();
  const std::string unit = r.output_unit.empty() ? "" : " in " + r.output_unit;
  fmt::format_to(to,
                 "  levels{} (threshold b_i of the margin of {}{}; the last level's is 0 once it "
                 "reaches failure)\n",
                 s.runs.size() > 1 ? " of replicate 0" : "", r.output, unit);
  fmt::format_to(to, "  {:>5} {:>12} {:>9} {:>7} {:>8} {:>7} {:>7} {:>11} {:>23} {:>8}\n", "level",
                 "threshold", "p_i", "N_i", "accepted", "gamma", "delta_i", "P to here",
                 "95 % interval", "calls");
  for (std::size_t i = 0; i < run.levels.size(); ++i) {
    const subset_level& l = run.levels[i];
    fmt::format_to(
        to, "  {:>5} {:>12.5g} {:>9.4g} {:>7} {:>8.3f} {:>7.3f} {:>7.3f} {:>11.4g} {:>23} {:>8}\n",
        i, l.threshold, l.probability, l.samples, l.acceptance, l.gamma, l.cov,
        l.running_probability, fmt::format("[{:.3g}, {:.3g}]", l.running_low, l.running_high),
        l.model_calls);
  }
  if (!run.reached_failure)
    fmt::format_to(to,
                   "  this run stopped above the failure domain: its product is an upper bound\n");
}

void array(json_writer& w, std::string_view key, const std::vector<double>& values) {
  w.key(key);
  w.begin_array();
  for (const double v : values) w.value(v);
  w.end_array();
}

void pair(json_writer& w, std::string_view key, double low, double high) {
  w.key(key);
  w.begin_array();
  w.value(low);
  w.value(high);
  w.end_array();
}

std::size_t flag(bool b) { return b ? 1u : 0u; }  // 0/1 as in the file

void form_json(json_writer& w, const form_summary& f) {
  w.key("form");
  w.begin_object();
  w.field("converged", flag(f.converged));
  w.field("message", f.message);
  w.field("search", f.search);
  w.field("beta", f.beta);
  w.field("probability", f.probability);
  w.field("g_at_design", f.g_at_design);
  w.field("g_at_origin", f.g_at_origin);
  w.field("iterations", f.iterations);
  w.field("other_design_points", f.other_design_points);
  w.key("design_point");
  w.begin_array();
  for (const design_point_row& p : f.design_point) {
    w.begin_object();
    w.field("input", p.input);
    w.field("unit", p.unit);
    w.field("u", p.u);
    w.field("x", p.x);
    w.field("alpha", p.alpha);
    w.field("importance", p.importance);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void subset_json(json_writer& w, const reliability_summary& r, const subset_summary& s) {
  w.key("subset");
  w.begin_object();
  w.field("samples_per_level", s.samples_per_level);
  w.field("p0", s.p0);
  w.field("replicates", s.runs.size());
  array(w, "run_estimates", s.run_estimates);
  array(w, "run_cov", s.run_cov);
  w.field("threshold_unit", r.output_unit);
  w.key("runs");
  w.begin_array();
  for (const auto& run : s.runs) {
    w.begin_object();
    w.field("reached_failure", flag(run.reached_failure));
    w.key("levels");
    w.begin_array();
    for (const subset_level& l : run.levels) {
      w.begin_object();
      w.field("threshold", l.threshold);
      w.field("probability", l.probability);
      w.field("samples", l.samples);
      w.field("acceptance", l.acceptance);
      w.field("gamma", l.gamma);
      w.field("cov", l.cov);
      w.field("running_probability", l.running_probability);
      pair(w, "running_ci95", l.running_low, l.running_high);
      w.field("model_calls", l.model_calls);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::vector<std::size_t> form_summary::by_importance() const {
  std::vector<std::size_t> order(design_point.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(design_point[a].alpha) > std::abs(design_point[b].alpha);
  });
  return order;
}

reliability_summary summarize_reliability(const std::filesystem::path& file, bool si) {
  reliability_summary r;
  r.file = file.string();
  const h5::file f(file, h5::file_mode::read_only, {.latest_format = false});
  r.model = text(f, "model");
  r.title = text(f, "title");
  if (!f.contains("reliability"))
    throw std::runtime_error(
        fmt::format("{}: a reliability file without its /reliability group", r.file));
  const h5::group g = f.open_group("reliability");
  r.algorithm = text(g, "algorithm");
  r.output = text(g, "output");
  r.event = text(g, "event");
  r.interval = text(g, "interval");
  r.note = text(g, "note");
  r.probability = number(g, "probability");
  r.ci_low = number(g, "ci95_low");
  r.ci_high = number(g, "ci95_high");
  r.cov = number(g, "cov");
  r.beta = number(g, "beta");
  r.model_calls = count(g, "model_calls");
  r.failed_calls = count(g, "failed_calls");
  r.resolved = !g.has_attribute("resolved") || g.numeric_attribute<std::int64_t>("resolved") != 0;
  r.seed = count(g, "seed");
  if (g.has_attribute("inputs")) r.inputs = g.strings_attribute("inputs");
  if (g.has_attribute("effective_sample_size"))
    r.effective_sample_size = number(g, "effective_sample_size");

  std::vector<std::string> names = r.inputs;
  names.push_back(r.output);
  const std::vector<shown> units = shown_units_of(f, r.file, names, si);
  for (std::size_t i = 0; i < r.inputs.size(); ++i) r.input_units.push_back(units[i].unit);
  r.output_unit = units.back().unit;

  if (g.contains("form")) r.form = read_form(g.open_group("form"), r.inputs, units);
  if (g.contains("sorm")) {
    const h5::group sg = g.open_group("sorm");
    r.sorm = sorm_summary{doubles(sg, "curvatures"), number(sg, "breitung"),
                          number(sg, "hohenbichler"), number(sg, "tvedt")};
  }
  if (g.contains("subset")) {
    const h5::group sg = g.open_group("subset");
    subset_summary p;
    p.samples_per_level = count(sg, "samples_per_level");
    p.p0 = number(sg, "p0");
    p.run_estimates = doubles(sg, "run_estimates");
    p.run_cov = doubles(sg, "run_cov");
    for (std::size_t k = 0; sg.contains(fmt::format("run_{}", k)); ++k)
      p.runs.push_back(read_run(sg.open_group(fmt::format("run_{}", k)), units.back().factor));
    r.subset = std::move(p);
  }
  return r;
}

std::string to_text(const reliability_summary& r) {
  std::string out;
  const out_it to(out);
  fmt::format_to(to, "{}: reliability{}, model {}\n", r.file,
                 r.title.empty() ? "" : fmt::format(" \"{}\"", r.title), r.model);
  fmt::format_to(to, "  event {} (output {}) over {} aleatoric input{}: {}\n", r.event, r.output,
                 r.inputs.size(), r.inputs.size() == 1 ? "" : "s", fmt::join(r.inputs, ", "));
  fmt::format_to(to, "  algorithm {}, seed {}\n", r.algorithm, r.seed);
  fmt::format_to(to, "\n  P(failure) = ");
  if (std::isnan(r.probability) && std::isfinite(r.ci_high) &&
      r.interval.starts_with("upper bound"))
    fmt::format_to(to, "none; at most {:.4g} ({})\n", r.ci_high, r.interval);
  else if (std::isnan(r.probability))
    fmt::format_to(to, "none\n");
  else {
    fmt::format_to(to, "{:.4g}", r.probability);
    if (r.ci_low != r.ci_high)
      fmt::format_to(to, "  95 % interval [{:.4g}, {:.4g}]{}", r.ci_low, r.ci_high,
                     r.interval.empty() ? "" : fmt::format(" ({})", r.interval));
    if (std::isfinite(r.cov)) fmt::format_to(to, "  CoV {:.3g}", r.cov);
    fmt::format_to(to, "\n");
  }
  if (std::isfinite(r.beta)) fmt::format_to(to, "  beta = -Phi^-1(P) = {:.5g}\n", r.beta);
  fmt::format_to(to, "  model calls: {} ({} failed)\n", r.model_calls, r.failed_calls);
  if (!r.note.empty())
    fmt::format_to(to, "  {}: {}\n", r.resolved ? "note" : "NOT RESOLVED", r.note);
  else if (!r.resolved)
    fmt::format_to(to, "  NOT RESOLVED: the estimate is not a probability to report\n");
  // Plain Monte Carlo's weights are 1: its "effective sample size" counts the failed samples.
  if (r.effective_sample_size && r.algorithm == "monte_carlo")
    fmt::format_to(to, "  samples in the failure domain: {:.0f}\n", *r.effective_sample_size);
  else if (r.effective_sample_size)
    fmt::format_to(to, "  importance sampling: effective sample size {:.4g}\n",
                   *r.effective_sample_size);
  if (r.form) form_text(to, r, *r.form);
  if (r.sorm) sorm_text(to, *r.sorm);
  if (r.subset) subset_text(to, r, *r.subset);
  return out;
}

std::string to_json(const reliability_summary& r) {
  json_writer w;
  w.begin_object();
  w.field("file", r.file);
  w.field("format", std::string_view("contactuq-reliability"));
  w.field("method", std::string_view("reliability"));
  w.field("model", r.model);
  w.field("title", r.title);
  w.key("reliability");
  w.begin_object();
  w.field("algorithm", r.algorithm);
  w.field("output", r.output);
  w.field("output_unit", r.output_unit);
  w.field("event", r.event);
  w.key("inputs");
  w.begin_array();
  for (const auto& name : r.inputs) w.value(name);
  w.end_array();
  w.key("probability");
  w.begin_object();
  w.field("estimate", r.probability);
  pair(w, "ci95", r.ci_low, r.ci_high);
  w.field("cov", r.cov);
  w.field("interval", r.interval);
  w.end_object();
  w.field("beta", r.beta);
  w.field("model_calls", r.model_calls);
  w.field("failed_calls", r.failed_calls);
  w.field("resolved", flag(r.resolved));
  w.field("note", r.note);
  w.field("seed", r.seed);
  if (r.effective_sample_size) w.field("effective_sample_size", *r.effective_sample_size);
  if (r.form) form_json(w, *r.form);
  if (r.sorm) {
    w.key("sorm");
    w.begin_object();
    array(w, "curvatures", r.sorm->curvatures);
    w.field("breitung", r.sorm->breitung);
    w.field("hohenbichler", r.sorm->hohenbichler);
    w.field("tvedt", r.sorm->tvedt);
    w.end_object();
  }
  if (r.subset) subset_json(w, r, *r.subset);
  w.end_object();
  w.end_object();
  return w.str();
}

}  // namespace contactuq::study
