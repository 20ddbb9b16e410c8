#include "contactuq/uq/mcmc.hpp"

#include <Eigen/LU>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <boost/math/special_functions/erf.hpp>
#include <limits>
#include <numbers>
#include <thread>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

// Conjugate normal mean with known sigma: data y_i ~ N(theta, sigma^2), prior theta ~ N(mu0,
// sigma0^2); posterior N(w ybar + (1 - w) mu0, w sigma^2/n), w = n sigma0^2/(n sigma0^2 + sigma^2).
struct conjugate_normal {
  std::vector<double> y{1.9, 2.7, 0.8, 1.4, 2.2, 3.1, 1.7, 2.5, 0.9, 2.0, 1.6, 2.8};
  double sigma = 1.0, mu0 = 0.0, sigma0 = 2.0;

  double ybar() const {
    double s = 0;
    for (double v : y) s += v;
    return s / static_cast<double>(y.size());
  }
  double w() const {
    const double n = static_cast<double>(y.size());
    return n * sigma0 * sigma0 / (n * sigma0 * sigma0 + sigma * sigma);
  }
  double posterior_mean() const { return w() * ybar() + (1 - w()) * mu0; }
  double posterior_sd() const { return std::sqrt(w() * sigma * sigma / static_cast<double>(y.size())); }

  batch_log_density density() const {
    return [this](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
      for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double t = x(r, 0);
        double lp = -0.5 * (t - mu0) * (t - mu0) / (sigma0 * sigma0);
        for (double v : y) lp -= 0.5 * (v - t) * (v - t) / (sigma * sigma);
        out(r) = lp;
      }
    };
  }
};

// Starts uniform in [centre - spread, centre + spread]^d (in general position, which the stretch
// move needs: its walkers never leave their affine hull).
Eigen::MatrixXd dispersed_starts(std::size_t chains, std::size_t d, double centre, double spread,
                                 std::uint64_t seed = 1) {
  engine e = make_engine(seed, stream_purpose::monte_carlo_row, 99);
  Eigen::MatrixXd s(static_cast<Eigen::Index>(chains), static_cast<Eigen::Index>(d));
  for (Eigen::Index c = 0; c < s.rows(); ++c)
    for (Eigen::Index i = 0; i < s.cols(); ++i) s(c, i) = centre + spread * (2 * open_uniform(e) - 1);
  return s;
}

}  // namespace

TEST_CASE("MCMC: conjugate normal mean, posterior mean and sd within 4 MCSE", "[uq][mcmc]") {
  const conjugate_normal model;
  const mcmc_sampler sampler = GENERATE(mcmc_sampler::dram, mcmc_sampler::stretch);
  mcmc_options o;
  o.sampler = sampler;
  o.chains = sampler == mcmc_sampler::dram ? 4 : 8;
  o.warmup = 1000;
  o.draws = 5000;
  o.seed = 7;
  const mcmc_result r = run_mcmc(model.density(), dispersed_starts(o.chains, 1, 1.0, 2.0), o);
  const auto s = summarize_chains(r.draws);
  INFO(to_string(sampler) << ": mean " << s[0].mean << " +- " << s[0].mcse_mean << " (exact "
                          << model.posterior_mean() << "), sd " << s[0].sd << " +- " << s[0].mcse_sd
                          << " (exact " << model.posterior_sd() << "), ess " << s[0].ess_bulk
                          << ", rhat " << s[0].rhat << ", acceptance " << r.acceptance[0]);
  CHECK(std::abs(s[0].mean - model.posterior_mean()) < 4 * s[0].mcse_mean);
  CHECK(std::abs(s[0].sd - model.posterior_sd()) < 4 * s[0].mcse_sd);
  CHECK(s[0].rhat < 1.02);
  CHECK(s[0].ess_bulk > 1000);
  for (std::size_t c = 0; c < o.chains; ++c) {
    // the first stage (or the stretch move) near its optimum; DR's second stage adds to it
    const double first = r.acceptance[c] - (r.second_stage_acceptance.empty() ? 0.0 : r.second_stage_acceptance[c]);
    CHECK((first > 0.15 && first < 0.95));
  }
}

