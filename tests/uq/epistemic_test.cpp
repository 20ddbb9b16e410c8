#include "contactuq/uq/epistemic.hpp"

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

// n aleatoric samples of one input.
std::vector<double> draw(const distribution& d, std::size_t n, std::uint64_t seed,
                         design_kind kind = design_kind::latin_hypercube) {
  const Eigen::MatrixXd x =
      map_to_inputs(unit_design(n, 1, {.kind = kind, .seed = seed}), std::vector<distribution>{d});
  return {x.data(), x.data() + x.size()};
}

// Population (divisor n) mean and variance, written out independently of the library.
double mean_of(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0.0;
  for (const double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

// Y_kn = c_k + s_k x_n: model k at the common aleatoric sample x_n.
Eigen::MatrixXd toy(const std::vector<double>& c, const std::vector<double>& s,
                    const std::vector<double>& x) {
  Eigen::MatrixXd y(static_cast<Eigen::Index>(c.size()), static_cast<Eigen::Index>(x.size()));
  for (std::size_t k = 0; k < c.size(); ++k) {
    for (std::size_t n = 0; n < x.size(); ++n) {
      y(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n)) = c[k] + s[k] * x[n];
    }
  }
  return y;
}

bool covers(const estimate& e, double truth) { return e.ci.low <= truth && truth <= e.ci.high; }

}  // namespace

TEST_CASE("variance decomposition is exact for models that differ by a constant",
          "[uq][epistemic]") {
  // Y_k = c_k + X with common random numbers: every model has the aleatoric variance of the
  // sample of X, and the model means differ by exactly c_k, so
  //   epistemic = Var_w(c),  aleatoric = Var(x),  S_M = S_TM (no interaction).
  const std::vector<double> x = draw(make_normal(0.0, 1.0), 1000, 3);
  const std::vector<double> c = {0.0, 1.0, 3.0};
  const Eigen::MatrixXd y = toy(c, {1.0, 1.0, 1.0}, x);

  SECTION("equal weights: Var(c) = (0 + 1 + 9)/3 - (4/3)^2 = 14/9") {
    const model_form_decomposition d = decompose_model_form(y, {}, {.bootstrap_resamples = 200});
    const double epistemic = 14.0 / 9.0, aleatoric = variance_of(x);
    CHECK(d.models == 3);
    CHECK(d.used == 1000);
    CHECK(d.dropped == 0);
    CHECK(d.weights == std::vector<double>{1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0});
    CHECK(d.epistemic_variance.value == Approx(epistemic).epsilon(1e-12));
    CHECK(d.aleatoric_variance.value == Approx(aleatoric).epsilon(1e-12));
    CHECK(d.total_variance.value == Approx(epistemic + aleatoric).epsilon(1e-12));
    CHECK(d.epistemic_share_percent.value ==
          Approx(100.0 * epistemic / (epistemic + aleatoric)).epsilon(1e-12));
    CHECK(d.model_first_order.value == Approx(epistemic / (epistemic + aleatoric)).epsilon(1e-12));
    CHECK(d.model_total_order.value == Approx(d.model_first_order.value).epsilon(1e-12));
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(d.model_mean[k] == Approx(c[k] + mean_of(x)).margin(1e-12));
      CHECK(d.model_variance[k] == Approx(aleatoric).epsilon(1e-12));
    }
    CHECK(d.mean == Approx(4.0 / 3.0 + mean_of(x)).epsilon(1e-12));
    // Every resample of the aleatoric samples keeps the model means c_k apart: the interval of
    // the epistemic variance collapses onto its exact value.
    CHECK(d.epistemic_variance.ci.low == Approx(epistemic).epsilon(1e-12));
    CHECK(d.epistemic_variance.ci.high == Approx(epistemic).epsilon(1e-12));
    CHECK(d.aleatoric_variance.ci.low < aleatoric);
    CHECK(d.aleatoric_variance.ci.high > aleatoric);
  }
  SECTION("weights 2:1:1 (normalised): mean c = 1, E c^2 = 2.5, Var(c) = 1.5") {
    const std::vector<double> w = {2.0, 1.0, 1.0};
    const model_form_decomposition d = decompose_model_form(y, w, {.bootstrap_resamples = 0});
    CHECK(d.weights == std::vector<double>{0.5, 0.25, 0.25});
    CHECK(d.epistemic_variance.value == Approx(1.5).epsilon(1e-12));
    CHECK(d.aleatoric_variance.value == Approx(variance_of(x)).epsilon(1e-12));
    CHECK(d.mean == Approx(1.0 + mean_of(x)).epsilon(1e-12));
    CHECK(std::isnan(d.total_variance.ci.low));
  }
}

