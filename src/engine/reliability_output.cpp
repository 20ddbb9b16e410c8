// What a reliability run reports and the file it writes (format "contactuq-reliability",
// docs/hdf5-schema.md): the estimate with its interval first, then what each algorithm found.
#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/result_file.hpp"
#include "reliability_method.hpp"

namespace contactuq::engine::detail {
namespace {

namespace h5 = io::hdf5;

std::vector<double> as_vector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

std::string estimate_text(const uq::probability_estimate& p) {
  if (std::isnan(p.estimate)) return "none";
  std::string s = fmt::format("{:.4g}", p.estimate);
  if (p.ci_low != p.ci_high) s += fmt::format("  95 % interval [{:.4g}, {:.4g}]", p.ci_low, p.ci_high);
  if (std::isfinite(p.cov)) s += fmt::format("  CoV {:.3g}", p.cov);
  return s;
}

void form_text(std::string& to, const reliability_study& r, const uq::form_result& f, const to_inputs& x) {
  fmt::format_to(std::back_inserter(to), "\n  FORM ({}, {} iterations): beta = {:.6g}, |g(u*)| = {:.3g} (g(0) = {:.4g})\n",
                 f.search, f.history.size(), f.beta, f.g_at_design, f.g_at_origin);
  if (!f.converged || f.u_star.size() == 0) return;
  const Eigen::VectorXd xs = x(f.u_star);
  std::size_t width = 10;
  for (std::size_t i : r.random) width = std::max(width, r.study.inputs[i].name.size());
  fmt::format_to(std::back_inserter(to), "  {:<{}} {:>12} {:>14} {:>10}  {}\n", "input", width, "u*", "x* [SI]",
                 "alpha^2", "unit");
  for (std::size_t k = 0; k < r.random.size(); ++k) {
    const auto& in = r.study.inputs[r.random[k]];
    const auto i = static_cast<Eigen::Index>(k);
    fmt::format_to(std::back_inserter(to), "  {:<{}} {:>12.5g} {:>14.6g} {:>10.4f}  {}\n", in.name, width, f.u_star(i),
                   xs(i), f.alpha(i) * f.alpha(i), in.unit);
  }
}

void subset_text(std::string& to, const uq::subset_result& s) {
  const uq::subset_run& run = s.runs.front();
  fmt::format_to(std::back_inserter(to), "\n  subset levels{}\n  {:>5} {:>13} {:>11} {:>8} {:>10} {:>8} {:>8}\n",
                 s.runs.size() > 1 ? fmt::format(" (first of {} replicates)", s.runs.size()) : "", "level",
                 "threshold", "p_i", "N_i", "accepted", "gamma", "delta");
  for (std::size_t i = 0; i < run.levels.size(); ++i) {
    const auto& l = run.levels[i];
    fmt::format_to(std::back_inserter(to), "  {:>5} {:>13.5g} {:>11.4g} {:>8} {:>10.3f} {:>8.3f} {:>8.3f}\n", i,
                   l.threshold, l.probability, l.samples, l.acceptance, l.gamma, l.cov);
  }
}

void write_form(h5::group& g, const uq::form_result& f, const to_inputs& x) {
  g.set_attribute("converged", static_cast<std::int64_t>(f.converged));
  g.set_attribute("message", f.message);
  g.set_attribute("search", f.search);
  g.set_attribute("beta", f.beta);
  g.set_attribute("g_at_design", f.g_at_design);
  g.set_attribute("g_at_origin", f.g_at_origin);
  if (f.u_star.size() > 0) {
    g.write("u_star", as_vector(f.u_star));
    if (f.converged) g.write("x_star", as_vector(x(f.u_star))).set_attribute("units", "SI, per input");
  }
  if (f.alpha.size() > 0) {
    g.write("alpha", as_vector(f.alpha));
    g.write("importance_factors", as_vector(f.alpha.array().square().matrix()));
  }
  std::vector<double> beta, gv;
  for (const auto& it : f.history) beta.push_back(it.beta), gv.push_back(it.g);
  g.write("history_beta", beta);
  g.write("history_g", gv);
}

void write_subset(h5::group& g, const uq::subset_result& s) {
  g.set_attribute("replicates", static_cast<std::int64_t>(s.runs.size()));
  std::vector<double> run_estimates, run_covs;
  for (std::size_t k = 0; k < s.runs.size(); ++k) {
    const auto& run = s.runs[k];
    run_estimates.push_back(run.probability.estimate), run_covs.push_back(run.probability.cov);
    h5::group lg = g.create_group(fmt::format("run_{}", k));
    lg.set_attribute("reached_failure", static_cast<std::int64_t>(run.reached_failure));
    std::vector<double> threshold, probability, samples, acceptance, gamma, cov, cumulative_cov;
    for (const auto& l : run.levels) {
      threshold.push_back(l.threshold), probability.push_back(l.probability);
      samples.push_back(static_cast<double>(l.samples)), acceptance.push_back(l.acceptance);
      gamma.push_back(l.gamma), cov.push_back(l.cov), cumulative_cov.push_back(l.cumulative_cov);
      if (l.u.size() > 0) {
        const std::size_t i = &l - run.levels.data();
        const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> u = l.u;
        lg.write(fmt::format("u_level_{}", i), std::span<const double>(u.data(), static_cast<std::size_t>(u.size())),
                 static_cast<std::size_t>(u.rows()), static_cast<std::size_t>(u.cols()));
        lg.write(fmt::format("g_level_{}", i), as_vector(l.g));
      }
    }
    lg.write("threshold", threshold), lg.write("probability", probability), lg.write("samples", samples);
    lg.write("acceptance", acceptance), lg.write("gamma", gamma), lg.write("cov", cov);
    lg.write("cumulative_cov", cumulative_cov);  // of the running product up to each level
  }
  g.write("run_estimates", run_estimates);
  g.write("run_cov", run_covs);
}

}  // namespace

std::string reliability_report(const reliability_study& r, const reliability_outcome& outcome, const to_inputs& x) {
  std::string to = fmt::format("model {}, reliability of the event {} by {} over {} aleatoric inputs\n",
                               r.study.model.name(), r.event, title_of(r.algorithm), r.random.size());
  const uq::probability_estimate& p = outcome.probability;
  fmt::format_to(std::back_inserter(to), "\n  P(failure) = {}\n", estimate_text(p));
  if (p.estimate > 0 && p.estimate < 1)
    fmt::format_to(std::back_inserter(to), "  beta = -Phi^-1(P) = {:.5g}\n", uq::reliability_index(p.estimate));
  fmt::format_to(std::back_inserter(to), "  model calls: {} ({} failed)\n", p.model_calls, p.failed_calls);
  if (!outcome.note.empty()) fmt::format_to(std::back_inserter(to), "  note: {}\n", outcome.note);
  if (outcome.form) form_text(to, r, outcome.form->best, x);
  if (outcome.form && !outcome.form->others.empty())
    fmt::format_to(std::back_inserter(to), "  {} other design point(s), beta from {:.5g}\n", outcome.form->others.size(),
                   outcome.form->others.front().beta);
  if (outcome.sorm)
    fmt::format_to(std::back_inserter(to), "\n  SORM: Breitung {:.4g}, Hohenbichler {:.4g}, Tvedt {:.4g}\n",
                   outcome.sorm->breitung, outcome.sorm->hohenbichler, outcome.sorm->tvedt);
  if (outcome.importance && r.algorithm == reliability_algorithm::importance)
    fmt::format_to(std::back_inserter(to), "\n  importance sampling: effective sample size {:.4g}\n",
                   outcome.importance->effective_sample_size);
  if (outcome.subset) subset_text(to, *outcome.subset);
  return to;
}

void write_reliability_hdf5(const std::filesystem::path& file, const io::study_document& doc, const reliability_study& r,
                            const reliability_outcome& outcome, const to_inputs& x) {
  h5::file f(file, h5::file_mode::create);
  io::write_result_header(f, {.format = "contactuq-reliability", .method = "reliability", .model = r.study.model.name(),
                              .title = r.study.title, .study_text = doc.text(), .study_path = doc.file()});
  h5::group g = f.create_group("reliability");
  const uq::probability_estimate& p = outcome.probability;
  g.set_attribute("algorithm", std::string(to_string(r.algorithm)));
  g.set_attribute("output", r.study.model.outputs()[r.output].name);
  g.set_attribute("event", r.event);
  g.set_attribute("output_unit", r.study.model.outputs()[r.output].unit);  // of the limits and margins (SI)
  g.set_attribute("limit_low", r.limit.low);
  g.set_attribute("limit_high", r.limit.high);
  g.set_attribute("probability", p.estimate);
  g.set_attribute("ci95_low", p.ci_low);
  g.set_attribute("ci95_high", p.ci_high);
  g.set_attribute("cov", p.cov);
  g.set_attribute("interval", p.interval);
  g.set_attribute("beta", p.estimate > 0 && p.estimate < 1 ? uq::reliability_index(p.estimate) : std::nan(""));
  g.set_attribute("model_calls", static_cast<std::int64_t>(p.model_calls));
  g.set_attribute("failed_calls", static_cast<std::int64_t>(p.failed_calls));
  g.set_attribute("resolved", static_cast<std::int64_t>(outcome.resolved));
  g.set_attribute("note", outcome.note);
  g.set_attribute("seed", static_cast<std::int64_t>(r.subset.seed));
  std::vector<std::string> inputs;
  for (std::size_t i : r.random) inputs.push_back(r.study.inputs[i].name);
  g.set_attribute("inputs", inputs);
  if (outcome.form) {
    h5::group fg = g.create_group("form");
    write_form(fg, outcome.form->best, x);
    fg.set_attribute("other_design_points", static_cast<std::int64_t>(outcome.form->others.size()));
  }
  if (outcome.sorm) {
    h5::group sg = g.create_group("sorm");
    sg.write("curvatures", as_vector(outcome.sorm->curvatures));
    sg.set_attribute("breitung", outcome.sorm->breitung);
    sg.set_attribute("hohenbichler", outcome.sorm->hohenbichler);
    sg.set_attribute("tvedt", outcome.sorm->tvedt);
  }
  if (outcome.importance) g.set_attribute("effective_sample_size", outcome.importance->effective_sample_size);
  if (outcome.subset) {
    h5::group sg = g.create_group("subset");
    sg.set_attribute("samples_per_level", static_cast<std::int64_t>(r.subset.samples_per_level));
    sg.set_attribute("p0", r.subset.p0);
    write_subset(sg, *outcome.subset);
  }
  f.close();
}

}  // namespace contactuq::engine::detail