TEST_CASE("MCMC: DRAM's second stage alone keeps the posterior (Tierney-Mira acceptance)",
          "[uq][mcmc]") {
  // No adaptation and a first-stage proposal 20 posterior sds wide: stage 1 almost never
  // accepts, stage 2 (sd = 20 g = 1 posterior sd) does the sampling. With a wrong stage-2
  // acceptance probability (e.g. without the q1 ratio) the sd comes out wrong.
  const conjugate_normal model;
  mcmc_options o;
  o.warmup = 0;
  o.draws = 20000;
  o.seed = 4;
  o.dr_scale = 0.05;
  o.initial_covariance = Eigen::MatrixXd::Constant(1, 1, std::pow(20 * model.posterior_sd(), 2));
  const mcmc_result r = run_mcmc(model.density(), dispersed_starts(4, 1, 1.9, 0.5), o);
  const auto s = summarize_chains(r.draws);
  double first = 0, second = 0;
  for (std::size_t c = 0; c < 4; ++c) {
    first += (r.acceptance[c] - r.second_stage_acceptance[c]) / 4;
    second += r.second_stage_acceptance[c] / 4;
  }
  INFO("mean " << s[0].mean << " +- " << s[0].mcse_mean << ", sd " << s[0].sd << " +- "
               << s[0].mcse_sd << ", acceptance stage 1 " << first << ", stage 2 " << second);
  CHECK(first < 0.1);
  CHECK(second > 0.3);
  CHECK(std::abs(s[0].mean - model.posterior_mean()) < 4 * s[0].mcse_mean);
  CHECK(std::abs(s[0].sd - model.posterior_sd()) < 4 * s[0].mcse_sd);
  CHECK(r.final_covariance == o.initial_covariance);  // warm-up 0: nothing adapted
}

namespace {

// Correlation of columns 0 and 1 of the rows [from, to) of m.
double correlation(const Eigen::MatrixXd& m, Eigen::Index from, Eigen::Index to) {
  const Eigen::MatrixXd b = m.middleRows(from, to - from);
  const Eigen::MatrixXd c = b.rowwise() - b.colwise().mean();
  return c.col(0).dot(c.col(1)) / std::sqrt(c.col(0).squaredNorm() * c.col(1).squaredNorm());
}

}  // namespace

