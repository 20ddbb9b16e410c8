#include "contactuq/uq/rank_correlation.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/distribution.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

Eigen::MatrixXd matrix(std::initializer_list<std::initializer_list<double>> rows) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()),
                    static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : rows) {
    Eigen::Index j = 0;
    for (const double v : row) m(i, j++) = v;
    ++i;
  }
  return m;
}

std::vector<double> sorted_column(const Eigen::MatrixXd& x, Eigen::Index j) {
  std::vector<double> v(x.col(j).data(), x.col(j).data() + x.rows());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("Spearman matrix matches the rank formula and a published value", "[uq][rank]") {
  SECTION("no ties: rho = 1 - 6 sum d_i^2 / (n (n^2 - 1))") {
    // Ranks of y are those of x with neighbours swapped: d = (1, -1, 1, -1, 0, 0, 1, -1).
    const Eigen::MatrixXd x = matrix({{1.0, 20.0},
                                      {2.0, 10.0},
                                      {3.0, 40.0},
                                      {4.0, 30.0},
                                      {5.0, 50.0},
                                      {6.0, 60.0},
                                      {7.0, 80.0},
                                      {8.0, 70.0}});
    const double rho = 1.0 - 6.0 * 6.0 / (8.0 * 63.0);
    const Eigen::MatrixXd s = spearman_matrix(x);
    CHECK(s(0, 1) == Approx(rho).epsilon(1e-14));
    CHECK(s(1, 0) == s(0, 1));
    CHECK(s(0, 0) == 1.0);
  }
  SECTION("ties take average ranks (scipy.stats.spearmanr gives -0.1323529411764706)") {
    const Eigen::MatrixXd x =
        matrix({{3.1, 1.0}, {-0.4, 5.0}, {2.2, 2.0}, {7.5, 2.0}, {2.2, 8.0}, {0.0, 0.0}});
    CHECK(spearman_matrix(x)(0, 1) == Approx(-0.1323529411764706).epsilon(1e-13));
  }
  SECTION("monotone maps give +-1, a constant column NaN") {
    Eigen::MatrixXd x(20, 4);
    for (Eigen::Index i = 0; i < 20; ++i) {
      const double t = static_cast<double>(i) / 19.0;
      x.row(i) << t, std::exp(5 * t), -t * t * t, 2.0;
    }
    const Eigen::MatrixXd s = spearman_matrix(x);
    CHECK(s(0, 1) == Approx(1.0).epsilon(1e-14));
    CHECK(s(0, 2) == Approx(-1.0).epsilon(1e-14));
    CHECK(std::isnan(s(0, 3)));
    CHECK(s(3, 3) == 1.0);
  }
}

TEST_CASE("Iman-Conover reaches the requested rank correlations and keeps the marginals",
          "[uq][rank]") {
  const Eigen::MatrixXd target = matrix(
      {{1.0, 0.7, -0.4, 0.0}, {0.7, 1.0, -0.2, 0.3}, {-0.4, -0.2, 1.0, 0.0}, {0.0, 0.3, 0.0, 1.0}});
  const std::size_t n = GENERATE(200, 2000, 20000);
  const std::uint64_t seed = GENERATE(1, 2, 3);
  const Eigen::MatrixXd u = unit_design(n, 4, {.seed = seed});
  const Eigen::MatrixXd c = impose_rank_correlation(u, target, seed);
  const Eigen::MatrixXd reached = spearman_matrix(c);
  INFO("N = " << n << ", seed " << seed << ", reached\n" << reached);
  // The Spearman correlation of an independent sample of N scatters by about
  // (1 - rho^2)/sqrt(N); Iman-Conover matches the score correlations exactly and lands within
  // twice that. At N = 20000 this also requires the normal-score correction
  // r = 2 sin(pi rho/6): without it rho = 0.7 would come out near (6/pi) asin(0.35) = 0.683,
  // 2.4 times the tolerance away.
  for (Eigen::Index i = 0; i < 4; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j) {
      const double rho = target(i, j);
      CHECK(reached(i, j) ==
            Approx(rho).margin(2.0 * (1 - rho * rho) / std::sqrt(static_cast<double>(n)) + 1e-12));
    }
  }
  // Marginals untouched: each column is a permutation of the original, so a Latin hypercube
  // stays a Latin hypercube.
  for (Eigen::Index j = 0; j < 4; ++j) CHECK(sorted_column(c, j) == sorted_column(u, j));
  // Without reordering the columns are nearly independent: the method did the work.
  CHECK(std::abs(spearman_matrix(u)(0, 1)) < 0.2);
}