TEST_CASE("the model form's total-order index sees its interaction with the parameters",
          "[uq][epistemic]") {
  // Y_k = c_k X: E[Y | k] = c_k xbar, Var_M[Y | x] = Var_w(c) x^2, so in sample
  //   epistemic = Var(c) xbar^2,  E_X Var_M = Var(c) mean(x^2),
  //   Var_total = E(c^2) mean(x^2) - E(c)^2 xbar^2.
  const std::vector<double> x = draw(make_uniform(1.0, 2.0), 500, 8);
  const std::vector<double> c = {1.0, 2.0, 4.0};
  const model_form_decomposition d =
      decompose_model_form(toy({0.0, 0.0, 0.0}, c, x), {}, {.bootstrap_resamples = 0});
  const double ec = 7.0 / 3.0, ec2 = 7.0, var_c = ec2 - ec * ec;
  const double xbar = mean_of(x);
  double x2 = 0.0;
  for (const double v : x) x2 += v * v / static_cast<double>(x.size());
  const double total = ec2 * x2 - ec * ec * xbar * xbar;
  CHECK(d.total_variance.value == Approx(total).epsilon(1e-12));
  CHECK(d.epistemic_variance.value == Approx(var_c * xbar * xbar).epsilon(1e-12));
  CHECK(d.model_first_order.value == Approx(var_c * xbar * xbar / total).epsilon(1e-12));
  CHECK(d.model_total_order.value == Approx(var_c * x2 / total).epsilon(1e-12));
  CHECK(d.model_total_order.value > d.model_first_order.value + 0.01);
  // The parts still add up to the total (computed separately in the library).
  CHECK(d.aleatoric_variance.value + d.epistemic_variance.value ==
        Approx(d.total_variance.value).epsilon(1e-12));
}

TEST_CASE("Var_total = E_model[Var_aleatoric] + Var_model[E_aleatoric] for any matrix",
          "[uq][epistemic]") {
  const std::size_t k = GENERATE(1, 2, 6);
  const Eigen::MatrixXd u = unit_design(300, k, {.kind = design_kind::monte_carlo, .seed = k});
  // Models with unequal means, spreads and shapes, on a large offset.
  Eigen::MatrixXd y = u.transpose();
  for (Eigen::Index r = 0; r < y.rows(); ++r) {
    y.row(r) = (1e4 + static_cast<double>(r) + y.row(r).array().pow(1.0 + static_cast<double>(r)))
                   .matrix();
  }
  std::vector<double> w;
  for (std::size_t i = 0; i < k; ++i) w.push_back(1.0 + static_cast<double>(i));
  const model_form_decomposition d = decompose_model_form(y, w, {.bootstrap_resamples = 0});
  CHECK(d.aleatoric_variance.value + d.epistemic_variance.value ==
        Approx(d.total_variance.value).epsilon(1e-10));
  CHECK(d.model_first_order.value <= d.model_total_order.value + 1e-12);
  CHECK(d.model_total_order.value <= 1.0 + 1e-12);
  if (k == 1) {
    CHECK(d.epistemic_variance.value == 0.0);
    CHECK(d.model_total_order.value == 0.0);
  }
}

TEST_CASE("variance decomposition intervals cover the truth at about their confidence",
          "[uq][epistemic]") {
  // Y_k = c_k X, X ~ U(1, 2): E X = 3/2, E X^2 = 7/3; c = {1, 2, 4}.
  const double ec = 7.0 / 3.0, ec2 = 7.0, var_c = ec2 - ec * ec;
  const double total = ec2 * 7.0 / 3.0 - ec * ec * 2.25;
  const double first = var_c * 2.25 / total, total_order = var_c * (7.0 / 3.0) / total;
  const int studies = 40;
  int cover_first = 0, cover_total = 0, cover_share = 0;
  for (int r = 0; r < studies; ++r) {
    const auto seed = static_cast<std::uint64_t>(50 + r);
    const std::vector<double> x = draw(make_uniform(1.0, 2.0), 200, seed, design_kind::monte_carlo);
    const model_form_decomposition d =
        decompose_model_form(toy({0.0, 0.0, 0.0}, {1.0, 2.0, 4.0}, x), {},
                             {.confidence = 0.9, .bootstrap_resamples = 200, .seed = seed});
    cover_first += covers(d.model_first_order, first);
    cover_total += covers(d.model_total_order, total_order);
    cover_share += covers(d.epistemic_share_percent, 100.0 * first);
  }
  // Binomial(40, 0.9): P(fewer than 30) < 0.5%.
  CHECK(cover_first >= 30);
  CHECK(cover_total >= 30);
  CHECK(cover_share >= 30);
}

