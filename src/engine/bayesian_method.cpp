// Bayesian calibration (docs/bayesian.md): the posterior of a model's calibrated inputs, and of
// the populations of inputs that scatter from part to part, given measured data, sampled by
// DRAM or the stretch move (uq/mcmc.hpp). The log posterior runs the model at every data case
// for every row the sampler asks for, rows x cases on TBB threads.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <numbers>

#include "contactuq/calibrate/bayesian_output.hpp"
#include "contactuq/calibrate/bayesian_study.hpp"
#include "contactuq/error.hpp"
#include "contactuq/io/result_file.hpp"
#include "contactuq/study/threads.hpp"
#include "contactuq/uq/mcmc.hpp"
#include "contactuq/uq/random.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {
namespace {

namespace cal = calibrate;

// Stream of the posterior predictive noise of draw i: uq::make_engine(seed, predictive, i).
constexpr auto predictive_noise = static_cast<uq::stream_purpose>(0xba1e6);

double normal(uq::engine& e);

double student_t_draw(uq::engine& e, double nu) {
  // t = z / sqrt(chi2 / nu), chi2 as a sum of squares for integer nu, else by the gamma of
  // the Wilson-Hilferty cube (a summary statistic; exact tails matter little here).
  const double z = normal(e);
  const double w = 1.0 - 2.0 / (9.0 * nu) + normal(e) * std::sqrt(2.0 / (9.0 * nu));
  const double chi2 = nu * std::max(w * w * w, 1e-12);
  return z / std::sqrt(chi2 / nu);
}

double normal(uq::engine& e) {
  // Box-Muller from two open uniforms; bits fixed by this file.
  const double u1 = uq::open_uniform(e), u2 = uq::open_uniform(e);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// The posterior predictive at the data: for `n` draws spread over the kept draws of all
// chains, the model at every case plus noise.
std::vector<cal::predictive_value> predictive(const cal::bayesian_study& s, const cal::bayesian_posterior& post,
                                              const cal::posterior_run& r, std::size_t n) {
  std::vector<Eigen::VectorXd> picks;
  const std::size_t chains = r.kept.size(), total = chains * r.draws;
  n = std::min(n, total);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = k * total / n;
    picks.push_back(r.kept[i % chains].row(static_cast<Eigen::Index>(i / chains)).transpose());
  }
  std::vector<cal::predictive_value> out;
  for (std::size_t c = 0; c < s.cases.size(); ++c) {
    const auto& mc = s.cases[c];
    for (const auto& [j, y] : mc.outputs) out.push_back({c, s.model.outputs()[j].name, std::nan(""), y});
    for (const auto& k : mc.curves)
      for (std::size_t p = 0; p < k.x.size(); ++p) out.push_back({c, s.model.curves()[k.curve].name, k.x[p], k.y[p]});
  }
  if (n == 0) return {};
  std::vector<std::vector<double>> rep(out.size());
  for (std::size_t k = 0; k < n; ++k) {
    const auto values = post.predictions(picks[k]);
    const auto sd = post.noise_sd(picks[k]);
    auto rng = uq::make_engine(s.options.seed, predictive_noise, k);
    std::size_t v = 0;
    for (std::size_t c = 0; c < values.size(); ++c)
      for (std::size_t p = 0; p < values[c].size(); ++p, ++v) {
        const double e = s.options.likelihood == cal::likelihood_kind::gaussian ? normal(rng)
                                                                                : student_t_draw(rng, s.options.dof);
        if (std::isfinite(values[c][p])) rep[v].push_back(values[c][p] + sd[c][p] * e);
      }
  }
  for (std::size_t v = 0; v < out.size(); ++v) {
    auto& o = out[v];
    const auto& y = rep[v];
    if (y.empty()) {
      o.mean = o.q05 = o.q50 = o.q95 = o.p_below = std::nan("");
      continue;
    }
    double sum = 0;
    std::size_t below = 0;
    for (double x : y) sum += x, below += x < o.measured;
    o.mean = sum / static_cast<double>(y.size());
    o.q05 = cal::sample_quantile(y, 0.05);
    o.q50 = cal::sample_quantile(y, 0.5);
    o.q95 = cal::sample_quantile(y, 0.95);
    o.p_below = static_cast<double>(below) / static_cast<double>(y.size());
  }
  return out;
}

}  // namespace

