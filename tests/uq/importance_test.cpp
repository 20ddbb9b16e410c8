// Importance sampling and plain Monte Carlo against closed forms. Seeds only make the runs
// deterministic; tolerances come from each run's own standard error (4 of them: a correct
// estimator misses with P ~ 6e-5), or from coverage over many runs.
#include <boost/math/special_functions/erf.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/reliability.hpp"
#include "limit_states.hpp"

using namespace contactuq::uq;
using namespace contactuq::uq::test_cases;

namespace {

// R - S with R ~ N(200, 20), S ~ N(150, 10), in u: g = 50 + 20 u_1 - 10 u_2; beta = sqrt(5),
// design point u* = -beta alpha = (-2, 1).
limit_state r_minus_s() {
  return [](const Eigen::MatrixXd& u) -> Eigen::VectorXd {
    return (50.0 + 20.0 * u.col(0).array() - 10.0 * u.col(1).array()).matrix();
  };
}
const double r_minus_s_pf = normal_tail(std::sqrt(5.0));  // 0.012674


double standard_error(const probability_estimate& p) { return p.cov * p.estimate; }

}  // namespace

TEST_CASE("plain Monte Carlo of R - S: a Wilson interval around k / n", "[uq][importance]") {
  const importance_options o{.samples = 100'000, .centres = {}, .block = 10'000, .seed = 3};
  const importance_result r = run_importance(r_minus_s(), 2, o);
  const probability_estimate& p = r.probability;
  CHECK(p.model_calls == 100'000);
  CHECK(p.failed_calls == 0);
  CHECK(p.interval == "wilson");
  // The Wilson interval, written out: k failures in n.
  const double n = 1e5, k = std::round(p.estimate * n), z = 1.959963984540054;
  const double centre = (k + z * z / 2) / (n + z * z);
  const double half = z / (n + z * z) * std::sqrt(k * (n - k) / n + z * z / 4);
  CHECK(p.ci_low == Approx(centre - half).epsilon(1e-12));
  CHECK(p.ci_high == Approx(centre + half).epsilon(1e-12));
  CHECK(p.cov == Approx(std::sqrt((1 - p.estimate) / (n * p.estimate))).epsilon(1e-12));
  CHECK(r.effective_sample_size == Approx(k));
  // The truth within the interval doubled about the estimate (about 3.9 sigma).
  INFO("estimate " << p.estimate << " [" << p.ci_low << ", " << p.ci_high << "], truth " << r_minus_s_pf);
  CHECK(std::abs(p.estimate - r_minus_s_pf) <= p.ci_high - p.ci_low);
}

TEST_CASE("importance sampling of R - S at its design point", "[uq][importance]") {
  const importance_options o{.samples = 2000, .centres = {Eigen::Vector2d(-2.0, 1.0)}, .seed = 4};
  const importance_result r = run_importance(r_minus_s(), 2, o);
  const probability_estimate& p = r.probability;
  INFO("estimate " << p.estimate << ", cov " << p.cov << ", ess " << r.effective_sample_size);
  CHECK(p.model_calls == 2000);
  CHECK(p.interval == "normal(se), low clamped at 0");
  CHECK(std::abs(p.estimate - r_minus_s_pf) <= 4.0 * standard_error(p));
  CHECK(p.ci_low == Approx(std::max(0.0, p.estimate - 1.959963984540054 * standard_error(p))));
  // Around the design point about half the samples fail, with a far better CoV than 2000
  // plain Monte Carlo samples would give (sqrt((1 - p) / (n p)) = 0.2).
  CHECK(r.effective_sample_size > 100.0);
  CHECK(p.cov < 0.1);
}

TEST_CASE("importance sampling: 95 % intervals cover Phi(-3.5) (linear, n = 10)", "[uq][importance]") {
  // 200 runs of 1000 samples at the design point beta/sqrt(n) (1, ..., 1). With a true
  // coverage of 0.92 or more, P(fewer than 170 of 200) < 1e-3 over the seeds.
  const double truth = normal_tail(3.5);
  const Eigen::VectorXd centre = Eigen::VectorXd::Constant(10, 3.5 / std::sqrt(10.0));
  int covered = 0;
  for (int s = 0; s < 200; ++s) {
    const importance_options o{.samples = 1000, .centres = {centre}, .seed = static_cast<std::uint64_t>(s)};
    const probability_estimate p = run_importance(linear(3.5), 10, o).probability;
    covered += (p.ci_low <= truth && truth <= p.ci_high) ? 1 : 0;
  }
  INFO("coverage " << covered << "/200");
  CHECK(covered >= 170);
}

TEST_CASE("importance sampling of the four-branch system with its four design points", "[uq][importance]") {
  // Branches 1 and 2: distance 3 along +-(1, 1)/sqrt 2; branches 3 and 4: distance 3.5 along
  // +-(1, -1)/sqrt 2.
  const double a = 3.0 / std::sqrt(2.0), b = 3.5 / std::sqrt(2.0);
  const importance_options o{.samples = 4000,
                             .centres = {Eigen::Vector2d(a, a), Eigen::Vector2d(-a, -a),
                                         Eigen::Vector2d(b, -b), Eigen::Vector2d(-b, b)},
                             .seed = 6};
  const importance_result r = run_importance(four_branch(), 2, o);
  INFO("estimate " << r.probability.estimate << ", cov " << r.probability.cov);
  CHECK(std::abs(r.probability.estimate - 2.2228e-3) <= 4.0 * standard_error(r.probability));
  CHECK(r.probability.cov < 0.1);
}

TEST_CASE("importance sampling draws block b from stream (seed, reliability_importance, b)",
          "[uq][importance]") {
  std::vector<Eigen::MatrixXd> seen;
  const limit_state g = [&](const Eigen::MatrixXd& u) -> Eigen::VectorXd {
    seen.push_back(u);
    return Eigen::VectorXd::Ones(u.rows());
  };
  const importance_options o{.samples = 25, .centres = {}, .block = 10, .seed = 8};
  run_importance(g, 3, o);
  REQUIRE(seen.size() == 3);
  CHECK(seen[2].rows() == 5);
  for (std::size_t b = 0; b < 3; ++b) {
    engine e = make_engine(8, stream_purpose::reliability_importance, b);
    for (Eigen::Index i = 0; i < seen[b].rows(); ++i)
      for (Eigen::Index k = 0; k < 3; ++k)
        CHECK(seen[b](i, k) == -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * open_uniform(e)));
  }
}