TEST_CASE("failed samples are dropped for every model, models without values are excluded",
          "[uq][epistemic]") {
  const std::vector<double> x = draw(make_normal(0.0, 1.0), 50, 4);
  Eigen::MatrixXd y = toy({0.0, 2.0, 5.0, 1.0}, {1.0, 2.0, 1.0, 1.0}, x);
  y.row(3).setConstant(qnan);  // a model that does not define this output
  y(0, 7) = qnan;
  y(2, 7) = qnan;
  y(1, 30) = std::numeric_limits<double>::infinity();
  const std::vector<double> w = {1.0, 1.0, 2.0, 5.0};
  const model_form_decomposition d = decompose_model_form(y, w, {.bootstrap_resamples = 100});
  CHECK(d.used == 48);
  CHECK(d.dropped == 2);
  CHECK(d.excluded_models == std::vector<std::size_t>{3});
  CHECK(d.weights == std::vector<double>{0.25, 0.25, 0.5, 0.0});
  CHECK(std::isnan(d.model_mean[3]));

  // The same as the three defined models on the 48 samples every one of them has.
  std::vector<double> kept;
  for (std::size_t n = 0; n < x.size(); ++n) {
    if (n != 7 && n != 30) kept.push_back(x[n]);
  }
  const model_form_decomposition e =
      decompose_model_form(toy({0.0, 2.0, 5.0}, {1.0, 2.0, 1.0}, kept),
                           std::vector<double>{1.0, 1.0, 2.0}, {.bootstrap_resamples = 100});
  CHECK(e.dropped == 0);
  CHECK(d.total_variance.value == Approx(e.total_variance.value).epsilon(1e-14));
  CHECK(d.epistemic_share_percent.value == Approx(e.epistemic_share_percent.value).epsilon(1e-14));
  CHECK(d.model_total_order.ci.low == Approx(e.model_total_order.ci.low).epsilon(1e-14));
  CHECK(d.model_mean[2] == Approx(e.model_mean[2]).epsilon(1e-14));

  // Nothing left: NaN estimates, no exception.
  const Eigen::MatrixXd broken = (Eigen::MatrixXd(2, 2) << 1.0, qnan, qnan, 2.0).finished();
  const model_form_decomposition f = decompose_model_form(broken);
  CHECK(f.used == 0);
  CHECK(f.dropped == 2);
  CHECK(std::isnan(f.total_variance.value));
  CHECK(std::isnan(f.model_first_order.ci.high));
}

TEST_CASE("variance decomposition intervals do not depend on the thread count", "[uq][epistemic]") {
  const std::vector<double> x = draw(make_normal(0.0, 1.0), 300, 12);
  const Eigen::MatrixXd y = toy({0.0, 0.5, 1.0}, {1.0, 1.5, 0.7}, x);
  const model_form_decomposition many = decompose_model_form(y, {}, {.bootstrap_resamples = 300});
  model_form_decomposition one;
  {
    const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    one = decompose_model_form(y, {}, {.bootstrap_resamples = 300});
  }
  CHECK(many.model_total_order.ci.low == one.model_total_order.ci.low);
  CHECK(many.model_total_order.ci.high == one.model_total_order.ci.high);
  CHECK(many.epistemic_share_percent.ci.low == one.epistemic_share_percent.ci.low);
  CHECK(many.aleatoric_variance.ci.high == one.aleatoric_variance.ci.high);
}

TEST_CASE("bad decomposition input gives the promised message", "[uq][epistemic]") {
  const Eigen::MatrixXd y = Eigen::MatrixXd::Ones(2, 3);
  CHECK_THROWS_WITH(
      decompose_model_form(y, std::vector<double>{1.0}),
      Contains("1 model weights: must be empty (equal weights) or one per model (2)"));
  CHECK_THROWS_WITH(decompose_model_form(y, std::vector<double>{1.0, -1.0}),
                    Contains("weights = -1"));
  CHECK_THROWS_WITH(decompose_model_form(y, std::vector<double>{0.0, 0.0}),
                    Contains("positive in sum"));
  CHECK_THROWS_WITH(decompose_model_form(Eigen::MatrixXd(0, 3)), Contains("models = 0"));
  // A constant output: no variance, so no shares.
  const model_form_decomposition d = decompose_model_form(y);
  CHECK(d.total_variance.value == 0.0);
  CHECK(std::isnan(d.epistemic_share_percent.value));
}