run_result run_bayesian(const io::study_document& doc, const run_options& o, const path& out) {
  std::FILE* to = report(o);
  run_result r{.method_name = "bayesian", .output = out, .planned = 1};
  const cal::bayesian_study s = cal::read_bayesian_study(doc);
  const cal::bayesian_posterior post(s, study::worker_threads(o.threads));
  const io::study_table bt = doc.root().table("bayesian");
  uq::mcmc_options mo;
  mo.sampler = uq::parse_mcmc_sampler(s.options.sampler);
  mo.chains = s.options.chains;
  mo.warmup = s.options.warmup;
  mo.draws = s.options.draws;
  mo.seed = s.options.seed;
  // The first proposal on the prior's scale of each coordinate: a 0.1 (|x| + 1) default is
  // far too wide for a length in metres or a well-measured part.
  const Eigen::VectorXd proposal_sd = 0.2 * s.options.start_spread * post.spread();
  mo.initial_covariance = proposal_sd.array().square().matrix().asDiagonal();
  try {
    mo.validate(post.dimension());
  } catch (const parameter_error& e) {
    bt.fail(e);
  }
  r.planned = mo.chains * mo.draws;
  for (const auto& w : s.warnings) fmt::print(errors(o), "warning: {}\n", w);
  if (o.check_only) return r;

  const auto t0 = std::chrono::steady_clock::now();
  const Eigen::MatrixXd starts = post.starts(mo.chains, s.options.seed, s.options.start_spread);
  const uq::batch_log_density density = [&](const Eigen::MatrixXd& z, Eigen::VectorXd& lp) { post.log_density(z, lp); };
  const uq::mcmc_result m = uq::run_mcmc(density, starts, mo);

  cal::posterior_run run;
  run.parameters = post.parameters();
  run.warmup = mo.warmup;
  run.draws = mo.draws / std::max<std::size_t>(mo.thin, 1);
  const auto d = static_cast<Eigen::Index>(post.dimension());
  const auto to_physical = [&](const Eigen::MatrixXd& z) {
    Eigen::MatrixXd x(z.rows(), d);
    for (Eigen::Index i = 0; i < z.rows(); ++i) x.row(i) = post.physical(z.row(i).transpose()).transpose();
    return x;
  };
  for (std::size_t c = 0; c < m.draws.size(); ++c) {
    run.kept.push_back(to_physical(m.draws[c]));
    run.warmup_draws.push_back(c < m.warmup_draws.size() ? to_physical(m.warmup_draws[c]) : Eigen::MatrixXd(0, d));
    run.log_posterior.push_back(m.log_density[c]);
    // The log likelihood: the log posterior less the log prior (no model call).
    Eigen::VectorXd ll(m.draws[c].rows());
    for (Eigen::Index i = 0; i < ll.size(); ++i) ll[i] = m.log_density[c][i] - post.log_prior(m.draws[c].row(i).transpose());
    run.log_likelihood.push_back(ll);
  }
  run.draws = static_cast<std::size_t>(run.kept.front().rows());
  run.warmup = static_cast<std::size_t>(run.warmup_draws.front().rows());
  run.starts = to_physical(starts);
  run.acceptance = m.acceptance;
  run.warmup_acceptance = m.warmup_acceptance;
  run.evaluations = m.evaluations;
  const auto summary = uq::summarize_chains(run.kept);
  for (Eigen::Index p = 0; p < d; ++p) {
    std::vector<double> v;
    for (const auto& k : run.kept) v.insert(v.end(), k.col(p).data(), k.col(p).data() + k.rows());
    const auto& e = summary[static_cast<std::size_t>(p)];
    run.diagnostics.push_back({e.mean, e.sd, e.mcse_mean, e.mcse_sd, cal::sample_quantile(v, 0.025), e.q05, e.q50,
                               e.q95, cal::sample_quantile(v, 0.975), e.rhat, e.ess_bulk, e.ess_tail});
  }
  run.predictive = predictive(s, post, run, s.options.predictive_draws);
  run.model_calls = post.model_calls();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print(to, "bayesian: {} parameters, {} cases in {} part{}, {} log-density rows, {} model calls, {:.2f} s\n",
             post.dimension(), s.cases.size(), s.parts.size(), s.parts.size() == 1 ? "" : "s", run.evaluations,
             run.model_calls, run.seconds);
  if (!out.empty()) {
    io::make_parent_folder(out);
    io::write_then_rename(out, [&](const path& file) { cal::write_posterior_hdf5(file, doc, s, run); });
    fmt::print(to, "{}\nwrote {}\n", cal::describe_posterior_file(out), out.string());
  }
  return r;
}

method bayesian_method() {
  return {.name = "bayesian",
          .summary = "posterior of calibrated inputs and part-to-part populations given measured data (MCMC)",
          .counts = "draws",
          .result_optional = true,
          .run = run_bayesian};
}

}  // namespace contactuq::engine::detail