TEST_CASE("no failure observed: estimate 0 is not presented as certain", "[uq][importance]") {
  const limit_state safe = [](const Eigen::MatrixXd& u) -> Eigen::VectorXd {
    return (20.0 - u.col(0).array()).matrix();
  };
  const probability_estimate mc = run_importance(safe, 2, {.samples = 1000, .centres = {}}).probability;
  CHECK(mc.estimate == 0.0);
  CHECK(std::isinf(mc.cov));
  CHECK(mc.ci_low == 0.0);
  const double z2 = 1.959963984540054 * 1.959963984540054;
  CHECK(mc.ci_high == Approx(z2 / (1000 + z2)));  // Wilson's upper limit with k = 0
  const probability_estimate is =
      run_importance(safe, 2, {.samples = 1000, .centres = {Eigen::Vector2d(0.0, 3.0)}}).probability;
  CHECK(is.estimate == 0.0);
  CHECK(std::isinf(is.cov));
  CHECK(std::isnan(is.ci_high));
}

TEST_CASE("failed evaluations leave the sample and are counted", "[uq][importance]") {
  const limit_state g = [](const Eigen::MatrixXd& u) -> Eigen::VectorXd {
    Eigen::VectorXd y = (1.0 - u.col(0).array()).matrix();
    for (Eigen::Index i = 0; i < u.rows(); ++i)
      if (u(i, 1) < 0.0) y(i) = std::numeric_limits<double>::quiet_NaN();
    return y;
  };
  const probability_estimate p = run_importance(g, 2, {.samples = 20'000, .centres = {}, .seed = 2}).probability;
  CHECK(p.model_calls == 20'000);
  CHECK(p.failed_calls > 9000);
  CHECK(p.failed_calls < 11'000);
  // P(u_1 >= 1) = 0.1587 over the ~10,000 finite points (independent of the NaN region).
  CHECK(std::abs(p.estimate - normal_tail(1.0)) <= 4.0 * standard_error(p));
}

TEST_CASE("importance options are validated", "[uq][importance]") {
  const auto field = [](std::size_t d, const importance_options& o) -> std::string {
    try {
      run_importance(linear(3.0), d, o);
    } catch (const contactuq::parameter_error& e) {
      return e.field();
    }
    return "";
  };
  CHECK(field(2, {.samples = 10, .centres = {}}) == "");
  CHECK(field(0, {.samples = 10, .centres = {}}) == "dimension");
  CHECK(field(2, {.samples = 9, .centres = {}}) == "samples");
  CHECK(field(2, {.samples = 10, .centres = {}, .block = 0}) == "block");
  CHECK(field(2, {.samples = 10, .centres = {Eigen::Vector3d::Zero()}}) == "centres");
  CHECK(field(2, {.samples = 10, .centres = {Eigen::Vector2d(0.0, std::nan(""))}}) == "centres");
}
