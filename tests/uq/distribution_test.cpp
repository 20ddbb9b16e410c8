#include "contactuq/uq/distribution.hpp"

#include <algorithm>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

constexpr double pi = std::numbers::pi;
constexpr double inf = std::numeric_limits<double>::infinity();

// Standard normal density and CDF from the C library, independent of Boost.
double phi(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * pi); }
double big_phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// One distribution of each continuous kind, with shapes away from the textbook special cases.
std::vector<distribution> continuous_examples() {
  return {make_normal(0.21, 0.02),
          make_lognormal(2.0, 0.5),
          make_lognormal_from_moments(3.0, 1.5),
          make_uniform(-2.0, 5.0),
          make_truncated_normal(1.0, 2.0, -0.5, 4.0),
          make_truncated_normal(0.0, 1.0, 0.0, inf),
          make_truncated_normal(0.0, 1.0, -inf, -1.0),
          make_truncated_normal(0.0, 1.0, 3.0, 4.0),
          make_triangular(1.0, 2.0, 4.0),
          make_triangular(0.0, 0.0, 1.0),
          make_beta(2.0, 3.0, 10.0, 20.0),
          make_beta(0.7, 1.8, -1.0, 1.0),
          make_weibull(1.0, 2.0),
          make_weibull(2.0, 1.0),
          make_weibull(0.8, 3.0)};
}

}  // namespace

TEST_CASE("moments match the closed forms of each distribution", "[uq][distribution]") {
  // Reference values from the textbook formulas (see distribution.hpp), computed here.
  SECTION("normal") {
    const auto d = make_normal(0.21, 0.02);
    CHECK(d.mean() == 0.21);
    CHECK(d.stddev() == 0.02);
  }
  SECTION("lognormal by median: mean M e^(S^2/2), sd = mean sqrt(e^(S^2) - 1)") {
    const auto d = make_lognormal(2.0, 0.5);
    const double mean = 2.0 * std::exp(0.125);
    CHECK(d.mean() == Approx(mean).epsilon(1e-14));
    CHECK(d.stddev() == Approx(mean * std::sqrt(std::exp(0.25) - 1.0)).epsilon(1e-14));
    CHECK(d.quantile(0.5) == Approx(2.0).epsilon(1e-14));  // the median is the median
  }
  SECTION("lognormal by moments reproduces the moments it was given") {
    const auto d = make_lognormal_from_moments(3.0, 1.5);
    CHECK(d.mean() == Approx(3.0).epsilon(1e-14));
    CHECK(d.stddev() == Approx(1.5).epsilon(1e-14));
  }
  SECTION("uniform: (a+b)/2, (b-a)/sqrt(12)") {
    const auto d = make_uniform(2.0, 5.0);
    CHECK(d.mean() == 3.5);
    CHECK(d.stddev() == Approx(3.0 / std::sqrt(12.0)).epsilon(1e-15));
  }
  SECTION("truncated normal on [0, inf) is the half-normal: sqrt(2/pi), sqrt(1 - 2/pi)") {
    const auto d = make_truncated_normal(0.0, 1.0, 0.0, inf);
    CHECK(d.mean() == Approx(std::sqrt(2 / pi)).epsilon(1e-14));
    CHECK(d.stddev() == Approx(std::sqrt(1 - 2 / pi)).epsilon(1e-14));
  }
  SECTION("truncated normal on [-1, 1]: var = 1 - 2 phi(1)/(Phi(1) - Phi(-1))") {
    const auto d = make_truncated_normal(5.0, 2.0, 3.0, 7.0);
    CHECK(d.mean() == Approx(5.0).epsilon(1e-14));
    const double var = 1.0 - 2.0 * phi(1.0) / (big_phi(1.0) - big_phi(-1.0));
    CHECK(d.stddev() == Approx(2.0 * std::sqrt(var)).epsilon(1e-13));
    CHECK(var == Approx(0.291125094772793).epsilon(1e-12));  // scipy.stats.truncnorm(-1, 1)
  }
  SECTION("truncated normal, asymmetric interval: general formula") {
    const double m = 1.0, s = 2.0, a = -0.5, b = 4.0;
    const double al = (a - m) / s, be = (b - m) / s, z = big_phi(be) - big_phi(al);
    const double r = (phi(al) - phi(be)) / z;
    const auto d = make_truncated_normal(m, s, a, b);
    CHECK(d.mean() == Approx(m + s * r).epsilon(1e-13));
    CHECK(d.stddev() ==
          Approx(s * std::sqrt(1 + (al * phi(al) - be * phi(be)) / z - r * r)).epsilon(1e-13));
  }
  SECTION("triangular: (a+b+c)/3, (a^2+b^2+c^2-ab-ac-bc)/18") {
    const auto d = make_triangular(1.0, 2.0, 4.0);
    CHECK(d.mean() == Approx(7.0 / 3.0).epsilon(1e-15));
    CHECK(d.stddev() == Approx(std::sqrt(7.0 / 18.0)).epsilon(1e-15));
  }
  SECTION("beta(2, 3) on [10, 20]: 10 + 10 * 2/5, 10 * sqrt(6/(25 * 6))") {
    const auto d = make_beta(2.0, 3.0, 10.0, 20.0);
    CHECK(d.mean() == Approx(14.0).epsilon(1e-15));
    CHECK(d.stddev() == Approx(2.0).epsilon(1e-15));
  }
  SECTION("weibull with shape 1 is exponential: mean = sd = scale") {
    const auto d = make_weibull(1.0, 2.0);
    CHECK(d.mean() == Approx(2.0).epsilon(1e-14));
    CHECK(d.stddev() == Approx(2.0).epsilon(1e-14));
  }
  SECTION("weibull with shape 2 is Rayleigh: mean l sqrt(pi)/2, var l^2 (4 - pi)/4") {
    const auto d = make_weibull(2.0, 3.0);
    CHECK(d.mean() == Approx(3.0 * std::sqrt(pi) / 2).epsilon(1e-14));
    CHECK(d.stddev() == Approx(3.0 * std::sqrt((4 - pi) / 4)).epsilon(1e-13));
  }
  SECTION("discrete: sum p x, sum p x^2 - mean^2") {
    const auto d = make_discrete({5.0, 1.0, 2.0}, {0.3, 0.2, 0.5});
    CHECK(d.mean() == Approx(2.7).epsilon(1e-15));
    CHECK(d.stddev() == Approx(std::sqrt(0.2 + 2.0 + 7.5 - 2.7 * 2.7)).epsilon(1e-14));
    const auto equal = make_discrete({1.0, 2.0, 3.0, 4.0});
    CHECK(equal.mean() == Approx(2.5).epsilon(1e-15));
    CHECK(equal.stddev() == Approx(std::sqrt(1.25)).epsilon(1e-15));
  }
}

