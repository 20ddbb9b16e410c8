// `contactuq summarize` of a reliability file (format "contactuq-reliability", written by
// engine/reliability_output.cpp, docs/hdf5-schema.md): P(failure) with its interval first, then
// what each algorithm found (FORM's design point and importance factors, SORM's three
// formulas, subset simulation's levels), as text or as JSON.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/units/quantity.hpp"
#include "contactuq/uq/reliability.hpp"
#include "json_writer.hpp"

namespace contactuq::cli {
namespace {

namespace h5 = io::hdf5;

struct form_part {
  bool converged = false;
  std::string message, search;
  double beta = NAN, g_at_design = NAN, g_at_origin = NAN;
  std::vector<double> u_star, x_star, alpha;
  std::size_t iterations = 0;
  std::size_t other_design_points = 0;
};

struct sorm_part {
  std::vector<double> curvatures;
  double breitung = NAN, hohenbichler = NAN, tvedt = NAN;
};

struct subset_run {
  bool reached_failure = true;
  std::vector<double> threshold, probability, samples, acceptance, gamma, cov;
};

struct subset_part {
  std::size_t samples_per_level = 0;
  double p0 = NAN;
  std::vector<double> run_estimates, run_cov;
  std::vector<subset_run> runs;
};

// A variable's values as shown: SI value * factor, in `unit`.
struct shown {
  std::string unit;
  double factor = 1.0;
};

struct reliability_file {
  std::string file, model, title, algorithm, output, event, interval, note;
  double probability = NAN, ci_low = NAN, ci_high = NAN, cov = NAN, beta = NAN;
  std::size_t model_calls = 0, failed_calls = 0;
  bool resolved = true;
  std::size_t seed = 0;
  std::vector<std::string> inputs;
  std::vector<shown> input_units;  // per input
  shown output_unit;
  std::optional<double> effective_sample_size;
  std::optional<form_part> form;
  std::optional<sorm_part> sorm;
  std::optional<subset_part> subset;
};

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

// Units of the inputs and the limited output: the study's [output] units unless `si`.
void read_units(reliability_file& r, bool si) {
  const engine::shown_units units = engine::display_units_of_result(r.file);
  const auto find = [&](const std::string& name) -> shown {
    for (const auto& v : units.variables)
      if (v.name == name)
        return si ? shown{units::si_unit(v.dim), 1.0}
                  : shown{units.units.unit_for(v.name, v.dim), units.units.factor(v.name, v.dim)};
    return {};
  };
  for (const auto& name : r.inputs) r.input_units.push_back(find(name));
  r.output_unit = find(r.output);
}

reliability_file read_reliability(const std::string& file, bool si) {
  reliability_file r;
  r.file = file;
  const h5::file f(file, h5::file_mode::read_only, {.latest_format = false});
  r.model = text(f, "model");
  r.title = text(f, "title");
  if (!f.contains("reliability"))
    throw std::runtime_error(
        fmt::format("{}: a reliability file without its /reliability group", file));
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
  if (g.contains("form")) {
    const h5::group fg = g.open_group("form");
    form_part p;
    p.converged = count(fg, "converged") != 0;
    p.message = text(fg, "message");
    p.search = text(fg, "search");
    p.beta = number(fg, "beta");
    p.g_at_design = number(fg, "g_at_design");
    p.g_at_origin = number(fg, "g_at_origin");
    p.u_star = doubles(fg, "u_star");
    p.x_star = doubles(fg, "x_star");
    p.alpha = doubles(fg, "alpha");
    p.iterations = doubles(fg, "history_beta").size();
    p.other_design_points = count(fg, "other_design_points");
    r.form = std::move(p);
  }
  if (g.contains("sorm")) {
    const h5::group sg = g.open_group("sorm");
    r.sorm = sorm_part{doubles(sg, "curvatures"), number(sg, "breitung"),
                       number(sg, "hohenbichler"), number(sg, "tvedt")};
  }
  if (g.contains("subset")) {
    const h5::group sg = g.open_group("subset");
    subset_part p;
    p.samples_per_level = count(sg, "samples_per_level");
    p.p0 = number(sg, "p0");
    p.run_estimates = doubles(sg, "run_estimates");
    p.run_cov = doubles(sg, "run_cov");
    for (std::size_t k = 0; sg.contains(fmt::format("run_{}", k)); ++k) {
      const h5::group lg = sg.open_group(fmt::format("run_{}", k));
      p.runs.push_back({count(lg, "reached_failure") != 0, doubles(lg, "threshold"),
                        doubles(lg, "probability"), doubles(lg, "samples"),
                        doubles(lg, "acceptance"), doubles(lg, "gamma"), doubles(lg, "cov")});
    }
    r.subset = std::move(p);
  }
  read_units(r, si);
  return r;
}

double normal_tail(double beta) { return 0.5 * std::erfc(beta / std::sqrt(2.0)); }  // Phi(-beta)

// Per level of a subset run: P up to it (the running product), its lognormal 95 % interval
// from sqrt(sum delta_i^2), and the model calls up to it: N_0 at level 0, then N_i less the
// p_{i-1} N_{i-1} seeds, which were evaluated on the level before.
struct running_product {
  std::vector<double> probability, low, high, calls;
};
running_product running(const subset_run& run) {
  running_product out;
  double p = 1.0, variance = 0.0, calls = 0.0;
  for (std::size_t i = 0; i < run.probability.size(); ++i) {
    p *= run.probability[i];
    variance += run.cov[i] * run.cov[i];
    calls += i == 0 ? run.samples[0]
                    : run.samples[i] - std::round(run.probability[i - 1] * run.samples[i - 1]);
    const double s = std::sqrt(std::log1p(variance));
    out.probability.push_back(p);
    out.low.push_back(p * std::exp(-1.959963984540054 * s));
    out.high.push_back(p * std::exp(1.959963984540054 * s));
    out.calls.push_back(calls);
  }
  return out;
}

// Input order by importance factor alpha_i^2, largest first.
std::vector<std::size_t> by_importance(const form_part& f) {
  std::vector<std::size_t> order(f.alpha.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(f.alpha[a]) > std::abs(f.alpha[b]);
  });
  return order;
}

std::string probability_text(double p) {
  return std::isnan(p) ? std::string("none") : fmt::format("{:.4g}", p);
}

void print_form(const reliability_file& r, const form_part& f) {
  fmt::print(
      "\nFORM ({}, {}, {} iterations): beta = {:.6g}, P = Phi(-beta) = {}; |g(u*)| = {:.3g}, g(0) "
      "= {:.4g}\n",
      f.search.empty() ? "?" : f.search, f.converged ? "converged" : "not converged", f.iterations,
      f.beta, f.converged ? probability_text(normal_tail(f.beta)) : "none", f.g_at_design,
      f.g_at_origin);
  if (!f.converged && !f.message.empty()) fmt::print("  {}\n", f.message);
  if (f.other_design_points > 0)
    fmt::print("  {} other design point(s) found by other starts\n", f.other_design_points);
  if (f.alpha.size() != r.inputs.size() || f.u_star.size() != r.inputs.size()) return;
  std::size_t width = 8;
  for (const auto& name : r.inputs) width = std::max(width, name.size());
  fmt::print(
      "  design point and importance factors (alpha = -grad g / |grad g| in u-space; alpha > 0: a "
      "larger "
      "value fails sooner)\n");
  fmt::print("  {:<{}} {:>10} {:>13} {:<8} {:>8} {:>8}\n", "input", width, "u*", "x*", "unit",
             "alpha", "alpha^2");
  for (const std::size_t i : by_importance(f)) {
    const shown& u = r.input_units[i];
    const std::string x = i < f.x_star.size() ? fmt::format("{:.6g}", f.x_star[i] * u.factor) : "-";
    fmt::print("  {:<{}} {:>10.4g} {:>13} {:<8} {:>8.4f} {:>8.4f}\n", r.inputs[i], width,
               f.u_star[i], x, u.unit.empty() ? "-" : u.unit, f.alpha[i], f.alpha[i] * f.alpha[i]);
  }
}

void print_sorm(const sorm_part& s) {
  std::vector<std::string> k;
  for (const double c : s.curvatures) k.push_back(fmt::format("{:.4g}", c));
  fmt::print("\nSORM (main curvatures at u*: {}): P(failure) by\n",
             k.empty() ? "none" : fmt::format("{}", fmt::join(k, ", ")));
  const auto line = [](std::string_view name, double p, std::string_view tag) {
    fmt::print("  {:<13} {:>11}   beta {:>8}{}\n", name, probability_text(p),
               p > 0 && p < 1 ? fmt::format("{:.5g}", uq::reliability_index(p)) : "-", tag);
  };
  line("Breitung", s.breitung, "");
  line("Hohenbichler", s.hohenbichler, "");
  line("Tvedt", s.tvedt, std::isnan(s.tvedt) ? "" : "  (reported)");
}

void print_subset(const reliability_file& r, const subset_part& s) {
  fmt::print("\nSubset simulation: {} samples per level, p0 = {:g}, {} replicate{}\n",
             s.samples_per_level, s.p0, s.runs.size(), s.runs.size() == 1 ? "" : "s");
  if (s.runs.size() > 1) {
    std::size_t reached = 0;
    for (const auto& run : s.runs) reached += run.reached_failure ? 1 : 0;
    std::vector<double> finite;
    for (const double e : s.run_estimates)
      if (std::isfinite(e)) finite.push_back(e);
    fmt::print("  {} of {} replicates reached the failure domain", reached, s.runs.size());
    if (!finite.empty())
      fmt::print("; their estimates from {:.4g} to {:.4g}",
                 *std::min_element(finite.begin(), finite.end()),
                 *std::max_element(finite.begin(), finite.end()));
    fmt::print("\n");
  }
  if (s.runs.empty()) return;
  const subset_run& run = s.runs.front();
  const running_product p = running(run);
  const std::string unit = r.output_unit.unit.empty() ? "" : " in " + r.output_unit.unit;
  fmt::print(
      "  levels{} (threshold b_i of the margin of {}{}; the last level's is 0 once it reaches "
      "failure)\n",
      s.runs.size() > 1 ? " of replicate 0" : "", r.output, unit);
  fmt::print("  {:>5} {:>12} {:>9} {:>7} {:>8} {:>7} {:>7} {:>11} {:>23} {:>8}\n", "level",
             "threshold", "p_i", "N_i", "accepted", "gamma", "delta_i", "P to here",
             "95 % interval", "calls");
  for (std::size_t i = 0; i < run.threshold.size(); ++i)
    fmt::print(
        "  {:>5} {:>12.5g} {:>9.4g} {:>7} {:>8.3f} {:>7.3f} {:>7.3f} {:>11.4g} {:>23} {:>8}\n", i,
        run.threshold[i] * r.output_unit.factor, run.probability[i], run.samples[i],
        run.acceptance[i], run.gamma[i], run.cov[i], p.probability[i],
        fmt::format("[{:.3g}, {:.3g}]", p.low[i], p.high[i]), p.calls[i]);
  if (!run.reached_failure)
    fmt::print("  this run stopped above the failure domain: its product is an upper bound\n");
}

void print_text(const reliability_file& r) {
  fmt::print("{}: reliability{}, model {}\n", r.file,
             r.title.empty() ? "" : fmt::format(" \"{}\"", r.title), r.model);
  fmt::print("  event {} (output {}) over {} aleatoric input{}: {}\n", r.event, r.output,
             r.inputs.size(), r.inputs.size() == 1 ? "" : "s", fmt::join(r.inputs, ", "));
  fmt::print("  algorithm {}, seed {}\n", r.algorithm, r.seed);
  fmt::print("\n  P(failure) = ");
  if (std::isnan(r.probability) && std::isfinite(r.ci_high) &&
      r.interval.starts_with("upper bound"))
    fmt::print("none; at most {:.4g} ({})\n", r.ci_high, r.interval);
  else if (std::isnan(r.probability))
    fmt::print("none\n");
  else {
    fmt::print("{:.4g}", r.probability);
    if (r.ci_low != r.ci_high)
      fmt::print("  95 % interval [{:.4g}, {:.4g}]{}", r.ci_low, r.ci_high,
                 r.interval.empty() ? "" : fmt::format(" ({})", r.interval));
    if (std::isfinite(r.cov)) fmt::print("  CoV {:.3g}", r.cov);
    fmt::print("\n");
  }
  if (std::isfinite(r.beta)) fmt::print("  beta = -Phi^-1(P) = {:.5g}\n", r.beta);
  fmt::print("  model calls: {} ({} failed)\n", r.model_calls, r.failed_calls);
  if (!r.note.empty())
    fmt::print("  {}: {}\n", r.resolved ? "note" : "NOT RESOLVED", r.note);
  else if (!r.resolved)
    fmt::print("  NOT RESOLVED: the estimate is not a probability to report\n");
  // Plain Monte Carlo's weights are 1: its "effective sample size" counts the failed samples.
  if (r.effective_sample_size && r.algorithm == "monte_carlo")
    fmt::print("  samples in the failure domain: {:.0f}\n", *r.effective_sample_size);
  else if (r.effective_sample_size)
    fmt::print("  importance sampling: effective sample size {:.4g}\n", *r.effective_sample_size);
  if (r.form) print_form(r, *r.form);
  if (r.sorm) print_sorm(*r.sorm);
  if (r.subset) print_subset(r, *r.subset);
}

void array(json_writer& w, std::string_view key, const std::vector<double>& values) {
  w.key(key);
  w.begin_array();
  for (const double v : values) w.value(v);
  w.end_array();
}

void print_json(const reliability_file& r) {
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
  w.field("output_unit", r.output_unit.unit);
  w.field("event", r.event);
  w.key("inputs");
  w.begin_array();
  for (const auto& name : r.inputs) w.value(name);
  w.end_array();
  w.key("probability");
  w.begin_object();
  w.field("estimate", r.probability);
  w.key("ci95");
  w.begin_array();
  w.value(r.ci_low);
  w.value(r.ci_high);
  w.end_array();
  w.field("cov", r.cov);
  w.field("interval", r.interval);
  w.end_object();
  w.field("beta", r.beta);
  w.field("model_calls", r.model_calls);
  w.field("failed_calls", r.failed_calls);
  w.field("resolved", std::size_t{r.resolved ? 1u : 0u});  // 0/1 as in the file
  w.field("note", r.note);
  w.field("seed", r.seed);
  if (r.effective_sample_size) w.field("effective_sample_size", *r.effective_sample_size);
  if (r.form) {
    const form_part& f = *r.form;
    w.key("form");
    w.begin_object();
    w.field("converged", std::size_t{f.converged ? 1u : 0u});
    w.field("message", f.message);
    w.field("search", f.search);
    w.field("beta", f.beta);
    w.field("probability", f.converged ? normal_tail(f.beta) : NAN);
    w.field("g_at_design", f.g_at_design);
    w.field("g_at_origin", f.g_at_origin);
    w.field("iterations", f.iterations);
    w.field("other_design_points", f.other_design_points);
    w.key("design_point");
    w.begin_array();
    for (std::size_t i = 0; i < std::min(f.alpha.size(), r.inputs.size()); ++i) {
      w.begin_object();
      w.field("input", r.inputs[i]);
      w.field("unit", r.input_units[i].unit);
      w.field("u", i < f.u_star.size() ? f.u_star[i] : NAN);
      w.field("x", i < f.x_star.size() ? f.x_star[i] * r.input_units[i].factor : NAN);
      w.field("alpha", f.alpha[i]);
      w.field("importance", f.alpha[i] * f.alpha[i]);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  if (r.sorm) {
    w.key("sorm");
    w.begin_object();
    array(w, "curvatures", r.sorm->curvatures);
    w.field("breitung", r.sorm->breitung);
    w.field("hohenbichler", r.sorm->hohenbichler);
    w.field("tvedt", r.sorm->tvedt);
    w.end_object();
  }
  if (r.subset) {
    const subset_part& s = *r.subset;
    w.key("subset");
    w.begin_object();
    w.field("samples_per_level", s.samples_per_level);
    w.field("p0", s.p0);
    w.field("replicates", s.runs.size());
    array(w, "run_estimates", s.run_estimates);
    array(w, "run_cov", s.run_cov);
    w.field("threshold_unit", r.output_unit.unit);
    w.key("runs");
    w.begin_array();
    for (const auto& run : s.runs) {
      const running_product p = running(run);
      w.begin_object();
      w.field("reached_failure", std::size_t{run.reached_failure ? 1u : 0u});
      w.key("levels");
      w.begin_array();
      for (std::size_t i = 0; i < run.threshold.size(); ++i) {
        w.begin_object();
        w.field("threshold", run.threshold[i] * r.output_unit.factor);
        w.field("probability", run.probability[i]);
        w.field("samples", run.samples[i]);
        w.field("acceptance", run.acceptance[i]);
        w.field("gamma", run.gamma[i]);
        w.field("cov", run.cov[i]);
        w.field("running_probability", p.probability[i]);
        w.key("running_ci95");
        w.begin_array();
        w.value(p.low[i]);
        w.value(p.high[i]);
        w.end_array();
        w.field("model_calls", p.calls[i]);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_object();
  w.end_object();
  fmt::print("{}\n", w.str());
}

}  // namespace

void print_reliability_summary(const std::string& file, bool json, bool si) {
  const reliability_file r = read_reliability(file, si);
  if (json)
    print_json(r);
  else
    print_text(r);
}

}  // namespace contactuq::cli