TEST_CASE("MCMC: correlated 2-D Gaussian (rho 0.9), means, sds and correlation within 4 MCSE",
          "[uq][mcmc]") {
  const double rho = 0.9, m0 = 1.0, m1 = -2.0, s0 = 1.0, s1 = 3.0;
  Eigen::Matrix2d cov;
  cov << s0 * s0, rho * s0 * s1, rho * s0 * s1, s1 * s1;
  const Eigen::Matrix2d precision = cov.inverse();
  const batch_log_density f = [&](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const Eigen::Vector2d u(x(r, 0) - m0, x(r, 1) - m1);
      out(r) = -0.5 * u.dot(precision * u);
    }
  };
  const mcmc_sampler sampler = GENERATE(mcmc_sampler::dram, mcmc_sampler::stretch);
  mcmc_options o;
  o.sampler = sampler;
  o.chains = sampler == mcmc_sampler::dram ? 4 : 8;
  o.warmup = 1000;
  o.draws = 10000;
  o.seed = 12;
  const mcmc_result r = run_mcmc(f, dispersed_starts(o.chains, 2, 0.0, 3.0), o);
  const auto s = summarize_chains(r.draws);
  const double mean[2] = {m0, m1}, sd[2] = {s0, s1};
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(to_string(sampler) << " x" << i << ": mean " << s[i].mean << " +- " << s[i].mcse_mean
                            << ", sd " << s[i].sd << " +- " << s[i].mcse_sd << ", ess "
                            << s[i].ess_bulk << ", rhat " << s[i].rhat);
    CHECK(std::abs(s[i].mean - mean[i]) < 4 * s[i].mcse_mean);
    CHECK(std::abs(s[i].sd - sd[i]) < 4 * s[i].mcse_sd);
  }
  // Correlation of the pooled draws; its MCSE from batch means: 25 batches per chain, each much
  // longer than the autocorrelation time, whose correlations are nearly independent.
  const Eigen::Index n = r.draws.front().rows(), batches = 25, length = n / batches;
  std::vector<double> batch;
  Eigen::MatrixXd all(n * static_cast<Eigen::Index>(r.draws.size()), 2);
  for (std::size_t c = 0; c < r.draws.size(); ++c) {
    all.middleRows(static_cast<Eigen::Index>(c) * n, n) = r.draws[c];
    for (Eigen::Index b = 0; b < batches; ++b)
      batch.push_back(correlation(r.draws[c], b * length, (b + 1) * length));
  }
  double bm = 0, bv = 0;
  for (double v : batch) bm += v / static_cast<double>(batch.size());
  for (double v : batch) bv += (v - bm) * (v - bm) / static_cast<double>(batch.size() - 1);
  const double mcse_rho = std::sqrt(bv / static_cast<double>(batch.size()));
  const double rho_hat = correlation(all, 0, all.rows());
  INFO(to_string(sampler) << ": rho " << rho_hat << " +- " << mcse_rho);
  CHECK(std::abs(rho_hat - rho) < 4 * mcse_rho);
  CHECK(mcse_rho < 0.01);  // the test has power
}

TEST_CASE("MCMC: autocorrelation time of an AR(1) series with a = 0.9 is (1 + a)/(1 - a) = 19",
          "[uq][mcmc]") {
  const double a = 0.9;
  const std::uint64_t seed = GENERATE(1, 2, 3);
  engine e = make_engine(seed, stream_purpose::monte_carlo_row, 0);
  std::vector<double> x(100000);
  double v = 0;
  for (std::size_t i = 0; i < 1000; ++i)  // burn-in to the stationary law
    v = a * v - std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * open_uniform(e));
  for (double& xi : x) xi = v = a * v - std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * open_uniform(e));
  const double tau = autocorrelation_time(x);
  INFO("tau " << tau);
  CHECK(std::abs(tau - 19.0) < 0.2 * 19.0);
  // one chain's ESS is n/tau
  CHECK(effective_sample_size({x}) == Approx(static_cast<double>(x.size()) / tau).epsilon(1e-12));
}

TEST_CASE("MCMC: R-hat flags chains that sit in different modes, and not mixed Gaussian chains",
          "[uq][mcmc]") {
  mcmc_options o;
  o.chains = 4;
  o.warmup = 500;
  o.draws = 2000;
  o.seed = 3;
  SECTION("bimodal, chains started apart") {
    // Equal mixture of N(-8, 1) and N(8, 1): a jump between modes needs a step of 16 sd.
    const batch_log_density f = [](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
      for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double a = -0.5 * (x(r, 0) + 8) * (x(r, 0) + 8), b = -0.5 * (x(r, 0) - 8) * (x(r, 0) - 8);
        out(r) = std::max(a, b) + std::log1p(std::exp(std::min(a, b) - std::max(a, b)));
      }
    };
    Eigen::MatrixXd starts(4, 1);
    starts << -8, -7, 8, 7;
    const auto s = summarize_chains(run_mcmc(f, starts, o).draws);
    INFO("rhat " << s[0].rhat);
    CHECK(s[0].rhat > 1.1);
  }
  SECTION("Gaussian") {
    o.draws = 5000;  // R-hat < 1.01 is a statement about ESS in the thousands
    const batch_log_density f = [](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
      for (Eigen::Index r = 0; r < x.rows(); ++r) out(r) = -0.5 * x.row(r).squaredNorm();
    };
    const auto s = summarize_chains(run_mcmc(f, dispersed_starts(4, 3, 0.0, 2.0), o).draws);
    for (const auto& p : s) {
      INFO("rhat " << p.rhat << ", ess bulk " << p.ess_bulk << ", tail " << p.ess_tail);
      CHECK(p.rhat < 1.01);
      CHECK(p.ess_tail > 400);
    }
  }
}

