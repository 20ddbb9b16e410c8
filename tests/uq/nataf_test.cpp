#include "contactuq/uq/nataf.hpp"

#include <catch2/catch.hpp>

#include <boost/math/distributions/normal.hpp>

#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {
double phi_cdf(double z) { return boost::math::cdf(boost::math::normal(), z); }
}  // namespace

TEST_CASE("from_standard_normal is F^-1(Phi(z)) for every continuous distribution, in both tails", "[nataf]") {
  const std::vector<uq::distribution> all{uq::make_normal(2, 0.5),          uq::make_lognormal_from_moments(1, 0.5),
                                          uq::make_uniform(-1, 3),          uq::make_truncated_normal(0, 1, -1, 2),
                                          uq::make_triangular(0, 1, 4),     uq::make_beta(2, 5, 0, 10),
                                          uq::make_weibull(1.7, 3)};
  for (const auto& d : all)
    for (double z : {-6.0, -2.5, -0.3, 0.0, 0.4, 1.5, 3.0, 6.0}) {
      INFO(d.describe() << " z = " << z);
      const double x = d.from_standard_normal(z);
      REQUIRE(std::isfinite(x));
      CHECK(d.cdf(x) == Approx(phi_cdf(z)).epsilon(1e-7).margin(1e-12));
    }
  // The upper tail is not rounded to the end of the support: z = 9 is above z = 8.
  for (const auto& d : {uq::make_normal(0, 1), uq::make_lognormal_from_moments(1, 0.5), uq::make_weibull(2, 1)})
    CHECK(d.from_standard_normal(9.0) > d.from_standard_normal(8.0));
  CHECK_THROWS_AS(uq::make_discrete({1, 2}, {0.5, 0.5}).from_standard_normal(0.0), parameter_error);
}

TEST_CASE("Nataf: Pearson correlation of lognormals has the closed-form copula correlation", "[nataf]") {
  // Liu & Der Kiureghian (1986), Table 4: for lognormals rho0 = ln(1 + rho d1 d2) / (z1 z2), with
  // d the coefficients of variation and z^2 = ln(1 + d^2).
  const auto ln = uq::make_lognormal_from_moments(1.0, 0.5);
  const double z2 = std::log(1.25);
  for (double rho : {-0.6, -0.2, 0.3, 0.7}) {
    const double exact = std::log(1 + rho * 0.25) / z2;
    CHECK(uq::normal_correlation_for_pearson(ln, ln, rho) == Approx(exact).margin(1e-8));
  }
  // Normal marginals: rho0 = rho.
  CHECK(uq::normal_correlation_for_pearson(uq::make_normal(0, 1), uq::make_normal(5, 2), 0.42) ==
        Approx(0.42).margin(1e-10));
  // Two uniforms: rho = (6 / pi) asin(rho0 / 2).
  const auto u = uq::make_uniform(0, 1);
  CHECK(uq::pearson_of_normal_correlation(u, u, 0.5) == Approx(6 / std::numbers::pi * std::asin(0.25)).margin(1e-4));
}

TEST_CASE("Nataf: lognormals X1/X2 with Pearson 0.3 give ln(X1/X2) the standard deviation 0.549223", "[nataf]") {
  const auto ln = uq::make_lognormal_from_moments(1.0, 0.5);
  const uq::nataf_transform t({ln, ln}, {{0, 1, 0.3, uq::correlation_kind::pearson}}, {"X1", "X2"});
  const double r0 = t.normal_correlation()(0, 1), z = std::sqrt(std::log(1.25));
  CHECK(std::sqrt(2 * z * z * (1 - r0)) == Approx(0.549223).margin(2e-6));
  // u = (0, 0) is the medians; u = (1, 0) moves X1 by one sd of ln X1, X2 by r0 of its.
  Eigen::MatrixXd u(2, 2);
  u << 0, 0, 1, 0;
  const Eigen::MatrixXd x = t.to_physical(u);
  const double mu = -0.5 * z * z;
  CHECK(x(0, 0) == Approx(std::exp(mu)));
  CHECK(x(1, 0) == Approx(std::exp(mu + z)));
  CHECK(x(1, 1) == Approx(std::exp(mu + r0 * z)));
}

TEST_CASE("Nataf: Spearman maps by 2 sin(pi rho / 6), normal is taken as is", "[nataf]") {
  const auto w = uq::make_weibull(2, 1);
  const uq::nataf_transform s({w, w, w}, {{0, 1, 0.5, uq::correlation_kind::spearman},
                                          {1, 2, -0.3, uq::correlation_kind::normal}});
  CHECK(s.normal_correlation()(0, 1) == Approx(2 * std::sin(std::numbers::pi * 0.5 / 6)));
  CHECK(s.normal_correlation()(2, 1) == -0.3);
  CHECK(s.normal_correlation()(0, 2) == 0.0);
}

TEST_CASE("Nataf refuses what it cannot transform, naming the inputs", "[nataf]") {
  const auto n = uq::make_normal(0, 1), ln = uq::make_lognormal_from_moments(1, 2);
  CHECK_THROWS_WITH(uq::nataf_transform({n, uq::make_discrete({0, 1}, {0.5, 0.5})}, {}, {"a", "b"}),
                    Contains("b") && Contains("discrete"));
  // Strongly skewed lognormals cannot reach a Pearson correlation of -0.9.
  CHECK_THROWS_WITH(uq::nataf_transform({ln, ln}, {{0, 1, -0.9, uq::correlation_kind::pearson}}, {"a", "b"}),
                    Contains("cannot be reached") && Contains("a and b"));
  CHECK_THROWS_WITH(uq::nataf_transform({n, n, n}, {{0, 1, 0.9, uq::correlation_kind::normal},
                                                    {1, 2, 0.9, uq::correlation_kind::normal},
                                                    {0, 2, -0.9, uq::correlation_kind::normal}}),
                    Contains("positive definite"));
  CHECK_THROWS_WITH(uq::nataf_transform({n, n}, {{0, 1, 0.2, uq::correlation_kind::normal},
                                                 {1, 0, 0.3, uq::correlation_kind::normal}}),
                    Contains("twice"));
  CHECK_THROWS_AS(uq::nataf_transform({n, n}, {{0, 1, 1.0, uq::correlation_kind::normal}}), parameter_error);
}