TEST_CASE("moments agree with the quantile function: E[X] = int_0^1 Q(u) du",
          "[uq][distribution]") {
  // The quantile comes from Boost, the moments from the closed forms; integrating one must
  // give the other.
  const auto d = GENERATE(from_range(continuous_examples()));
  INFO(d.describe());
  boost::math::quadrature::tanh_sinh<double> integrator;
  const auto q = [&](double u) { return u > 0.0 && u < 1.0 ? d.quantile(u) : 0.0; };
  const double mean = integrator.integrate(q, 0.0, 1.0, 1e-12);
  const double var = integrator.integrate(
      [&](double u) {
        const double x = q(u) - mean;
        return u > 0.0 && u < 1.0 ? x * x : 0.0;
      },
      0.0, 1.0, 1e-12);
  CHECK(mean == Approx(d.mean()).epsilon(1e-8).margin(1e-12));
  CHECK(std::sqrt(var) == Approx(d.stddev()).epsilon(1e-7));
}

TEST_CASE("quantile inverts the CDF and the density is its derivative", "[uq][distribution]") {
  const auto d = GENERATE(from_range(continuous_examples()));
  const double u = GENERATE(1e-6, 0.001, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999);
  INFO(d.describe() << " u = " << u);
  const double x = d.quantile(u);
  REQUIRE(std::isfinite(x));
  // x is known to within its last bits only: allow the change of F over a few ulps of x.
  const double ulp = std::nextafter(std::abs(x), inf) - std::abs(x);
  CHECK(std::abs(d.cdf(x) - u) <= 1e-10 * u + 4 * ulp * d.pdf(x) + 1e-15);
  CHECK(d.quantile(d.cdf(x)) == Approx(x).epsilon(1e-9).margin(1e-14));
  // pdf = dF/dx, central difference with a step small against the distance to either end
  // (skipped where x is so close to an end that the step would be a few ulps).
  const double room = std::min(x - d.lower(), d.upper() - x);
  if (room > 1e-4 * d.stddev()) {
    const double h = 1e-4 * std::min(d.stddev(), room);
    const double slope = (d.cdf(x + h) - d.cdf(x - h)) / (2 * h);
    CHECK(d.pdf(x) == Approx(slope).epsilon(1e-5));
  }
}