TEST_CASE("p-box: per-model empirical CDFs and their envelope", "[uq][epistemic]") {
  // Hand-computed: F0 over {1, 2, 3}, F1 over {2, 3, 4}, F2 over {2.5} (two failed samples).
  const Eigen::MatrixXd y =
      (Eigen::MatrixXd(3, 3) << 1.0, 2.0, 3.0, 4.0, 3.0, 2.0, qnan, 2.5, qnan).finished();
  const std::vector<double> grid = {0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0};
  const probability_box box = make_probability_box(y, grid);
  const double third = 1.0 / 3.0;
  const std::vector<double> f0 = {0, third, 2 * third, 2 * third, 1, 1, 1};
  const std::vector<double> f1 = {0, 0, third, third, 2 * third, 1, 1};
  const std::vector<double> lower = {0, 0, 0, third, 2 * third, 1, 1};
  const std::vector<double> upper = {0, third, 2 * third, 1, 1, 1, 1};
  for (std::size_t g = 0; g < grid.size(); ++g) {
    INFO("t = " << grid[g]);
    CHECK(box.cdf(0, static_cast<Eigen::Index>(g)) == Approx(f0[g]));
    CHECK(box.cdf(1, static_cast<Eigen::Index>(g)) == Approx(f1[g]));
    CHECK(box.cdf(2, static_cast<Eigen::Index>(g)) == (grid[g] >= 2.5 ? 1.0 : 0.0));
    CHECK(box.lower[g] == Approx(lower[g]));
    CHECK(box.upper[g] == Approx(upper[g]));
  }
  CHECK(box.used == std::vector<std::size_t>{3, 3, 1});
  CHECK(box.skipped == std::vector<std::size_t>{0, 0, 2});
  CHECK_THROWS_WITH(make_probability_box(y, std::vector<double>{1.0, 1.0}),
                    Contains("strictly increasing"));
  CHECK_THROWS_WITH(make_probability_box(y, std::size_t{1}), Contains("grid_points"));
}

TEST_CASE("p-box envelope bounds every model's empirical CDF", "[uq][epistemic]") {
  const std::size_t k_count = 6, n = 400;
  const Eigen::MatrixXd u = unit_design(n, k_count, {.seed = 21});
  Eigen::MatrixXd y = u.transpose();
  for (Eigen::Index k = 0; k < y.rows(); ++k) {
    y.row(k) =
        (y.row(k).array() * (1.0 + static_cast<double>(k)) + 0.3 * static_cast<double>(k)).matrix();
  }
  y(2, 5) = qnan;
  const probability_box box = make_probability_box(y, std::size_t{64});
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (Eigen::Index k = 0; k < y.rows(); ++k) {
    for (Eigen::Index j = 0; j < y.cols(); ++j) {
      if (std::isnan(y(k, j))) continue;
      lo = std::min(lo, y(k, j));
      hi = std::max(hi, y(k, j));
    }
  }
  REQUIRE(box.grid.size() == 64);
  CHECK(box.grid.front() == lo);
  CHECK(box.grid.back() == hi);
  for (std::size_t g = 0; g < box.grid.size(); ++g) {
    double low = 1.0, high = 0.0;
    for (std::size_t k = 0; k < k_count; ++k) {
      // F_k(t) counted directly over the finite values of model k.
      double below = 0.0, finite = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        const double v = y(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j));
        if (std::isnan(v)) continue;
        finite += 1.0;
        below += v <= box.grid[g] ? 1.0 : 0.0;
      }
      const double f = box.cdf(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(g));
      CHECK(f == below / finite);
      CHECK(box.lower[g] <= f);
      CHECK(f <= box.upper[g]);
      low = std::min(low, f);
      high = std::max(high, f);
    }
    CHECK(box.lower[g] == low);
    CHECK(box.upper[g] == high);
    if (g > 0) {
      CHECK(box.lower[g] >= box.lower[g - 1]);
      CHECK(box.upper[g] >= box.upper[g - 1]);
    }
  }
  CHECK(box.lower.back() == 1.0);
  CHECK(box.upper.front() > 0.0);
  // No finite value at all: an empty grid.
  CHECK(make_probability_box(Eigen::MatrixXd::Constant(2, 3, qnan), std::size_t{10}).grid.empty());
}