TEST_CASE("MCMC: the same seed gives the same draws bit for bit; batches have one row per chain",
          "[uq][mcmc]") {
  const conjugate_normal model;
  const mcmc_sampler sampler = GENERATE(mcmc_sampler::dram, mcmc_sampler::stretch);
  mcmc_options o;
  o.sampler = sampler;
  o.chains = 6;
  o.warmup = 200;
  o.draws = 300;
  o.thin = 2;
  o.seed = 5;
  std::vector<Eigen::Index> rows;
  const batch_log_density inner = model.density();
  const batch_log_density counted = [&](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
    rows.push_back(x.rows());
    inner(x, out);
  };
  // The same density with the rows evaluated backwards by two threads: the draws may not care.
  const batch_log_density threaded = [&](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
    const auto half = [&](Eigen::Index from, Eigen::Index to) {
      for (Eigen::Index r = to - 1; r >= from; --r) {
        Eigen::VectorXd one(1);
        inner(x.row(r), one);
        out(r) = one(0);
      }
    };
    std::thread t(half, x.rows() / 2, x.rows());
    half(0, x.rows() / 2);
    t.join();
  };
  const Eigen::MatrixXd starts = dispersed_starts(6, 1, 1.0, 1.0);
  const mcmc_result a = run_mcmc(counted, starts, o);
  const mcmc_result b = run_mcmc(threaded, starts, o);
  REQUIRE(a.draws.size() == 6);
  for (std::size_t c = 0; c < 6; ++c) {
    CHECK(a.draws[c].rows() == 300);
    CHECK(a.warmup_draws[c].rows() == 200);
    CHECK(a.draws[c] == b.draws[c]);
    CHECK(a.log_density[c] == b.log_density[c]);
    CHECK(a.warmup_draws[c] == b.warmup_draws[c]);
  }
  CHECK(a.acceptance == b.acceptance);
  CHECK(a.evaluations == b.evaluations);
  std::size_t total = 0;
  for (Eigen::Index n : rows) total += static_cast<std::size_t>(n);
  CHECK(total == a.evaluations);
  REQUIRE(rows.front() == 6);  // the starts
  const std::size_t steps = 200 + 300 * 2;
  if (sampler == mcmc_sampler::stretch) {
    CHECK(rows.size() == 1 + 2 * steps);  // two half-ensembles a step
    for (std::size_t k = 1; k < rows.size(); ++k) CHECK(rows[k] == 3);
  } else {
    // a full batch a step, then a batch of the rejected chains (none when all accepted)
    std::size_t full = 0;
    for (std::size_t k = 1; k < rows.size(); ++k) {
      CHECK((rows[k] >= 1 && rows[k] <= 6));
      if (rows[k] == 6) ++full;
    }
    CHECK(full >= steps);
    CHECK(rows.size() <= 1 + 2 * steps);
  }
  // Another seed, other draws.
  o.seed = 6;
  CHECK(run_mcmc(counted, starts, o).draws[0] != a.draws[0]);
}