TEST_CASE("discrete quantile inverts the CDF at every support point", "[uq][distribution]") {
  const auto d = make_discrete({0.3, -1.0, 2.5, 7.0}, {1.0, 2.0, 0.5, 0.5});
  CHECK(d.values() == std::vector<double>{-1.0, 0.3, 2.5, 7.0});
  CHECK(d.probabilities()[0] == Approx(0.5));
  for (const double x : d.values()) CHECK(d.quantile(d.cdf(x)) == x);
  CHECK(d.cdf(-1.5) == 0.0);
  CHECK(d.cdf(0.0) == Approx(0.5));
  CHECK(d.cdf(7.0) == 1.0);
  CHECK(d.pdf(2.5) == Approx(0.125));
  CHECK(d.pdf(2.4) == 0.0);
  // F(-1) = 0.5: u just above jumps to the next value.
  CHECK(d.quantile(0.5) == -1.0);
  CHECK(d.quantile(std::nextafter(0.5, 1.0)) == 0.3);
}

TEST_CASE("truncated normal samples stay inside the bounds", "[uq][distribution]") {
  const auto [m, s, lo, hi] = GENERATE(table<double, double, double, double>({
      {0.0, 1.0, -0.5, 0.5},
      {0.0, 1.0, 5.0, 6.0},    // far in the upper tail
      {0.0, 1.0, -9.0, -8.5},  // far in the lower tail
      {0.21, 0.05, 0.0, inf},  // friction coefficient kept non-negative
      {10.0, 0.001, -inf, 9.9999},
  }));
  const auto d = make_truncated_normal(m, s, lo, hi);
  INFO(d.describe());
  for (const double u : {0x1.0p-54, 1e-300, 1e-12, 0.25, 0.5, 0.75, 1.0 - 1e-12, 1.0 - 0x1.0p-53}) {
    const double x = d.quantile(u);
    CHECK(x >= lo);
    CHECK(x <= hi);
  }
  const Eigen::MatrixXd u = unit_design(2000, 1, {.kind = design_kind::monte_carlo, .seed = 9});
  double previous = -inf;
  std::vector<double> sorted(u.data(), u.data() + u.size());
  std::sort(sorted.begin(), sorted.end());
  for (const double v : sorted) {
    const double x = d.quantile(v);
    CHECK(x >= lo);
    CHECK(x <= hi);
    CHECK(x >= previous);  // monotone, even deep in a tail
    previous = x;
  }
  // The truncated density integrates to 1 over [lo, hi] (cut at 40 sd where a bound is
  // infinite), and is zero outside.
  boost::math::quadrature::tanh_sinh<double> integrator;
  const double a = std::max(lo, m - 40 * s), b = std::min(hi, m + 40 * s);
  CHECK(integrator.integrate([&](double x) { return d.pdf(x); }, a, b, 1e-12) ==
        Approx(1.0).epsilon(1e-10));
  CHECK(d.pdf(std::nextafter(lo, -inf)) == 0.0);
  CHECK(d.pdf(std::nextafter(hi, inf)) == 0.0);
}

