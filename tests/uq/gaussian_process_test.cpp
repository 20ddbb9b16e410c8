#include "contactuq/uq/gaussian_process.hpp"

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

constexpr double pi = std::numbers::pi;

// Points of a design of uniforms mapped to the box [lo, hi].
Eigen::MatrixXd box_design(std::size_t n, const Eigen::RowVectorXd& lo,
                           const Eigen::RowVectorXd& hi, std::uint64_t seed,
                           design_kind kind = design_kind::latin_hypercube) {
  const Eigen::MatrixXd u =
      unit_design(n, static_cast<std::size_t>(lo.size()), {.kind = kind, .seed = seed});
  return (u.array().rowwise() * (hi - lo).array()).rowwise() + lo.array();
}

// Branin-Hoo on x1 in [-5, 10], x2 in [0, 15] (Dixon & Szego 1978).
Eigen::VectorXd branin(const Eigen::MatrixXd& x) {
  const double b = 5.1 / (4.0 * pi * pi), c = 5.0 / pi, t = 1.0 / (8.0 * pi);
  Eigen::VectorXd y(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double x1 = x(i, 0), x2 = x(i, 1);
    const double a = x2 - b * x1 * x1 + c * x1 - 6.0;
    y(i) = a * a + 10.0 * (1.0 - t) * std::cos(x1) + 10.0;
  }
  return y;
}

Eigen::VectorXd smooth_2d(const Eigen::MatrixXd& x) {
  return (x.col(0).array().sin() * (0.5 * x.col(1).array()).cos() + 0.3 * x.col(0).array() +
          0.1 * x.col(1).array().square())
      .matrix();
}

double q2(const Eigen::VectorXd& truth, const Eigen::VectorXd& predicted) {
  return 1.0 - (truth - predicted).squaredNorm() / (truth.array() - truth.mean()).square().sum();
}

Eigen::MatrixXd without_row(const Eigen::MatrixXd& x, Eigen::Index i) {
  Eigen::MatrixXd out(x.rows() - 1, x.cols());
  out.topRows(i) = x.topRows(i);
  out.bottomRows(x.rows() - 1 - i) = x.bottomRows(x.rows() - 1 - i);
  return out;
}

Eigen::VectorXd without_entry(const Eigen::VectorXd& y, Eigen::Index i) {
  Eigen::VectorXd out(y.size() - 1);
  out.head(i) = y.head(i);
  out.tail(y.size() - 1 - i) = y.tail(y.size() - 1 - i);
  return out;
}

}  // namespace

TEST_CASE("gp: names of kernels and trends round-trip", "[uq][gp]") {
  for (const auto k : {gp_kernel::matern52, gp_kernel::squared_exponential})
    CHECK(parse_gp_kernel(to_string(k)) == k);
  for (const auto t : {gp_trend::constant, gp_trend::linear})
    CHECK(parse_gp_trend(to_string(t)) == t);
  CHECK_THROWS_WITH(parse_gp_kernel("rbf"), Contains("matern52"));
  CHECK_THROWS_WITH(parse_gp_trend("quadratic"), Contains("constant, linear"));
}

