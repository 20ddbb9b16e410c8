#include "contactuq/uq/statistics.hpp"

#include <tbb/global_control.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/distribution.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool identical(const summary& a, const summary& b) {
  bool same = a.count == b.count && a.used == b.used && same_bits(a.mean, b.mean) &&
              same_bits(a.stddev, b.stddev) && same_bits(a.mean_ci.low, b.mean_ci.low) &&
              same_bits(a.mean_ci.high, b.mean_ci.high) &&
              same_bits(a.stddev_ci.low, b.stddev_ci.low) &&
              same_bits(a.stddev_ci.high, b.stddev_ci.high);
  for (std::size_t q = 0; q < a.quantiles.size(); ++q) {
    same = same && same_bits(a.quantiles[q].value, b.quantiles[q].value) &&
           same_bits(a.quantiles[q].ci.low, b.quantiles[q].ci.low) &&
           same_bits(a.quantiles[q].ci.high, b.quantiles[q].ci.high);
  }
  return same;
}

// n draws of normal(mean, sd) from a Monte Carlo design.
std::vector<double> normal_sample(std::size_t n, double mean, double sd, std::uint64_t seed) {
  const Eigen::MatrixXd x =
      map_to_inputs(unit_design(n, 1, {.kind = design_kind::monte_carlo, .seed = seed}),
                    std::vector<distribution>{make_normal(mean, sd)});
  return {x.data(), x.data() + x.size()};
}

}  // namespace

TEST_CASE("failed samples are skipped and counted", "[uq][statistics]") {
  const std::vector<double> values = {1.0, 2.0, qnan, 3.0, 4.0, inf, qnan};
  const finite_sample s(values);
  CHECK(s.size() == 4);
  CHECK(s.skipped() == 3);
  CHECK(s.mean() == 2.5);
  CHECK(s.stddev() == Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-15));  // sum (x - 2.5)^2 / 3
  CHECK(s.min() == 1.0);
  CHECK(s.max() == 4.0);

  const summary sum = summarize(values, {.bootstrap_resamples = 100});
  CHECK(sum.count == 7);
  CHECK(sum.used == 4);
  CHECK(sum.skipped == 3);
  CHECK(sum.mean == 2.5);
  CHECK(sum.quantiles.size() == 3);
  CHECK(sum.quantiles[1].value == 2.5);
}

TEST_CASE("every sample failed: the summary says so instead of throwing", "[uq][statistics]") {
  const std::vector<double> values(5, qnan);
  const summary s = summarize(values);
  CHECK(s.count == 5);
  CHECK(s.used == 0);
  CHECK(s.skipped == 5);
  CHECK(std::isnan(s.mean));
  CHECK(std::isnan(s.quantiles[0].value));
  CHECK(std::isnan(s.mean_ci.low));
  // One value: a mean, no standard deviation.
  const summary one = summarize(std::vector<double>{qnan, 4.0});
  CHECK(one.mean == 4.0);
  CHECK(std::isnan(one.stddev));
  CHECK(std::isnan(one.stddev_ci.low));
  CHECK(one.mean_ci.low == 4.0);
}

TEST_CASE("mean and standard deviation stay accurate on a large offset", "[uq][statistics]") {
  // The classic cancellation case: 1e9 + {4, 7, 13, 16} has mean 1e9 + 10 and variance
  // (36 + 9 + 9 + 36)/3 = 30, which the one-pass sum-of-squares formula loses.
  const std::vector<double> values = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  const finite_sample s(values);
  CHECK(s.mean() == 1e9 + 10);
  CHECK(s.stddev() == Approx(std::sqrt(30.0)).epsilon(1e-12));
  // The bootstrap too: shifting the data by 1e9 shifts the mean interval by 1e9 and leaves
  // the standard deviation interval as it was (same seed, same resamples).
  const auto base = normal_sample(500, 0.0, 1.0, 8);
  auto shifted = base;
  for (double& v : shifted) v += 1e9;
  const summary_options options{.bootstrap_resamples = 200};
  const summary a = summarize(base, options), b = summarize(shifted, options);
  CHECK(b.mean_ci.low - 1e9 == Approx(a.mean_ci.low).margin(1e-6));
  CHECK(b.mean_ci.high - 1e9 == Approx(a.mean_ci.high).margin(1e-6));
  CHECK(b.stddev_ci.low == Approx(a.stddev_ci.low).epsilon(1e-6));
  CHECK(b.stddev_ci.high == Approx(a.stddev_ci.high).epsilon(1e-6));
}