TEST_CASE("MCMC: bad input gives clear errors", "[uq][mcmc]") {
  const conjugate_normal model;
  mcmc_options o;
  o.chains = 2;
  o.warmup = 10;
  o.draws = 10;
  const auto field_of = [&](const batch_log_density& f, const Eigen::MatrixXd& starts,
                            const mcmc_options& opt) -> std::string {
    try {
      run_mcmc(f, starts, opt);
    } catch (const contactuq::parameter_error& e) {
      return e.field() + ": " + e.what();
    }
    return "no error";
  };
  Eigen::MatrixXd starts(2, 1);
  starts << 0.0, 50.0;
  const batch_log_density outside = [](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      out(r) = x(r, 0) > 10 ? -std::numeric_limits<double>::infinity() : 0.0;
  };
  CHECK_THAT(field_of(outside, starts, o), Contains("start") && Contains("chain 1"));
  starts << 0.0, 1.0;
  CHECK(field_of(outside, starts, o) == "no error");
  auto bad = o;
  bad.draws = 0;
  CHECK_THAT(field_of(outside, starts, bad), Contains("draws:"));
  bad = o;
  bad.thin = 0;
  CHECK_THAT(field_of(outside, starts, bad), Contains("thin:"));
  bad = o;
  bad.dr_scale = 0.0;
  CHECK_THAT(field_of(outside, starts, bad), Contains("dr_scale:"));
  bad = o;
  bad.adapt_interval = 0;
  CHECK_THAT(field_of(outside, starts, bad), Contains("adapt_interval:"));
  bad = o;
  bad.initial_covariance = Eigen::MatrixXd::Identity(2, 2);
  CHECK_THAT(field_of(outside, starts, bad), Contains("initial_covariance:"));
  bad.initial_covariance = -Eigen::MatrixXd::Identity(1, 1);
  CHECK_THAT(field_of(outside, starts, bad), Contains("initial_covariance:"));
  bad = o;
  bad.chains = 3;
  CHECK_THAT(field_of(outside, starts, bad), Contains("start:") && Contains("3 chains"));
  // stretch: walkers >= 2 d and even
  bad = o;
  bad.sampler = mcmc_sampler::stretch;
  bad.stretch_a = 1.0;
  CHECK_THAT(field_of(outside, starts, bad), Contains("stretch_a:"));
  Eigen::MatrixXd starts2 = Eigen::MatrixXd::Zero(3, 2);
  bad.stretch_a = 2.0;
  bad.chains = 3;
  CHECK_THAT(field_of(outside, starts2, bad), Contains("chains:") && Contains("even"));
  bad.chains = 2;
  CHECK_THAT(field_of(outside, starts2.topRows(2), bad), Contains("chains:") && Contains(">= 2 d = 4"));
  // walkers on a line in 2-D: the ensemble could never leave it
  bad.chains = 4;
  Eigen::MatrixXd line(4, 2);
  line << 0, 0, 1, 1, 2, 2, 3, 3;
  CHECK_THAT(field_of(outside, line, bad), Contains("start:") && Contains("span only 1 of 2"));
  CHECK(parse_mcmc_sampler("stretch") == mcmc_sampler::stretch);
  CHECK(to_string(parse_mcmc_sampler("dram")) == "dram");
  CHECK_THROWS_WITH(parse_mcmc_sampler("gibbs"), Contains("dram") && Contains("stretch"));
}

