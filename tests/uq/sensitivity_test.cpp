#include "contactuq/uq/sensitivity.hpp"

#include <tbb/global_control.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/distribution.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double pi = std::numbers::pi;

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool identical(const estimate& a, const estimate& b) {
  return same_bits(a.value, b.value) && same_bits(a.ci.low, b.ci.low) &&
         same_bits(a.ci.high, b.ci.high);
}

bool identical(const sobol_result& a, const sobol_result& b) {
  bool same = a.used == b.used && identical(a.variance, b.variance) &&
              a.first_order.size() == b.first_order.size();
  for (std::size_t i = 0; same && i < a.first_order.size(); ++i) {
    same = identical(a.first_order[i], b.first_order[i]) &&
           identical(a.total_order[i], b.total_order[i]);
  }
  return same;
}

// Ishigami & Homma (1990): f = sin x1 + a sin^2 x2 + b x3^4 sin x1, x_i ~ U(-pi, pi).
double ishigami(double x1, double x2, double x3, double a = 7.0, double b = 0.1) {
  return std::sin(x1) + a * std::sin(x2) * std::sin(x2) + b * std::pow(x3, 4) * std::sin(x1);
}

// f at every point of a design of uniforms, each u mapped to U(-pi, pi).
std::vector<double> ishigami_outputs(const pick_freeze_design& design) {
  const Eigen::MatrixXd p = design.points();
  std::vector<double> y(static_cast<std::size_t>(p.rows()));
  const auto x = [&](Eigen::Index r, Eigen::Index c) { return -pi + 2.0 * pi * p(r, c); };
  for (Eigen::Index r = 0; r < p.rows(); ++r) {
    y[static_cast<std::size_t>(r)] = ishigami(x(r, 0), x(r, 1), x(r, 2));
  }
  return y;
}

// Linear model y = sum a_i x_i with x_i ~ normal(0, sd_i): S_i = S_Ti = a_i^2 sd_i^2 / sum.
const std::vector<double> linear_a = {1.0, 2.0, 3.0, 0.0};
const std::vector<double> linear_sd = {1.0, 1.0, 0.5, 1.0};
constexpr double linear_variance = 1.0 + 4.0 + 2.25;  // sum a_i^2 sd_i^2

std::vector<double> linear_outputs(const pick_freeze_design& design) {
  std::vector<distribution> inputs;
  for (const double sd : linear_sd) inputs.push_back(make_normal(0.0, sd));
  const Eigen::MatrixXd x = map_to_inputs(design.points(), inputs);
  std::vector<double> y(static_cast<std::size_t>(x.rows()));
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    double s = 0.0;
    for (Eigen::Index i = 0; i < x.cols(); ++i)
      s += linear_a[static_cast<std::size_t>(i)] * x(r, i);
    y[static_cast<std::size_t>(r)] = s;
  }
  return y;
}

double linear_index(std::size_t i) {
  return linear_a[i] * linear_a[i] * linear_sd[i] * linear_sd[i] / linear_variance;
}

}  // namespace