TEST_CASE("binomial intervals match Newcombe's published examples", "[uq][epistemic]") {
  // R.G. Newcombe, Stat. Med. 17 (1998) 857-872, Table I, 95% intervals: methods 3 (Wilson)
  // and 5 (Clopper-Pearson), to the 4 decimals printed there.
  struct example {
    std::size_t k, n;
    double wilson_low, wilson_high, exact_low, exact_high;
  };
  const std::vector<example> examples = {{81, 263, 0.2553, 0.3662, 0.2527, 0.3676},
                                         {15, 148, 0.0624, 0.1605, 0.0578, 0.1617},
                                         {0, 20, 0.0, 0.1611, 0.0, 0.1684},
                                         {1, 29, 0.0061, 0.1718, 0.0009, 0.1776}};
  for (const example& e : examples) {
    INFO(e.k << " of " << e.n);
    const event_probability w = binomial_proportion(e.k, e.n, 0.95, binomial_interval::wilson);
    const event_probability cp =
        binomial_proportion(e.k, e.n, 0.95, binomial_interval::clopper_pearson);
    CHECK(w.value == static_cast<double>(e.k) / static_cast<double>(e.n));
    CHECK(w.ci.low == Approx(e.wilson_low).margin(6e-5));
    CHECK(w.ci.high == Approx(e.wilson_high).margin(6e-5));
    CHECK(cp.ci.low == Approx(e.exact_low).margin(6e-5));
    CHECK(cp.ci.high == Approx(e.exact_high).margin(6e-5));
  }
  // No events in n trials: the exact upper bound solves (1 - p)^n = alpha/2.
  const event_probability none =
      binomial_proportion(0, 20, 0.9, binomial_interval::clopper_pearson);
  CHECK(none.ci.high == Approx(1.0 - std::pow(0.05, 1.0 / 20.0)).epsilon(1e-12));
  // the bounds at 0 and n events are exact: a plotted interval never has a negative arm
  for (std::size_t n : {7u, 20u, 24u, 263u}) {
    INFO(n << " trials");
    CHECK(binomial_proportion(0, n, 0.95, binomial_interval::wilson).ci.low == 0.0);
    CHECK(binomial_proportion(n, n, 0.95, binomial_interval::wilson).ci.high == 1.0);
  }
  const event_probability all = binomial_proportion(20, 20, 0.9, binomial_interval::wilson);
  CHECK(all.ci.high == 1.0);
  CHECK(all.ci.low == Approx(1.0 - binomial_proportion(0, 20, 0.9).ci.high).epsilon(1e-12));
  const event_probability empty = binomial_proportion(0, 0, 0.95);
  CHECK(std::isnan(empty.value));
  CHECK(empty.ci.low == 0.0);
  CHECK(empty.ci.high == 1.0);
  CHECK_THROWS_WITH(binomial_proportion(3, 2, 0.95), Contains("events = 3"));
  CHECK_THROWS_WITH(binomial_proportion(1, 2, 1.5), Contains("confidence"));
}

TEST_CASE("probability of an event per model, failed samples skipped", "[uq][epistemic]") {
  // Chatter flagged 0/1; a failed sample is NaN; the event is Y > 0.5 (0.5 itself is not).
  const Eigen::MatrixXd y =
      (Eigen::MatrixXd(2, 6) << 0, 1, 1, qnan, 0.7, 0.5, 0, 0, 0, 0, 0, 1).finished();
  const std::vector<event_probability> p = probability_above(y, 0.5);
  REQUIRE(p.size() == 2);
  CHECK(p[0].events == 3);
  CHECK(p[0].trials == 5);
  CHECK(p[0].skipped == 1);
  CHECK(p[0].value == 0.6);
  CHECK(p[1].events == 1);
  CHECK(p[1].trials == 6);
  CHECK(p[1].skipped == 0);
  CHECK(p[0].ci.low < 0.6);
  CHECK(p[0].ci.high > 0.6);
  CHECK(to_string(parse_binomial_interval("clopper_pearson")) == "clopper_pearson");
  CHECK_THROWS_WITH(parse_binomial_interval("agresti"),
                    Contains("must be one of wilson, clopper_pearson"));
}
