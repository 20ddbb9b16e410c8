#include "contactuq/uq/morris.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <vector>

#include "contactuq/error.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

// y of every design row for a function of the probabilities u.
template <class F>
std::vector<double> evaluate(const morris_design& d, F f) {
  std::vector<double> y;
  for (Eigen::Index row = 0; row < d.u.rows(); ++row) y.push_back(f(d.u.row(row)));
  return y;
}

}  // namespace

TEST_CASE("Morris trajectories move every input once by half the range, on level centres", "[uq][morris]") {
  const std::size_t levels = GENERATE(2, 4, 8);
  const std::size_t d = GENERATE(1, 3, 7);
  const morris_options o{.trajectories = 25, .levels = levels, .seed = 3};
  const morris_design design = make_morris_design(d, o);
  REQUIRE(design.u.rows() == static_cast<Eigen::Index>(25 * (d + 1)));
  for (std::size_t t = 0; t < 25; ++t) {
    std::set<std::size_t> moved;
    for (std::size_t j = 0; j <= d; ++j) {
      const std::size_t row = t * (d + 1) + j;
      for (std::size_t i = 0; i < d; ++i) {
        const double k = design.u(row, i) * static_cast<double>(levels) - 0.5;  // the level index
        CHECK(k == std::round(k));
        CHECK(k >= 0);
        CHECK(k <= static_cast<double>(levels) - 1);
      }
      if (j == 0) continue;
      const std::size_t i = design.moved[row];
      moved.insert(i);
      CHECK(std::abs(design.u(row, i) - design.u(row - 1, i)) == 0.5);
      CHECK((design.u.row(row) - design.u.row(row - 1)).cwiseAbs().sum() == 0.5);  // only input i moved
    }
    CHECK(moved.size() == d);
  }
}

TEST_CASE("a Morris trajectory depends only on the seed and its index", "[uq][morris]") {
  const morris_design small = make_morris_design(4, {.trajectories = 5, .levels = 4, .seed = 11});
  const morris_design large = make_morris_design(4, {.trajectories = 50, .levels = 4, .seed = 11});
  CHECK(small.u == large.u.topRows(small.u.rows()));
  const morris_design other = make_morris_design(4, {.trajectories = 5, .levels = 4, .seed = 12});
  CHECK(small.u != other.u);
}

TEST_CASE("elementary effects of a linear function are its slopes, exactly, with no spread", "[uq][morris]") {
  const std::vector<double> c{3.0, -2.0, 0.0, 0.5};
  const morris_design design = make_morris_design(4, {.trajectories = 10, .levels = 6, .seed = 1});
  const auto y = evaluate(design, [&](const auto& u) {
    double s = 1.0;
    for (std::size_t i = 0; i < c.size(); ++i) s += c[i] * u(static_cast<Eigen::Index>(i));
    return s;
  });
  const auto e = elementary_effects(design, y, 200);
  for (std::size_t i = 0; i < c.size(); ++i) {
    INFO(i);
    CHECK(e[i].mu == Approx(c[i]).margin(1e-12));
    CHECK(e[i].mu_star == Approx(std::abs(c[i])).margin(1e-12));
    CHECK(e[i].sigma == Approx(0.0).margin(1e-12));
    CHECK(e[i].used == 10);
    CHECK(e[i].mu_star_low == Approx(std::abs(c[i])).margin(1e-12));
    CHECK(e[i].mu_star_high == Approx(std::abs(c[i])).margin(1e-12));
  }
}

TEST_CASE("an interaction shows as spread: y = u1 u2 has mu_1 = E[u2] and sigma_1 = sd(u2)", "[uq][morris]") {
  // With p = 4 levels u2 is one of 1/8, 3/8, 5/8, 7/8, equally likely whichever the order of the
  // moves: EE_1 = u2, so mu_1 = mu*_1 = 1/2 and sigma_1 = sqrt(5/64). Over r = 4000 trajectories
  // the estimates lie within 5 standard errors of those values.
  const morris_design design = make_morris_design(3, {.trajectories = 4000, .levels = 4, .seed = 5});
  const auto y = evaluate(design, [](const auto& u) { return u(0) * u(1); });
  const auto e = elementary_effects(design, y, 0);
  const double sd = std::sqrt(5.0 / 64.0), se = sd / std::sqrt(4000.0);
  CHECK(std::abs(e[0].mu - 0.5) < 5 * se);
  CHECK(std::abs(e[0].sigma - sd) < 0.02);
  CHECK(std::abs(e[1].mu - 0.5) < 5 * se);
  CHECK(e[2].mu_star == 0.0);  // u3 does not enter
}

TEST_CASE("mu*'s bootstrap interval covers the true mu* in about 95 % of independent studies", "[uq][morris]") {
  // y = u1 u2 + u1: EE_1 = u2 + 1 > 0, so mu*_1 = E[u2] + 1 = 1.5. 400 studies of r = 40
  // trajectories; a 95 % percentile interval is a little short at r = 40, and the binomial
  // spread of 400 studies is 1.1 %: coverage between 88 % and 99 %.
  std::size_t covered = 0;
  constexpr std::size_t studies = 400;
  for (std::size_t s = 0; s < studies; ++s) {
    const morris_design design = make_morris_design(2, {.trajectories = 40, .levels = 4, .seed = 1000 + s});
    const auto y = evaluate(design, [](const auto& u) { return u(0) * u(1) + u(0); });
    const auto e = elementary_effects(design, y, 400, 0.95, s);
    covered += e[0].mu_star_low <= 1.5 && 1.5 <= e[0].mu_star_high;
  }
  CHECK(covered >= 352);
  CHECK(covered <= 396);
}

TEST_CASE("failed rows leave out only the moves that touch them", "[uq][morris]") {
  const morris_design design = make_morris_design(3, {.trajectories = 6, .levels = 4, .seed = 2});
  auto y = evaluate(design, [](const auto& u) { return 2 * u(0) + u(1) - u(2); });
  y[1] = std::nan("");  // trajectory 0, after its first move: that move and the next are lost
  const auto e = elementary_effects(design, y, 100);
  std::size_t used = 0;
  for (const auto& x : e) used += x.used;
  CHECK(used == 3 * 6 - 2);
  CHECK(e[0].mu == Approx(2.0));
  CHECK(e[1].mu == Approx(1.0));
  CHECK(e[2].mu == Approx(-1.0));
  CHECK_THROWS_WITH(elementary_effects(design, std::vector<double>(5, 1.0)), Contains("5 output values"));
}

TEST_CASE("Morris options are checked", "[uq][morris]") {
  CHECK_THROWS_WITH(make_morris_design(3, {.trajectories = 1}), Contains("trajectories"));
  CHECK_THROWS_WITH(make_morris_design(3, {.trajectories = 10, .levels = 5}), Contains("even"));
  CHECK_THROWS_AS(make_morris_design(0, {}), contactuq::parameter_error);
}