TEST_CASE("pick-freeze design: AB_i is A with column i from B, in the documented layout",
          "[uq][sensitivity]") {
  const pick_freeze_design design = make_pick_freeze_design(5, 3, {.seed = 4});
  const pick_freeze_layout layout = design.layout();
  CHECK(layout.rows == 5);
  CHECK(layout.inputs == 3);
  CHECK(layout.size() == 25);
  CHECK(layout.ab(2, 4) == 4 * 5 + 4);
  const Eigen::MatrixXd p = design.points();
  REQUIRE(p.rows() == 25);
  REQUIRE(p.cols() == 3);
  // A and B independent: no shared entries; everything in (0, 1).
  CHECK((design.a().array() != design.b().array()).all());
  CHECK((p.array() > 0.0).all());
  CHECK((p.array() < 1.0).all());
  for (std::size_t j = 0; j < 5; ++j) {
    const auto r = static_cast<Eigen::Index>(j);
    CHECK(p.row(static_cast<Eigen::Index>(layout.a(j))) == design.a().row(r));
    CHECK(p.row(static_cast<Eigen::Index>(layout.b(j))) == design.b().row(r));
    for (std::size_t i = 0; i < 3; ++i) {
      const Eigen::MatrixXd ab = design.ab(i);
      CHECK(p.row(static_cast<Eigen::Index>(layout.ab(i, j))) == ab.row(r));
      for (Eigen::Index c = 0; c < 3; ++c) {
        CHECK(ab(r, c) ==
              (c == static_cast<Eigen::Index>(i) ? design.b()(r, c) : design.a()(r, c)));
      }
    }
  }
  // A Latin hypercube in each of A and B: one point per stratum of every column.
  for (Eigen::Index c = 0; c < 3; ++c) {
    std::vector<int> strata(5, 0);
    for (Eigen::Index r = 0; r < 5; ++r) ++strata[static_cast<std::size_t>(design.b()(r, c) * 5)];
    CHECK(strata == std::vector<int>(5, 1));
  }
}

TEST_CASE("Sobol indices of the Ishigami function match the analytic values", "[uq][sensitivity]") {
  // Analytic indices (Ishigami & Homma 1990; Saltelli et al. 2010, sec. 4), a = 7, b = 0.1:
  //   V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2,  V1 = (1 + b pi^4/5)^2 / 2,  V2 = a^2/8,
  //   V3 = 0,  V13 = b^2 pi^8 (1/18 - 1/50);  S_T1 = (V1 + V13)/V, S_T2 = S2, S_T3 = V13/V.
  const double a = 7.0, b = 0.1;
  const double pi4 = std::pow(pi, 4), pi8 = std::pow(pi, 8);
  const double v = a * a / 8.0 + b * pi4 / 5.0 + b * b * pi8 / 18.0 + 0.5;
  const double v1 = 0.5 * (1.0 + b * pi4 / 5.0) * (1.0 + b * pi4 / 5.0);
  const double v2 = a * a / 8.0;
  const double v13 = b * b * pi8 * (1.0 / 18.0 - 1.0 / 50.0);
  const std::vector<double> first = {v1 / v, v2 / v, 0.0};
  const std::vector<double> total = {(v1 + v13) / v, v2 / v, v13 / v};
  CHECK(first[0] == Approx(0.3139).margin(1e-4));  // the values usually quoted
  CHECK(total[2] == Approx(0.2437).margin(1e-4));

  const std::uint64_t seed = GENERATE(1, 2, 3);
  const pick_freeze_design design = make_pick_freeze_design(1 << 15, 3, {.seed = seed});
  const sobol_result s =
      sobol_indices(ishigami_outputs(design), design.layout(), {.bootstrap_resamples = 0});
  CHECK(s.used == 1 << 15);
  CHECK(s.dropped == 0);
  CHECK(s.variance.value == Approx(v).epsilon(0.02));
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("seed " << seed << ", input " << i + 1);
    CHECK(s.first_order[i].value == Approx(first[i]).margin(0.02));
    CHECK(s.total_order[i].value == Approx(total[i]).margin(0.02));
    CHECK(std::isnan(s.first_order[i].ci.low));  // no resamples, no interval
  }
}

TEST_CASE("Sobol indices of a linear model equal its variance shares", "[uq][sensitivity]") {
  const pick_freeze_design design = make_pick_freeze_design(1 << 15, 4, {.seed = 9});
  const sobol_result s =
      sobol_indices(linear_outputs(design), design.layout(), {.bootstrap_resamples = 200});
  double sum_first = 0.0;
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("input " << i + 1);
    CHECK(s.first_order[i].value == Approx(linear_index(i)).margin(0.01));
    CHECK(s.total_order[i].value == Approx(linear_index(i)).margin(0.01));
    CHECK(s.first_order[i].ci.low <= s.first_order[i].value);
    CHECK(s.first_order[i].value <= s.first_order[i].ci.high);
    sum_first += s.first_order[i].value;
  }
  CHECK(sum_first == Approx(1.0).margin(0.02));  // additive: the first-order indices add up
  // An input the output does not depend on: f_AB4 = f_A row by row, so both indices are 0.
  CHECK(s.first_order[3].value == 0.0);
  CHECK(s.total_order[3].value == 0.0);
  CHECK(s.total_order[3].ci.high == 0.0);
  CHECK(s.variance.value == Approx(linear_variance).epsilon(0.03));
}