TEST_CASE("discrete weights are reproduced by sample frequencies", "[uq][distribution]") {
  const auto d = make_discrete({1.0, 2.0, 5.0}, {0.2, 0.5, 0.3});
  const std::vector<double> p = {0.2, 0.5, 0.3};
  SECTION("Monte Carlo: within 5 binomial standard deviations") {
    const std::size_t n = 20000;
    const Eigen::MatrixXd x =
        map_to_inputs(unit_design(n, 1, {.kind = design_kind::monte_carlo, .seed = 3}),
                      std::vector<distribution>{d});
    for (std::size_t k = 0; k < 3; ++k) {
      const double freq = static_cast<double>((x.array() == d.values()[k]).count()) / n;
      CHECK(std::abs(freq - p[k]) < 5 * std::sqrt(p[k] * (1 - p[k]) / n));
    }
    CHECK((x.array() == 1.0 || x.array() == 2.0 || x.array() == 5.0).all());
  }
  SECTION("Latin hypercube: counts within 1 of N p, one point per stratum") {
    const std::size_t n = 1001;
    const Eigen::MatrixXd x =
        map_to_inputs(unit_design(n, 1, {.seed = 4}), std::vector<distribution>{d});
    for (std::size_t k = 0; k < 3; ++k) {
      const double count = static_cast<double>((x.array() == d.values()[k]).count());
      CHECK(std::abs(count - n * p[k]) <= 1.0 + 1e-9);
    }
  }
}

TEST_CASE("parameters and names round-trip through make_distribution", "[uq][distribution]") {
  auto all = continuous_examples();
  all.push_back(make_discrete({5.0, 1.0, 2.0}, {0.3, 0.2, 0.5}));
  all.push_back(make_discrete({4.0, 3.0}));
  const auto d = GENERATE_COPY(from_range(all));
  INFO(d.describe());
  CHECK(make_distribution(d.name(), to_map(d.parameters())) == d);
}

TEST_CASE("describe gives one readable line", "[uq][distribution]") {
  CHECK(make_normal(0.21, 0.02).describe() == "normal(mean=0.21, sd=0.02)");
  CHECK(make_lognormal_from_moments(3, 1.5).describe() == "lognormal(mean=3, sd=1.5)");
  CHECK(make_truncated_normal(0.21, 0.05, 0, inf).describe() ==
        "truncated_normal(mean=0.21, sd=0.05, low=0, high=inf)");
  CHECK(make_beta(2, 3, 0.1, 0.2).describe() == "beta(alpha=2, beta=3, low=0.1, high=0.2)");
  CHECK(make_discrete({1, 2}, {1, 3}).describe() == "discrete(values=[1, 2], weights=[1, 3])");
  CHECK(make_discrete({1, 2}).describe() == "discrete(values=[1, 2])");
  CHECK(make_weibull(2, 3).name() == "weibull");
  CHECK(make_weibull(2, 3).parameters() == parameter_list{{"shape", 2.0}, {"scale", 3.0}});
  CHECK(make_distribution("lognormal", {{"median", 2.0}, {"sigma_log", 0.1}}).kind() ==
        distribution_kind::lognormal);
  CHECK(known_distribution_kinds() ==
        "normal, lognormal, uniform, truncated_normal, triangular, beta, weibull, discrete");
}