TEST_CASE("quantiles follow Hyndman-Fan definition 7", "[uq][statistics]") {
  SECTION("R's quantile(1:10, type = 7)") {
    std::vector<double> x;
    for (int i = 10; i >= 1; --i) x.push_back(i);
    const finite_sample s(x);
    CHECK(s.quantile(0.0) == 1.0);
    CHECK(s.quantile(0.1) == Approx(1.9).epsilon(1e-14));
    CHECK(s.quantile(0.25) == Approx(3.25).epsilon(1e-14));
    CHECK(s.quantile(0.5) == Approx(5.5).epsilon(1e-14));
    CHECK(s.quantile(0.9) == Approx(9.1).epsilon(1e-14));
    CHECK(s.quantile(1.0) == 10.0);
  }
  SECTION("numpy.quantile (method 'linear') on unsorted data with ties") {
    const std::vector<double> x = {3.1, -0.4, 2.2, 7.5, 2.2, 0.0, 5.9, 1.3, 2.2, 4.8, -1.7};
    const std::vector<std::pair<double, double>> expected = {
        {0.0, -1.7},  {0.05, -1.05}, {0.1, -0.4}, {0.25, 0.65}, {0.5, 2.2},
        {0.75, 3.95}, {0.9, 5.9},    {0.95, 6.7}, {1.0, 7.5}};
    const finite_sample s(x);
    for (const auto& [p, q] : expected) {
      INFO("p = " << p);
      CHECK(s.quantile(p) == Approx(q).epsilon(1e-13).margin(1e-15));
    }
  }
  CHECK(finite_sample(std::vector<double>{7.0}).quantile(0.3) == 7.0);
  CHECK(std::isnan(finite_sample(std::vector<double>{}).quantile(0.3)));
  CHECK_THROWS_WITH(finite_sample(std::vector<double>{1.0}).quantile(1.5),
                    Contains("probability = 1.5: must be in [0, 1]"));
}

TEST_CASE("the empirical CDF counts values at or below x", "[uq][statistics]") {
  const std::vector<double> x = {3.0, 1.0, qnan, 2.0, 2.0};
  const finite_sample s(x);
  CHECK(s.ecdf(0.5) == 0.0);
  CHECK(s.ecdf(1.0) == 0.25);
  CHECK(s.ecdf(2.0) == 0.75);
  CHECK(s.ecdf(2.5) == 0.75);
  CHECK(s.ecdf(3.0) == 1.0);
  const ecdf_points points = empirical_cdf(x);
  CHECK(points.x == std::vector<double>{1.0, 2.0, 3.0});
  CHECK(points.f == std::vector<double>{0.25, 0.75, 1.0});
  CHECK(points.skipped == 1);
}

TEST_CASE("the empirical CDF of a large sample approaches the true CDF", "[uq][statistics]") {
  // Dvoretzky-Kiefer-Wolfowitz: P(sup |F_n - F| > eps) <= 2 exp(-2 n eps^2); with n = 20000
  // and eps = 0.015 that is 2e-4.
  const auto d = make_weibull(1.5, 2.0);
  const std::size_t n = 20000;
  const Eigen::MatrixXd x =
      map_to_inputs(unit_design(n, 1, {.kind = design_kind::monte_carlo, .seed = 21}),
                    std::vector<distribution>{d});
  const finite_sample s(std::vector<double>(x.data(), x.data() + x.size()));
  double sup = 0.0;
  for (const double v : {0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}) {
    sup = std::max(sup, std::abs(s.ecdf(v) - d.cdf(v)));
  }
  CHECK(sup < 0.015);
}

