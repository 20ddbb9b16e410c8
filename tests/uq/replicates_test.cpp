#include "contactuq/uq/replicates.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

TEST_CASE("the replicate t interval of a mean", "[uq][replicates]") {
  // Estimates 1, 2, 3: s = 1, t_{2, 0.975} = 4.302653, half-width 4.302653 / sqrt(3).
  const std::vector<double> e{1.0, 2.0, 3.0};
  CHECK(replicate_half_width(e, 0.95) == Approx(4.302652729749464 / std::sqrt(3.0)).epsilon(1e-12));
  CHECK_THROWS_WITH(replicate_half_width(std::vector<double>{1.0}, 0.95), Contains("replicates"));
}

TEST_CASE("RQMC replicate intervals cover the true mean and quantile at their level", "[uq][replicates]") {
  // g(u) = u1 + u2^2 over scrambled Sobol' points, R = 10 replicates of 64: E[g] = 1/2 + 1/3.
  // The 95 % intervals must cover the true mean in about 95 of 100 independent studies (binomial
  // sd 2.2 %).
  int covered_mean = 0;
  const int studies = 100;
  for (int s = 0; s < studies; ++s) {
    const Eigen::MatrixXd u =
        unit_design(640, 2, {.kind = design_kind::sobol, .seed = 1000 + static_cast<std::uint64_t>(s), .replicates = 10});
    std::vector<double> g(640);
    for (Eigen::Index i = 0; i < 640; ++i) g[static_cast<std::size_t>(i)] = u(i, 0) + u(i, 1) * u(i, 1);
    const summary r = summarize_replicates(g, 10);
    covered_mean += r.mean_ci.low <= 5.0 / 6.0 && 5.0 / 6.0 <= r.mean_ci.high;
  }
  CHECK(covered_mean >= 85);
  CHECK(covered_mean <= 100);
}

TEST_CASE("replicate quantile intervals cover the true quantile", "[uq][replicates]") {
  // P(u1 + u2^2 <= 1) = int_0^1 sqrt(1 - u1) du1 = 2/3: the 2/3 quantile is 1.
  summary_options o;
  o.probabilities = {2.0 / 3.0};
  int covered = 0;
  for (int s = 0; s < 100; ++s) {
    const Eigen::MatrixXd u =
        unit_design(1280, 2, {.kind = design_kind::sobol, .seed = 7 + static_cast<std::uint64_t>(s), .replicates = 10});
    std::vector<double> g(1280);
    for (Eigen::Index i = 0; i < 1280; ++i) g[static_cast<std::size_t>(i)] = u(i, 0) + u(i, 1) * u(i, 1);
    const summary r = summarize_replicates(g, 10, o);
    covered += r.quantiles[0].ci.low <= 1.0 && 1.0 <= r.quantiles[0].ci.high;
    CHECK(r.bootstrap_resamples == 0);
  }
  CHECK(covered >= 85);
}

TEST_CASE("replicate summaries refuse a count that does not divide the values", "[uq][replicates]") {
  CHECK_THROWS_WITH(summarize_replicates(std::vector<double>(10, 1.0), 3), Contains("no multiple"));
  CHECK_THROWS_WITH(summarize_replicates(std::vector<double>(10, 1.0), 1), Contains(">= 2"));
}
