// Input rankings: Spearman, PRCC and SRC against closed forms and an independent computation.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "contactuq/uq/random.hpp"
#include "contactuq/uq/rankings.hpp"

namespace uq = contactuq::uq;

namespace {

Eigen::MatrixXd normal_inputs(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  uq::engine e = uq::make_engine(seed, uq::stream_purpose::monte_carlo_row, 0);
  boost::random::normal_distribution<double> z;
  Eigen::MatrixXd x(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) x(i, j) = z(e);
  return x;
}

// Pearson correlation of two vectors.
double correlation(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const Eigen::VectorXd ac = a.array() - a.mean(), bc = b.array() - b.mean();
  return ac.dot(bc) / std::sqrt(ac.squaredNorm() * bc.squaredNorm());
}

}  // namespace

TEST_CASE("ranks: ties share their average rank", "[uq][rankings]") {
  const std::vector<double> v = {3.0, 1.0, 3.0, 2.0};
  CHECK(uq::ranks(v) == std::vector<double>{3.5, 1.0, 3.5, 2.0});
}

TEST_CASE("Spearman's rho with ties equals SciPy's value", "[uq][rankings]") {
  Eigen::MatrixXd x(5, 1);
  x << 1, 2, 3, 4, 5;
  const std::vector<double> y = {5, 6, 7, 8, 7};
  const auto r = uq::rank_inputs(x, y, {.bootstrap_resamples = 0});
  CHECK(r.spearman[0].value == Approx(0.8207826816681233).epsilon(1e-12));  // scipy.stats.spearmanr
  CHECK(std::isnan(r.spearman[0].ci.low));
}

TEST_CASE("SRC of a linear model are its standardized coefficients, R^2 = 1", "[uq][rankings]") {
  const Eigen::MatrixXd x = normal_inputs(4000, 3, 7);
  const Eigen::VectorXd yv = 2.0 * x.col(0) + 1.0 * x.col(1) + 0.0 * x.col(2);
  const std::vector<double> y(yv.data(), yv.data() + yv.size());
  const auto r = uq::rank_inputs(x, y, {.bootstrap_resamples = 100});
  CHECK(r.used == 4000);
  CHECK(r.r2.value == Approx(1.0).epsilon(1e-12));
  // SRC_j = b_j sd(x_j) / sd(y): with the sample moments, exactly b_j sd_j / sd_y.
  const auto sd = [](const Eigen::VectorXd& v) {
    return std::sqrt((v.array() - v.mean()).square().sum() / static_cast<double>(v.size() - 1));
  };
  CHECK(r.src[0].value == Approx(2.0 * sd(x.col(0)) / sd(yv)).epsilon(1e-9));
  CHECK(r.src[1].value == Approx(1.0 * sd(x.col(1)) / sd(yv)).epsilon(1e-9));
  CHECK(std::abs(r.src[2].value) < 1e-9);
  // Ordering and intervals: x1 before x2, x3 indistinguishable from zero.
  CHECK(r.spearman[0].value > r.spearman[1].value);
  CHECK(r.prcc[0].value > 0.9);
  CHECK(r.prcc[1].value > 0.9);
  CHECK(std::abs(r.prcc[2].value) < 0.05);
  CHECK((r.spearman[2].ci.low < 0.0 && r.spearman[2].ci.high > 0.0));
  for (const auto* e : {&r.spearman[0], &r.prcc[0], &r.src[0]})
    CHECK((e->ci.low <= e->value && e->value <= e->ci.high));
}

TEST_CASE("PRCC equals the correlation of rank residuals after regressing out the other inputs", "[uq][rankings]") {
  const Eigen::MatrixXd x = normal_inputs(500, 3, 11);
  Eigen::VectorXd yv(500);
  for (Eigen::Index i = 0; i < 500; ++i) yv(i) = std::exp(x(i, 0)) + 0.3 * x(i, 1) * x(i, 1) - 0.5 * x(i, 2);
  const std::vector<double> y(yv.data(), yv.data() + yv.size());
  const auto r = uq::rank_inputs(x, y, {.bootstrap_resamples = 0});
  Eigen::MatrixXd ranked(500, 4);
  for (Eigen::Index c = 0; c < 3; ++c) {
    const Eigen::VectorXd col = x.col(c);
    const auto rc = uq::ranks(std::span<const double>(col.data(), 500));
    ranked.col(c) = Eigen::Map<const Eigen::VectorXd>(rc.data(), 500);
  }
  const auto ry = uq::ranks(y);
  ranked.col(3) = Eigen::Map<const Eigen::VectorXd>(ry.data(), 500);
  for (Eigen::Index j = 0; j < 3; ++j) {
    Eigen::MatrixXd z(500, 3);
    z.col(0).setOnes();
    Eigen::Index c = 1;
    for (Eigen::Index k = 0; k < 3; ++k)
      if (k != j) z.col(c++) = ranked.col(k);
    const auto qr = z.colPivHouseholderQr();
    const Eigen::VectorXd ex = ranked.col(j) - z * qr.solve(Eigen::VectorXd(ranked.col(j)));
    const Eigen::VectorXd ey = ranked.col(3) - z * qr.solve(Eigen::VectorXd(ranked.col(3)));
    CHECK(r.prcc[static_cast<std::size_t>(j)].value == Approx(correlation(ex, ey)).epsilon(1e-9));
    CHECK(r.spearman[static_cast<std::size_t>(j)].value ==
          Approx(correlation(ranked.col(j), ranked.col(3))).epsilon(1e-12));
  }
  CHECK(r.prcc[0].value > 0.9);   // exp(x1) dominates
  CHECK(r.prcc[2].value < -0.3);  // -0.5 x3: negative
}

TEST_CASE("rankings: constant inputs and too few rows give NaN, non-finite rows are left out", "[uq][rankings]") {
  Eigen::MatrixXd x = normal_inputs(50, 2, 3);
  x.col(1).setConstant(4.0);
  std::vector<double> y(50);
  for (int i = 0; i < 50; ++i) y[static_cast<std::size_t>(i)] = x(i, 0);
  y[7] = std::nan("");
  const auto r = uq::rank_inputs(x, y, {.bootstrap_resamples = 20});
  CHECK(r.used == 49);
  CHECK(r.spearman[0].value == Approx(1.0));
  CHECK(std::isnan(r.spearman[1].value));
  CHECK(std::isnan(r.prcc[0].value));
  CHECK(std::isnan(r.src[1].value));
  Eigen::MatrixXd few = normal_inputs(3, 2, 5);
  const auto f = uq::rank_inputs(few, std::vector<double>{1, 2, 3}, {.bootstrap_resamples = 0});
  CHECK(std::isnan(f.prcc[0].value));
}