TEST_CASE("MCMC: eight schools, non-centred, quantiles of tau match the quadrature of p(tau | y)",
          "[uq][mcmc]") {
  // BDA3 sec. 5.5: y_j ~ N(theta_j, sigma_j^2), theta_j = mu + tau eta_j, eta_j ~ N(0, 1),
  // flat prior on mu and uniform prior on tau in [0, tau_max]. Parameters (mu, tau, eta_1..8).
  const std::vector<double> y{28, 8, -3, 7, -1, 1, 18, 12}, sigma{15, 10, 16, 11, 9, 11, 10, 18};
  const double tau_max = 100.0;
  const batch_log_density f = [&](const Eigen::MatrixXd& x, Eigen::VectorXd& out) {
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const double mu = x(r, 0), tau = x(r, 1);
      if (tau < 0.0 || tau > tau_max) {
        out(r) = -std::numeric_limits<double>::infinity();
        continue;
      }
      double lp = 0;
      for (std::size_t j = 0; j < 8; ++j) {
        const double eta = x(r, static_cast<Eigen::Index>(j) + 2);
        const double u = (y[j] - mu - tau * eta) / sigma[j];
        lp -= 0.5 * (u * u + eta * eta);
      }
      out(r) = lp;
    }
  };
  // p(tau | y) ∝ V_mu^1/2 prod (sigma_j^2 + tau^2)^-1/2 exp(-(y_j - mu_hat)^2/(2(sigma_j^2 + tau^2)))
  // (BDA3 eq. 5.21), mu_hat and V_mu the precision-weighted mean and its variance; its CDF by the
  // trapezoidal rule on a fine grid, quantiles by linear interpolation of the CDF.
  const auto density = [&](double tau) {
    double precision = 0, weighted = 0;
    for (std::size_t j = 0; j < 8; ++j) {
      precision += 1 / (sigma[j] * sigma[j] + tau * tau);
      weighted += y[j] / (sigma[j] * sigma[j] + tau * tau);
    }
    const double mu_hat = weighted / precision;
    double log_p = -0.5 * std::log(precision);
    for (std::size_t j = 0; j < 8; ++j) {
      const double v = sigma[j] * sigma[j] + tau * tau;
      log_p += -0.5 * std::log(v) - (y[j] - mu_hat) * (y[j] - mu_hat) / (2 * v);
    }
    return std::exp(log_p);
  };
  const std::size_t grid = 200000;
  const double h = tau_max / static_cast<double>(grid);
  std::vector<double> cdf(grid + 1, 0.0);
  for (std::size_t k = 1; k <= grid; ++k)
    cdf[k] = cdf[k - 1] + 0.5 * h * (density(h * static_cast<double>(k - 1)) + density(h * static_cast<double>(k)));
  const auto exact_quantile = [&](double p) {
    const double target = p * cdf.back();
    const auto k = static_cast<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
    return h * (static_cast<double>(k - 1) + (target - cdf[k - 1]) / (cdf[k] - cdf[k - 1]));
  };

  // tau has an integrated autocorrelation time of about 25 DRAM steps and 340 stretch steps.
  const mcmc_sampler sampler = GENERATE(mcmc_sampler::dram, mcmc_sampler::stretch);
  mcmc_options o;
  o.sampler = sampler;
  o.chains = sampler == mcmc_sampler::dram ? 4 : 20;
  o.warmup = sampler == mcmc_sampler::dram ? 4000 : 4000;
  o.draws = sampler == mcmc_sampler::dram ? 20000 : 40000;
  o.seed = 2;
  Eigen::MatrixXd starts = dispersed_starts(o.chains, 10, 0.0, 1.0, 1);
  starts.col(0) = dispersed_starts(o.chains, 1, 8.0, 5.0, 2);
  starts.col(1) = dispersed_starts(o.chains, 1, 6.0, 5.0, 3);
  const mcmc_result r = run_mcmc(f, starts, o);
  const auto tau = chain_columns(r.draws, 1);
  std::vector<Eigen::MatrixXd> tau_chains;
  for (const auto& c : r.draws) tau_chains.push_back(c.col(1));
  const parameter_summary s = summarize_chains(tau_chains).front();
  INFO(to_string(sampler) << ": tau rhat " << s.rhat << ", ess bulk " << s.ess_bulk << ", tail "
                          << s.ess_tail << ", acceptance " << r.acceptance[0]);
  CHECK(s.rhat < 1.01);
  for (double p : {0.25, 0.5, 0.75}) {
    const quantile_mcse q = quantile_with_mcse(tau, p);
    const double exact = exact_quantile(p);
    INFO(to_string(sampler) << " p " << p << ": " << q.value << " +- " << q.mcse << " (quadrature " << exact << ")");
    CHECK(std::abs(q.value - exact) < 4 * q.mcse);
    CHECK(q.mcse < 0.05 * exact);  // the test has power
  }
}
