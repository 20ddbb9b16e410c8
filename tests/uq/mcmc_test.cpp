#include "contactuq/uq/mcmc.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "contactuq/error.hpp"

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

Eigen::MatrixXd dispersed_starts(std::size_t chains, std::size_t d, double centre, double spread) {
  Eigen::MatrixXd s(static_cast<Eigen::Index>(chains), static_cast<Eigen::Index>(d));
  for (std::size_t c = 0; c < chains; ++c)
    for (std::size_t i = 0; i < d; ++i)
      s(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(i)) =
          centre + spread * std::sin(1.7 * static_cast<double>(c + 1) + 0.9 * static_cast<double>(i));
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