TEST_CASE("Sobol indices do not change when a constant is added to the output",
          "[uq][sensitivity]") {
  const pick_freeze_design design = make_pick_freeze_design(512, 3, {.seed = 5});
  std::vector<double> y = ishigami_outputs(design);
  const sobol_result s = sobol_indices(y, design.layout(), {.bootstrap_resamples = 50});
  for (double& v : y) v += 1e6;
  const sobol_result shifted = sobol_indices(y, design.layout(), {.bootstrap_resamples = 50});
  CHECK(shifted.mean == Approx(s.mean + 1e6).epsilon(1e-12));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(shifted.first_order[i].value == Approx(s.first_order[i].value).margin(1e-7));
    CHECK(shifted.total_order[i].value == Approx(s.total_order[i].value).margin(1e-7));
    CHECK(shifted.first_order[i].ci.high == Approx(s.first_order[i].ci.high).margin(1e-7));
  }
}

TEST_CASE("Sobol bootstrap intervals cover the true indices at about their confidence",
          "[uq][sensitivity]") {
  // 80 independent Monte Carlo pick-freeze studies of the linear model (rows independent, as
  // the bootstrap assumes): the 90% intervals must cover the truth in about 90% of them, and
  // their width must match the spread of the estimates across studies.
  const int studies = 80;
  int covered_first = 0, covered_total = 0;
  std::vector<double> estimates;
  double half_width = 0.0;
  for (int r = 0; r < studies; ++r) {
    const pick_freeze_design design = make_pick_freeze_design(
        400, 4, {.kind = design_kind::monte_carlo, .seed = static_cast<std::uint64_t>(100 + r)});
    const sobol_result s = sobol_indices(
        linear_outputs(design), design.layout(),
        {.confidence = 0.9, .bootstrap_resamples = 200, .seed = static_cast<std::uint64_t>(r)});
    const estimate& s1 = s.first_order[1];
    const estimate& st1 = s.total_order[1];
    if (s1.ci.low <= linear_index(1) && linear_index(1) <= s1.ci.high) ++covered_first;
    if (st1.ci.low <= linear_index(1) && linear_index(1) <= st1.ci.high) ++covered_total;
    estimates.push_back(s1.value);
    half_width += 0.5 * (s1.ci.high - s1.ci.low) / studies;
  }
  // Two-sided, as the count of covering studies is Binomial(80, 0.9) for honest intervals.
  // Too short intervals cover too rarely: P(62 or fewer) = 0.08% (0.9% at the 87.5% coverage
  // that percentile intervals reach at this size, 1000 studies: they are a little short). Too
  // wide ones cover in nearly every study: P(79 or more) = 0.2%, while intervals with 99%
  // coverage do so with probability 0.81. (With 40 studies the upper side could only be "not all
  // 40", which honest intervals fail with probability 0.9^40 = 1.5% and 99% ones pass with 0.33.)
  CHECK(covered_first >= 63);
  CHECK(covered_total >= 63);
  CHECK(covered_first <= 78);
  CHECK(covered_total <= 78);
  double mean = 0.0, ss = 0.0;
  for (const double e : estimates) mean += e / studies;
  for (const double e : estimates) ss += (e - mean) * (e - mean);
  const double spread = std::sqrt(ss / (studies - 1));
  // A 90% interval is about +-1.645 standard errors.
  CHECK(half_width / 1.645 == Approx(spread).epsilon(0.4));
}