TEST_CASE("gp: closed-form leave-one-out equals refitting without each point", "[uq][gp]") {
  const Eigen::MatrixXd x =
      box_design(25, Eigen::RowVector2d(0.0, -1.0), Eigen::RowVector2d(3.0, 2.0), 7);
  const Eigen::VectorXd y = smooth_2d(x);
  for (const auto kernel : {gp_kernel::matern52, gp_kernel::squared_exponential}) {
    for (const auto trend : {gp_trend::constant, gp_trend::linear}) {
      DYNAMIC_SECTION(to_string(kernel) << " kernel, " << to_string(trend) << " trend") {
        gp_hyperparameters h;
        h.length_scales = Eigen::Vector2d(0.6, 0.9);
        h.variance = 2.5;
        h.nugget = 1e-6;
        const gaussian_process gp(kernel, trend, x, y, h);
        REQUIRE(gp.jitter() == 0.0);
        double worst_residual = 0.0, worst_sd = 0.0;
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
          const gaussian_process refit(kernel, trend, without_row(x, i), without_entry(y, i), h);
          REQUIRE(refit.jitter() == 0.0);
          const Eigen::MatrixXd xi = x.row(i);
          Eigen::VectorXd mean, sd;
          refit.predict(xi, mean, sd);
          const double residual = y(i) - mean(0);
          // The LOO sd is that of the observation: latent variance plus the noise.
          const double obs_sd = std::sqrt(sd(0) * sd(0) + refit.noise_variance());
          worst_residual = std::max(
              worst_residual, std::abs(gp.loo_residuals()(i) - residual) / std::abs(residual));
          worst_sd = std::max(worst_sd, std::abs(gp.loo_sd()(i) - obs_sd) / obs_sd);
        }
        INFO("largest relative differences: residual "
             << worst_residual << ", sd " << worst_sd << "; condition " << gp.condition_estimate());
        CHECK(worst_residual < 1e-10);
        CHECK(worst_sd < 1e-10);
        const double loo =
            gp.loo_residuals().squaredNorm() / static_cast<double>(y.size()) /
            ((y.array() - y.mean()).square().sum() / (static_cast<double>(y.size()) - 1.0));
        CHECK(gp.loo_error() == Approx(loo).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("gp: the trend coefficients are reported for the physical basis", "[uq][gp]") {
  const Eigen::MatrixXd x =
      box_design(20, Eigen::RowVector2d(10.0, -4.0), Eigen::RowVector2d(30.0, 0.0), 3);
  // An exactly linear output: the GLS trend reproduces it whatever the kernel.
  const Eigen::VectorXd y = (1.5 + 0.25 * x.col(0).array() - 2.0 * x.col(1).array()).matrix();
  gp_hyperparameters h{Eigen::Vector2d(5.0, 1.0), 1.0, 1e-8};
  const gaussian_process gp(gp_kernel::matern52, gp_trend::linear, x, y, h);
  CHECK(gp.trend_coefficients()(0) == Approx(1.5).epsilon(1e-8));
  CHECK(gp.trend_coefficients()(1) == Approx(0.25).epsilon(1e-8));
  CHECK(gp.trend_coefficients()(2) == Approx(-2.0).epsilon(1e-8));
  CHECK(gp.weights().cwiseAbs().maxCoeff() < 1e-8);
  // mean(x) = f(x)^T beta + sum_i k(x, x_i) alpha_i with the exported pieces.
  const Eigen::RowVectorXd at = Eigen::RowVector2d(17.0, -1.0);
  double mean = gp.trend_coefficients()(0) + gp.trend_coefficients()(1) * at(0) +
                gp.trend_coefficients()(2) * at(1);
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    mean += gp.correlation(at, x.row(i)) * gp.weights()(i);
  CHECK(gp.predict(at)(0) == Approx(mean).epsilon(1e-12));
}

TEST_CASE("gp: a maximum-likelihood fit of Branin from 40 points has Q2 >= 0.99", "[uq][gp]") {
  const Eigen::RowVector2d lo(-5.0, 0.0), hi(10.0, 15.0);
  const Eigen::MatrixXd test = box_design(1000, lo, hi, 99, design_kind::sobol);
  const Eigen::VectorXd truth = branin(test);
  for (const auto kernel : {gp_kernel::matern52, gp_kernel::squared_exponential}) {
    for (const auto design : {design_kind::latin_hypercube, design_kind::sobol}) {
      DYNAMIC_SECTION(to_string(kernel) << " kernel, " << to_string(design)) {
        for (std::uint64_t seed = 11; seed < 14; ++seed) {
          const Eigen::MatrixXd x = box_design(40, lo, hi, seed, design);
          gp_options o;
          o.kernel = kernel;
          const gaussian_process gp = fit_gaussian_process(x, branin(x), o);
          const double q = q2(truth, gp.predict(test));
          INFO("seed " << seed << ": Q2 = " << q << ", LOO error " << gp.loo_error() << ", lengths "
                       << gp.hyperparameters().length_scales.transpose() << ", variance "
                       << gp.hyperparameters().variance << ", jitter " << gp.jitter()
                       << ", condition " << gp.condition_estimate() << ", evaluations "
                       << gp.fit_report().evaluations);
          CHECK(q >= 0.99);
          CHECK(gp.fit_report().starts == o.starts);
          CHECK(gp.fit_report().failed_starts == 0);
          // The LOO error says the fit is good too (it is pessimistic on a Sobol' design, whose
          // points leave holes when removed).
          CHECK(gp.loo_error() < 0.01);
        }
      }
    }
  }
}

TEST_CASE("gp: jitter is added and kept when the correlation matrix is singular", "[uq][gp]") {
  Eigen::MatrixXd x(30, 1);
  for (Eigen::Index i = 0; i < 30; ++i) x(i, 0) = static_cast<double>(i) / 29.0;
  const Eigen::VectorXd y = (3.0 * x.col(0).array()).sin().matrix();
  // A squared-exponential kernel of length 3 over [0, 1] is numerically rank-deficient.
  const gaussian_process gp(gp_kernel::squared_exponential, gp_trend::constant, x, y,
                            {Eigen::VectorXd::Constant(1, 3.0), 1.0, 0.0});
  CHECK(gp.jitter() > 0.0);
  CHECK(gp.jitter() <= 1e-2);
  CHECK(std::isfinite(gp.condition_estimate()));
  CHECK(gp.condition_estimate() < 1.0 / std::numeric_limits<double>::epsilon());
  CHECK(gp.noise_variance() == gp.jitter());
  CHECK(gp.predict(x).allFinite());
  CHECK(gp.loo_residuals().allFinite());
}

TEST_CASE("gp: a likelihood that is nowhere finite is reported", "[uq][gp]") {
  const Eigen::MatrixXd x =
      box_design(12, Eigen::RowVector2d(0.0, 0.0), Eigen::RowVector2d(1.0, 1.0), 2);
  // Finite values whose squares overflow: sigma^2 is infinite at every start.
  const Eigen::VectorXd y = 1e200 * smooth_2d(x);
  gp_options o;
  o.starts = 3;
  CHECK_THROWS_WITH(fit_gaussian_process(x, y, o), Contains("none of the 3 start(s)"));
}

TEST_CASE("gp: in 1-D the process interpolates and its sd grows between the points", "[uq][gp]") {
  Eigen::MatrixXd x(8, 1);
  for (Eigen::Index i = 0; i < 8; ++i) x(i, 0) = 1.25 * static_cast<double>(i);
  const Eigen::VectorXd y = (x.col(0).array().sin() + 0.1 * x.col(0).array()).matrix();
  const gaussian_process gp = fit_gaussian_process(x, y);
  const double scale = std::sqrt(gp.hyperparameters().variance);
  Eigen::VectorXd mean, sd;
  gp.predict(x, mean, sd);
  CHECK((mean - y).cwiseAbs().maxCoeff() < 1e-6 * scale);
  CHECK(sd.maxCoeff() < 1e-3 * scale);
  // From a training point to the midpoint of the next interval, the sd increases.
  Eigen::MatrixXd path(6, 1);
  for (Eigen::Index k = 0; k < 6; ++k) path(k, 0) = 2.5 + 0.125 * static_cast<double>(k);
  const Eigen::VectorXd along = gp.predictive_sd(path);
  for (Eigen::Index k = 1; k < 6; ++k) CHECK(along(k) > along(k - 1));
  CHECK(along(5) > 100.0 * sd.maxCoeff());
}

TEST_CASE("gp: an estimated nugget recovers the noise variance", "[uq][gp]") {
  const double noise_sd = 0.1;
  const Eigen::MatrixXd x = box_design(60, Eigen::RowVectorXd::Constant(1, 0.0),
                                       Eigen::RowVectorXd::Constant(1, 10.0), 5);
  boost::random::mt19937 engine(2024);
  boost::random::normal_distribution<double> noise(0.0, noise_sd);
  Eigen::VectorXd y(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    y(i) = std::sin(x(i, 0)) + 0.5 * std::cos(0.3 * x(i, 0)) + noise(engine);
  gp_options o;
  o.estimate_nugget = true;
  const gaussian_process gp = fit_gaussian_process(x, y, o);
  const double estimated = gp.noise_variance();
  INFO("noise variance " << estimated << " against " << noise_sd * noise_sd << "; nugget "
                         << gp.hyperparameters().nugget << ", variance "
                         << gp.hyperparameters().variance);
  CHECK(estimated > 0.5 * noise_sd * noise_sd);
  CHECK(estimated < 2.0 * noise_sd * noise_sd);
}

TEST_CASE("gp: a fit is determined by its seed", "[uq][gp]") {
  const Eigen::MatrixXd x =
      box_design(30, Eigen::RowVector2d(0.0, 0.0), Eigen::RowVector2d(1.0, 2.0), 21);
  const Eigen::VectorXd y = smooth_2d(x);
  gp_options o;
  o.trend = gp_trend::linear;
  o.estimate_nugget = true;
  o.seed = 42;
  o.starts = 4;
  const gaussian_process a = fit_gaussian_process(x, y, o), b = fit_gaussian_process(x, y, o);
  CHECK(a.hyperparameters().length_scales == b.hyperparameters().length_scales);
  CHECK(a.hyperparameters().variance == b.hyperparameters().variance);
  CHECK(a.hyperparameters().nugget == b.hyperparameters().nugget);
  CHECK(a.log_likelihood() == b.log_likelihood());
  CHECK(a.fit_report().evaluations == b.fit_report().evaluations);
  const Eigen::MatrixXd at =
      box_design(50, Eigen::RowVector2d(0.0, 0.0), Eigen::RowVector2d(1.0, 2.0), 8);
  CHECK(a.predict(at) == b.predict(at));
}

TEST_CASE("gp: the fitted hyperparameters maximise the likelihood in their box", "[uq][gp]") {
  const Eigen::MatrixXd x =
      box_design(25, Eigen::RowVector2d(0.0, 0.0), Eigen::RowVector2d(2.0, 1.0), 4);
  const Eigen::VectorXd y = smooth_2d(x);
  const gaussian_process gp = fit_gaussian_process(x, y);
  const auto& h = gp.hyperparameters();
  // At the optimum sigma^2 is concentrated: moving it lowers the likelihood.
  for (const double factor : {0.8, 1.25}) {
    gp_hyperparameters moved = h;
    moved.variance *= factor;
    CHECK(gaussian_process(gp.kernel(), gp.trend(), x, y, moved).log_likelihood() <
          gp.log_likelihood());
  }
  // So do the length scales, a little off the optimum but inside the box.
  const Eigen::RowVectorXd range = x.colwise().maxCoeff() - x.colwise().minCoeff();
  for (Eigen::Index j = 0; j < 2; ++j) {
    for (const double factor : {0.9, 1.1}) {
      gp_hyperparameters moved = h;
      moved.length_scales(j) *= factor;
      if (moved.length_scales(j) > 10.0 * range(j)) continue;
      CHECK(gaussian_process(gp.kernel(), gp.trend(), x, y, moved).log_likelihood() <
            gp.log_likelihood() + 1e-9);
    }
  }
  // Within the default bounds [range/100, 10 range].
  for (Eigen::Index j = 0; j < 2; ++j) {
    CHECK(h.length_scales(j) >= range(j) / 100.0 * (1 - 1e-12));
    CHECK(h.length_scales(j) <= 10.0 * range(j) * (1 + 1e-12));
  }
}

TEST_CASE("gp: clear errors for bad data and options", "[uq][gp]") {
  const Eigen::MatrixXd x =
      box_design(10, Eigen::RowVector2d(0.0, 0.0), Eigen::RowVector2d(1.0, 1.0), 1);
  const Eigen::VectorXd y = smooth_2d(x);
  gp_options linear;
  linear.trend = gp_trend::linear;
  CHECK_THROWS_WITH(fit_gaussian_process(x.topRows(3), y.head(3), linear),
                    Contains("at least 4 points"));
  CHECK_THROWS_WITH(fit_gaussian_process(x.topRows(1), y.head(1)), Contains("at least 2 points"));
  try {
    fit_gaussian_process(x.topRows(3), y.head(3), linear);
  } catch (const contactuq::parameter_error& e) {
    CHECK(e.field() == "samples");
  }
  CHECK_THROWS_WITH(fit_gaussian_process(x, y.head(9)), Contains("10 rows but y has 9"));
  Eigen::VectorXd bad = y;
  bad(3) = std::nan("");
  CHECK_THROWS_WITH(fit_gaussian_process(x, bad), Contains("finite"));
  CHECK_THROWS_WITH(fit_gaussian_process(x, Eigen::VectorXd::Constant(10, 2.0)),
                    Contains("constant"));
  gp_options o;
  o.starts = 0;
  CHECK_THROWS_AS(fit_gaussian_process(x, y, o), contactuq::parameter_error);
  o = {};
  o.fixed_nugget = -1.0;
  CHECK_THROWS_WITH(fit_gaussian_process(x, y, o), Contains("fixed_nugget"));
  gp_hyperparameters h{Eigen::Vector3d(1.0, 1.0, 1.0), 1.0, 0.0};
  CHECK_THROWS_WITH(gaussian_process(gp_kernel::matern52, gp_trend::constant, x, y, h),
                    Contains("3 length scales for 2 inputs"));
  // Collinear points cannot identify a linear trend in two inputs.
  Eigen::MatrixXd line(6, 2);
  for (int i = 0; i < 6; ++i) line.row(i) << i, 2.0 * i;
  h.length_scales = Eigen::Vector2d(1.0, 1.0);
  CHECK_THROWS_WITH(gaussian_process(gp_kernel::matern52, gp_trend::linear, line,
                                     Eigen::VectorXd::LinSpaced(6, 0.0, 1.0), h),
                    Contains("not identifiable"));
}

TEST_CASE("gp: predictions and variances equal OpenTURNS' kriging with the same hyperparameters",
          "[uq][gp]") {
  // Reference: OpenTURNS 1.20 KrigingAlgorithm with setOptimizeParameters(False), MaternModel
  // (nu = 2.5) or SquaredExponential, scales (0.7, 0.9), amplitude sqrt(2), no nugget, constant
  // or linear basis; getMetaModel() and getConditionalMarginalVariance(). bench/run_gp.sh holds
  // the script that printed these numbers.
  const int n = 15;
  Eigen::MatrixXd x(n, 2);
  for (int i = 1; i <= n; ++i) {
    x(i - 1, 0) = 3.0 * std::fmod(i * 0.6180339887498949, 1.0);
    x(i - 1, 1) = 2.0 * std::fmod(i * 0.41421356237309515, 1.0) - 1.0;
  }
  const Eigen::VectorXd y = smooth_2d(x);
  Eigen::MatrixXd at(5, 2);
  at << 0.37, -0.55, 1.5, 0.0, 2.2, 0.8, 2.9, -0.95, 0.05, 0.9;
  struct reference {
    gp_kernel kernel;
    gp_trend trend;
    std::vector<double> mean, variance, beta;
  };
  const std::vector<reference> cases = {
      {gp_kernel::matern52,
       gp_trend::constant,
       {0.42788171292407884, 1.4435458867904538, 1.4220120961526312, 1.1237410578025222,
        0.6568950845439737},
       {0.08438401903385015, 0.1031493143868772, 0.24577997264261492, 0.7841448080248631,
        1.3184273176199846},
       {0.9667331214205307}},
      {gp_kernel::matern52,
       gp_trend::linear,
       {0.4683428823367555, 1.4418756716095749, 1.4975798449460935, 1.2473082217707387,
        0.45332563932682524},
       {0.09029420892740221, 0.1039867321971504, 0.2760152992492285, 1.0795783572558666,
        1.8188979435814132},
       {0.4636609637247811, 0.3636234621038909, 0.11847096911654899}},
      {gp_kernel::squared_exponential,
       gp_trend::constant,
       {0.4496590548924084, 1.4441161446738284, 1.475281518001032, 1.135956746075029,
        0.5544665364812562},
       {0.01851331512554967, 0.005385725591038433, 0.018561366154606334, 0.3208130226666016,
        0.7193276671234032},
       {0.941739602534672}},
      {gp_kernel::squared_exponential,
       gp_trend::linear,
       {0.4727369361590049, 1.4429744364881727, 1.4940138874186675, 1.2133279355450368,
        0.39856933821373075},
       {0.019932322142312133, 0.006088553730677642, 0.021009591262909463, 0.4308313862832541,
        1.0006734146881189},
       {0.44394543267103803, 0.3559799450765212, 0.10609632982273676}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(to_string(c.kernel) << " kernel, " << to_string(c.trend) << " trend") {
      const gaussian_process gp(c.kernel, c.trend, x, y, {Eigen::Vector2d(0.7, 0.9), 2.0, 0.0});
      REQUIRE(gp.jitter() == 0.0);
      Eigen::VectorXd mean, sd;
      gp.predict(at, mean, sd);
      for (Eigen::Index i = 0; i < at.rows(); ++i) {
        CHECK(mean(i) == Approx(c.mean[static_cast<std::size_t>(i)]).epsilon(1e-9));
        CHECK(sd(i) * sd(i) == Approx(c.variance[static_cast<std::size_t>(i)]).epsilon(1e-8));
      }
      for (std::size_t k = 0; k < c.beta.size(); ++k)
        CHECK(gp.trend_coefficients()(static_cast<Eigen::Index>(k)) ==
              Approx(c.beta[k]).epsilon(1e-9));
    }
  }
}