TEST_CASE("Iman-Conover works on sampled inputs of any distribution", "[uq][rank]") {
  // Rank correlation is invariant under the monotone quantile maps: correlating the uniforms
  // and then mapping gives the same Spearman matrix as the correlated uniforms.
  const Eigen::MatrixXd target = matrix({{1.0, -0.6}, {-0.6, 1.0}});
  const std::vector<distribution> inputs = {make_lognormal(2.0, 0.8), make_weibull(1.5, 3.0)};
  const Eigen::MatrixXd u = impose_rank_correlation(unit_design(1000, 2, {.seed = 4}), target, 4);
  const Eigen::MatrixXd x = map_to_inputs(u, inputs);
  CHECK(spearman_matrix(x)(0, 1) == Approx(spearman_matrix(u)(0, 1)).epsilon(1e-12));
  CHECK(spearman_matrix(x)(0, 1) == Approx(-0.6).margin(3.5 * 0.64 / std::sqrt(1000.0)));
}

TEST_CASE("Iman-Conover is reproducible and its seed matters", "[uq][rank]") {
  const Eigen::MatrixXd target = matrix({{1.0, 0.5}, {0.5, 1.0}});
  const Eigen::MatrixXd u = unit_design(300, 2, {.seed = 6});
  const Eigen::MatrixXd a = impose_rank_correlation(u, target, 10);
  CHECK((a.array() == impose_rank_correlation(u, target, 10).array()).all());
  CHECK((a.array() != impose_rank_correlation(u, target, 11).array()).any());
}

TEST_CASE("bad rank correlation targets say which entry and why", "[uq][rank]") {
  const std::vector<std::string> names = {"mu", "theta0", "K"};
  const Eigen::MatrixXd u = unit_design(50, 3, {});
  const auto message = [&](const Eigen::MatrixXd& target) {
    try {
      impose_rank_correlation(u, target, 1, names);
    } catch (const contactuq::parameter_error& e) {
      CHECK(e.field() == "rank_correlation");
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  CHECK_THAT(message(matrix({{1, 1.2, 0}, {1.2, 1, 0}, {0, 0, 1}})),
             Contains("rank_correlation(mu, theta0) = 1.2: must be in [-1, 1]"));
  CHECK_THAT(message(matrix({{1, 0.5, 0}, {0.4, 1, 0}, {0, 0, 1}})),
             Contains("rank_correlation(mu, theta0) = 0.5 but rank_correlation(theta0, mu) = 0.4: "
                      "the matrix must be symmetric"));
  CHECK_THAT(message(matrix({{1, 0, 0}, {0, 0.9, 0}, {0, 0, 1}})),
             Contains("rank_correlation(theta0, theta0) = 0.9: must be 1"));
  CHECK_THAT(message(matrix({{1, 0.9, -0.9}, {0.9, 1, 0.9}, {-0.9, 0.9, 1}})),
             Contains("rank_correlation is not positive definite (smallest eigenvalue -0.8"));
  CHECK_THAT(message(matrix({{1, 1, 0}, {1, 1, 0}, {0, 0, 1}})), Contains("not positive definite"));
  CHECK_THAT(message(matrix({{1, 0}, {0, 1}})), Contains("rank_correlation is 2x2: must be 3x3"));
  CHECK_THAT(message(matrix({{1, NAN, 0}, {NAN, 1, 0}, {0, 0, 1}})),
             Contains("rank_correlation(mu, theta0) = nan: must be in [-1, 1]"));
  // Without names the entries are numbered.
  CHECK_THROWS_WITH(validate_rank_correlation(matrix({{1, 2}, {2, 1}}), 2),
                    Contains("rank_correlation(input 0, input 1) = 2"));
  // Too few samples for the inputs.
  CHECK_THROWS_WITH(
      impose_rank_correlation(unit_design(3, 3, {}), Eigen::MatrixXd::Identity(3, 3), 1),
      Contains("samples = 3: must be more than the 3 correlated inputs"));
  Eigen::MatrixXd with_nan = u;
  with_nan(4, 1) = NAN;
  CHECK_THROWS_WITH(impose_rank_correlation(with_nan, Eigen::MatrixXd::Identity(3, 3), 1),
                    Contains("sample: entry (4, 1) = nan: must be finite"));
}