TEST_CASE("bad distribution parameters say which parameter, its value and what is allowed",
          "[uq][distribution]") {
  using params = std::map<std::string, double>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto [kind, p, field,
              message] = GENERATE_COPY(table<std::string, params, std::string, std::string>({
      {"normal", {{"mean", 0.2}, {"sd", -0.1}}, "sd", "normal: sd = -0.1: must be > 0 and finite"},
      {"normal", {{"mean", nan}, {"sd", 0.1}}, "mean", "normal: mean = nan: must be finite"},
      {"normal", {{"mean", 0.2}}, "sd", "normal: missing parameter 'sd'; normal takes mean, sd"},
      {"normal",
       {{"mean", 0.2}, {"sd", 0.1}, {"sigma", 0.1}},
       "sigma",
       "normal: unexpected parameter 'sigma' = 0.1; normal takes mean, sd"},
      {"gauss",
       {{"mean", 0.2}},
       "kind",
       "unknown distribution 'gauss'; known distributions: normal, lognormal, uniform, "
       "truncated_normal, triangular, beta, weibull, discrete"},
      {"lognormal",
       {{"median", -1.0}, {"sigma_log", 0.1}},
       "median",
       "lognormal: median = -1: must be > 0 and finite"},
      {"lognormal",
       {{"median", 1.0}, {"sd", 0.1}},
       "sd",
       "lognormal: unexpected parameter 'sd' = 0.1; lognormal takes either median, sigma_log "
       "or mean, sd"},
      {"lognormal",
       {{"mean", 1.0}, {"sd", 0.0}},
       "sd",
       "lognormal: sd = 0: must be > 0 and finite"},
      {"uniform", {{"low", 2.0}, {"high", 1.0}}, "high", "uniform: high = 1: must be > low = 2"},
      {"uniform", {{"low", -inf}, {"high", 1.0}}, "low", "uniform: low = -inf: must be finite"},
      {"truncated_normal",
       {{"mean", 0.0}, {"sd", 1.0}, {"low", 40.0}, {"high", 50.0}},
       "low",
       "truncated_normal: [low, high] = [40, 50] holds probability 0 of normal(mean=0, sd=1): "
       "must hold more than 1e-300"},
      {"truncated_normal",
       {{"mean", 0.0}, {"sd", 1.0}, {"low", 1.0}, {"high", 1.0}},
       "high",
       "truncated_normal: high = 1: must be > low = 1"},
      {"truncated_normal",
       {{"mean", 0.0}, {"sd", 1.0}, {"low", nan}, {"high", 1.0}},
       "low",
       "truncated_normal: low = nan: must be a number or -inf"},
      {"triangular",
       {{"low", 0.0}, {"mode", 3.0}, {"high", 2.0}},
       "mode",
       "triangular: mode = 3: must be in [low, high] = [0, 2]"},
      {"beta",
       {{"alpha", 0.0}, {"beta", 1.0}, {"low", 0.0}, {"high", 1.0}},
       "alpha",
       "beta: alpha = 0: must be > 0 and finite"},
      {"beta",
       {{"alpha", 1.0}, {"beta", 1.0}, {"low", 0.0}},
       "high",
       "beta: missing parameter 'high'; beta takes alpha, beta, low, high"},
      {"weibull",
       {{"shape", 2.0}, {"scale", inf}},
       "scale",
       "weibull: scale = inf: must be > 0 and finite"},
      {"discrete",
       {{"value_0", 1.0}, {"value_1", 2.0}, {"value_2", 1.0}},
       "value_2",
       "discrete: value_2 = 1: must be different from value_0 (values must be distinct)"},
      {"discrete",
       {{"value_0", 1.0}, {"value_2", 2.0}},
       "value_1",
       "discrete: missing parameter 'value_1' (value_2 is given)"},
      {"discrete",
       {{"value_0", 1.0}, {"value_1", 2.0}, {"weight_0", 1.0}},
       "weight_1",
       "discrete: missing parameter 'weight_1': give a weight for every value or for none"},
      {"discrete",
       {{"value_0", 1.0}, {"weight_0", 1.0}, {"weight_1", 1.0}},
       "weight_1",
       "discrete: unexpected parameter 'weight_1' = 1: there is no value_1"},
      {"discrete",
       {{"value_0", 1.0}, {"value_1", 2.0}, {"weight_0", -1.0}, {"weight_1", 1.0}},
       "weight_0",
       "discrete: weight_0 = -1: must be >= 0 and finite"},
      {"discrete",
       {{"value_0", 1.0}, {"weight_0", 0.0}},
       "weights",
       "discrete: weights sum to 0: the sum must be > 0 and finite"},
      {"discrete", {{"value_01", 1.0}}, "value_01", "discrete: unexpected parameter 'value_01'"},
      {"discrete", {}, "value_0", "discrete: missing parameter 'value_0'"},
  }));
  INFO(kind);
  try {
    make_distribution(kind, p);
    FAIL("no exception");
  } catch (const contactuq::parameter_error& e) {
    CHECK_THAT(e.what(), Contains(message));
    CHECK(e.field() == field);
  }
}

TEST_CASE("factory and evaluation errors", "[uq][distribution]") {
  CHECK_THROWS_WITH(make_discrete({}), Contains("no values given"));
  CHECK_THROWS_WITH(make_discrete({1, 2, 3}, {1, 2}),
                    Contains("2 weights for 3 values: give one weight per value"));
  CHECK_THROWS_WITH(make_normal(0, 1).quantile(1.5),
                    Contains("normal quantile: u = 1.5: must be in [0, 1]"));
  CHECK_THROWS_AS(make_normal(0, 1).quantile(std::numeric_limits<double>::quiet_NaN()),
                  contactuq::parameter_error);
}