TEST_CASE("rows with a failed evaluation are dropped in every matrix and counted",
          "[uq][sensitivity]") {
  const pick_freeze_design design = make_pick_freeze_design(64, 4, {.seed = 11});
  const pick_freeze_layout layout = design.layout();
  std::vector<double> y = linear_outputs(design);
  y[layout.ab(1, 3)] = qnan;
  y[layout.a(10)] = qnan;
  y[layout.b(10)] = std::numeric_limits<double>::infinity();
  y[layout.b(20)] = qnan;
  const sobol_result s = sobol_indices(y, layout, {.bootstrap_resamples = 100});
  CHECK(s.rows == 64);
  CHECK(s.used == 61);
  CHECK(s.dropped == 3);

  // The same estimates as a design that never had rows 3, 10 and 20.
  Eigen::MatrixXd a(61, 4), b(61, 4);
  for (Eigen::Index r = 0, k = 0; r < 64; ++r) {
    if (r == 3 || r == 10 || r == 20) continue;
    a.row(k) = design.a().row(r);
    b.row(k) = design.b().row(r);
    ++k;
  }
  const pick_freeze_design smaller(a, b);
  const sobol_result t =
      sobol_indices(linear_outputs(smaller), smaller.layout(), {.bootstrap_resamples = 100});
  CHECK(t.dropped == 0);
  CHECK(identical(s, t));

  // Every row failed: NaN estimates, no exception.
  const std::vector<double> failed(layout.size(), qnan);
  const sobol_result none = sobol_indices(failed, layout);
  CHECK(none.used == 0);
  CHECK(none.dropped == 64);
  CHECK(std::isnan(none.first_order[0].value));
  CHECK(std::isnan(none.total_order[0].ci.low));
  // A constant output has no variance to share out.
  const sobol_result flat = sobol_indices(std::vector<double>(layout.size(), 2.0), layout);
  CHECK(flat.variance.value == 0.0);
  CHECK(std::isnan(flat.first_order[2].value));
}

TEST_CASE("Sobol intervals do not depend on the thread count", "[uq][sensitivity]") {
  const pick_freeze_design design = make_pick_freeze_design(300, 3, {.seed = 6});
  const std::vector<double> y = ishigami_outputs(design);
  const sobol_result many = sobol_indices(y, design.layout(), {.bootstrap_resamples = 300});
  sobol_result one;
  {
    const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    one = sobol_indices(y, design.layout(), {.bootstrap_resamples = 300});
  }
  CHECK(identical(many, one));
  const sobol_result other_seed =
      sobol_indices(y, design.layout(), {.bootstrap_resamples = 300, .seed = 2});
  CHECK(other_seed.first_order[0].ci.low != many.first_order[0].ci.low);
}

TEST_CASE("bad pick-freeze input gives the promised message", "[uq][sensitivity]") {
  const pick_freeze_layout layout{10, 2};
  CHECK_THROWS_WITH(sobol_indices(std::vector<double>(39), layout),
                    Contains("39 values: must be N (d + 2) = 40"));
  CHECK_THROWS_AS(sobol_indices(std::vector<double>(40), {10, 0}), contactuq::parameter_error);
  CHECK_THROWS_WITH(sobol_indices(std::vector<double>(40), layout, {.confidence = 1.0}),
                    Contains("confidence"));
  CHECK_THROWS_WITH(sobol_indices(std::vector<double>(40), layout, {.bootstrap_resamples = 5}),
                    Contains("bootstrap_resamples"));
  CHECK_THROWS_WITH(pick_freeze_design(Eigen::MatrixXd::Zero(4, 2), Eigen::MatrixXd::Zero(4, 3)),
                    Contains("must have the shape of A, 4 x 2"));
  CHECK_THROWS_WITH(make_pick_freeze_design(4, 2, {}).ab(2), Contains("input"));
}
