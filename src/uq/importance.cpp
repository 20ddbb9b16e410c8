// Importance sampling around design points (Melchers 1989) and plain Monte Carlo.
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/reliability.hpp"

namespace contactuq::uq {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double z975 = 1.959963984540054;  // Phi^-1(0.975)

double standard_normal(engine& e) {
  return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * open_uniform(e));
}

// ln(phi(u) / q(u)) for the equal mixture q = (1/K) sum_k phi(u - c_k) of K unit normals; the
// normalising constants cancel, ln w = -|u|^2/2 - ln((1/K) sum_k exp(-|u - c_k|^2/2)), with the
// sum taken as a log-sum-exp so far-away centres do not underflow it.
double log_weight(const Eigen::VectorXd& u, const std::vector<Eigen::VectorXd>& centres,
                  std::vector<double>& scratch) {
  double largest = -inf;
  for (std::size_t k = 0; k < centres.size(); ++k) {
    scratch[k] = -0.5 * (u - centres[k]).squaredNorm();
    largest = std::max(largest, scratch[k]);
  }
  double sum = 0.0;
  for (double a : scratch) sum += std::exp(a - largest);
  const double log_q = largest + std::log(sum / static_cast<double>(centres.size()));
  return -0.5 * u.squaredNorm() - log_q;
}

void validate(std::size_t dimension, const importance_options& o) {
  if (dimension == 0) throw parameter_error("dimension", "importance sampling needs at least one input");
  if (o.samples < 10 || o.samples > 1'000'000'000)
    throw parameter_error("samples", fmt::format("samples = {}: must be in [10, 1e9]", o.samples));
  if (o.block < 1 || o.block > 100'000'000)
    throw parameter_error("block", fmt::format("block = {}: must be in [1, 1e8]", o.block));
  for (std::size_t k = 0; k < o.centres.size(); ++k) {
    if (static_cast<std::size_t>(o.centres[k].size()) != dimension)
      throw parameter_error("centres", fmt::format("centre {} has {} coordinates: must have {}", k,
                                                   o.centres[k].size(), dimension));
    if (!o.centres[k].allFinite())
      throw parameter_error("centres", fmt::format("centre {} is not finite", k));
  }
}

}  // namespace

importance_result run_importance(const limit_state& g, std::size_t dimension,
                                 const importance_options& options) {
  validate(dimension, options);
  if (!g) throw parameter_error("limit_state", "no limit state given");
  const auto& centres = options.centres;
  const auto d = static_cast<Eigen::Index>(dimension);
  importance_result result;
  probability_estimate& p = result.probability;
  std::vector<double> scratch(centres.size());
  Eigen::VectorXd point(d);
  // Sums over the points whose g is finite: of I w, (I w)^2, and the count of failures.
  double sum = 0.0, sum_sq = 0.0;
  std::size_t used = 0, failures = 0;
  const std::size_t blocks = (options.samples + options.block - 1) / options.block;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t rows = std::min(options.block, options.samples - b * options.block);
    engine e = make_engine(options.seed, stream_purpose::reliability_importance, b);
    Eigen::MatrixXd u(static_cast<Eigen::Index>(rows), d);
    for (Eigen::Index i = 0; i < u.rows(); ++i) {
      const Eigen::VectorXd* centre =
          centres.empty() ? nullptr : &centres[uniform_index(e, centres.size())];
      for (Eigen::Index k = 0; k < d; ++k) u(i, k) = standard_normal(e) + (centre ? (*centre)(k) : 0.0);
    }
    const Eigen::VectorXd y = g(u);
    if (y.size() != u.rows())
      throw parameter_error("limit_state", fmt::format("limit state returned {} values for {} points",
                                                       y.size(), u.rows()));
    p.model_calls += rows;
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      // A failed evaluation leaves the sample: the estimate is the mean over the points that
      // gave a value, as if the failed ones fell like the rest.
      if (!std::isfinite(y(i))) {
        ++p.failed_calls;
        continue;
      }
      ++used;
      if (y(i) > 0.0) continue;
      ++failures;
      point = u.row(i).transpose();
      const double w = centres.empty() ? 1.0 : std::exp(log_weight(point, centres, scratch));
      sum += w;
      sum_sq += w * w;
    }
  }
  result.effective_sample_size = sum_sq > 0.0 ? sum * sum / sum_sq : 0.0;
  if (used == 0) {
    p.estimate = p.cov = p.ci_low = p.ci_high = nan;
    p.interval = "none: every evaluation failed";
    return result;
  }
  const auto n = static_cast<double>(used);
  p.estimate = sum / n;
  if (centres.empty()) {
    // Wilson (1927) score interval for k failures in n: centre (k + z^2/2) / (n + z^2),
    // half-width z / (n + z^2) sqrt(k (n - k) / n + z^2 / 4). With k = 0 it is [0, z^2/(n + z^2)].
    const auto k = static_cast<double>(failures);
    const double z2 = z975 * z975;
    const double centre = (k + 0.5 * z2) / (n + z2);
    const double half = z975 / (n + z2) * std::sqrt(k * (n - k) / n + 0.25 * z2);
    p.ci_low = std::max(0.0, centre - half);
    p.ci_high = std::min(1.0, centre + half);
    // sqrt((1 - p) / (n p)); with no failure the estimate 0 has no finite CoV: inf, so that
    // the 0 cannot read as certainty (the Wilson upper limit is the information).
    p.cov = failures ? std::sqrt((1.0 - p.estimate) / (n * p.estimate)) : inf;
    p.interval = "wilson";
    return result;
  }
  if (failures == 0) {
    // No failed point: importance sampling gives no bound on its own, so none is invented.
    p.cov = inf;
    p.ci_low = 0.0;
    p.ci_high = nan;
    p.interval = "none: no failure observed";
    return result;
  }
  // The sample variance of I w over the n points, and cov = se / estimate.
  const double variance = used > 1 ? std::max(0.0, (sum_sq - sum * sum / n) / (n - 1.0)) : 0.0;
  const double se = std::sqrt(variance / n);
  p.cov = se / p.estimate;
  // Normal approximation of the mean, the low end clamped at 0 (a probability).
  p.ci_low = std::max(0.0, p.estimate - z975 * se);
  p.ci_high = p.estimate + z975 * se;
  p.interval = "normal(se), low clamped at 0";
  return result;
}

}  // namespace contactuq::uq