TEST_CASE("bootstrap intervals cover the true value at about their confidence",
          "[uq][statistics]") {
  // 200 experiments, each n = 100 draws of normal(3, 2) with a 95 % percentile interval from
  // 400 resamples. Coverage is binomial with standard deviation 0.015 around its true value,
  // which for the percentile bootstrap at n = 100 is close to 0.94 for the mean and the
  // median and somewhat lower for the standard deviation.
  const int experiments = 200;
  const std::size_t n = 100;
  int mean_hits = 0, sd_hits = 0, median_hits = 0;
  double mean_width = 0.0;
  for (int e = 0; e < experiments; ++e) {
    const auto seed = static_cast<std::uint64_t>(e + 1);
    const summary s = summarize(normal_sample(n, 3.0, 2.0, seed),
                                {.probabilities = {0.5}, .bootstrap_resamples = 400, .seed = seed});
    mean_hits += s.mean_ci.low <= 3.0 && 3.0 <= s.mean_ci.high;
    sd_hits += s.stddev_ci.low <= 2.0 && 2.0 <= s.stddev_ci.high;
    median_hits += s.quantiles[0].ci.low <= 3.0 && 3.0 <= s.quantiles[0].ci.high;
    mean_width += (s.mean_ci.high - s.mean_ci.low) / experiments;
    CHECK(s.mean_ci.low < s.mean);
    CHECK(s.mean < s.mean_ci.high);
  }
  const double denom = experiments;
  INFO("coverage: mean " << mean_hits / denom << ", sd " << sd_hits / denom << ", median "
                         << median_hits / denom);
  CHECK(mean_hits / denom == Approx(0.95).margin(0.06));
  CHECK(median_hits / denom == Approx(0.95).margin(0.06));
  CHECK(sd_hits / denom == Approx(0.93).margin(0.07));
  // Width of the interval for the mean: 2 z_0.975 sigma / sqrt(n) = 0.784.
  CHECK(mean_width == Approx(2 * 1.959964 * 2.0 / std::sqrt(100.0)).epsilon(0.08));
}

TEST_CASE("the bootstrap interval of a mean stays within the data's range", "[uq][statistics]") {
  // A 0/1 output with few ones: resamples with no one have mean exactly 0, which the centred sums
  // rounded to -3.5e-18.
  std::vector<double> values(200);
  for (std::size_t rare : {std::size_t{1}, std::size_t{3}}) {
    std::fill(values.begin(), values.end(), 0.0);
    for (std::size_t i = 0; i < rare; ++i) values[i * 53] = 1.0;
    const summary s = summarize(values, {.bootstrap_resamples = 2000});
    INFO(rare << " ones: [" << s.mean_ci.low << ", " << s.mean_ci.high << "]");
    CHECK(s.mean_ci.low >= 0.0);
    CHECK(s.mean_ci.high <= 1.0);
    CHECK(s.mean_ci.low <= s.mean);
  }
}

TEST_CASE("bootstrap intervals do not depend on the thread count", "[uq][statistics]") {
  const auto values = normal_sample(3000, 0.0, 1.0, 5);
  const summary_options options{.bootstrap_resamples = 500, .seed = 12};
  summary serial;
  {
    const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    serial = summarize(values, options);
  }
  const summary parallel = summarize(values, options);
  CHECK(identical(serial, parallel));
  // The seed matters.
  summary_options other = options;
  other.seed = 13;
  CHECK(summarize(values, other).mean_ci.low != serial.mean_ci.low);
}

TEST_CASE("bad summary options say which field, its value and what is allowed",
          "[uq][statistics]") {
  const std::vector<double> v = {1.0, 2.0};
  CHECK_THROWS_WITH(summarize(v, {.confidence = 1.0}),
                    Contains("confidence = 1: must be in (0, 1)"));
  CHECK_THROWS_WITH(summarize(v, {.probabilities = {0.5, -0.1}}),
                    Contains("probabilities = -0.1: must be in [0, 1]"));
  CHECK_THROWS_WITH(summarize(v, {.bootstrap_resamples = 5}),
                    Contains("bootstrap_resamples = 5: must be 0 (no intervals) or in [10, 1e7]"));
  try {
    summarize(v, {.confidence = -0.5});
    FAIL("no exception");
  } catch (const contactuq::parameter_error& e) {
    CHECK(e.field() == "confidence");
  }
}
