#include "contactuq/uq/morris.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double level_centre(std::size_t k, std::size_t levels) {
  return (static_cast<double>(k) + 0.5) / static_cast<double>(levels);
}

// mean |EE| of the effects picked by `pick` (indices into `ee`).
double mean_abs(const std::vector<double>& ee, const std::vector<std::size_t>& pick) {
  double sum = 0.0;
  for (std::size_t k : pick) sum += std::abs(ee[k]);
  return sum / static_cast<double>(pick.size());
}

// Percentile interval of mu* over B resamples of the r effects, resample b drawn from stream
// (seed, morris_bootstrap, b).
interval bootstrap_mu_star(const std::vector<double>& ee, std::size_t resamples, double confidence,
                           std::uint64_t seed) {
  if (ee.size() < 2 || resamples == 0) return {nan, nan};
  std::vector<double> replicate(resamples);
  std::vector<std::size_t> pick(ee.size());
  for (std::size_t b = 0; b < resamples; ++b) {
    engine e = make_engine(seed, stream_purpose::morris_bootstrap, b);
    for (auto& k : pick) k = static_cast<std::size_t>(uniform_index(e, ee.size()));
    replicate[b] = mean_abs(ee, pick);
  }
  const finite_sample s(replicate);
  return {s.quantile((1.0 - confidence) / 2.0), s.quantile((1.0 + confidence) / 2.0)};
}

}  // namespace

void morris_options::validate() const {
  if (trajectories < 2 || trajectories > 100'000)
    throw parameter_error("trajectories", fmt::format("trajectories = {}: must be in [2, 100000]", trajectories));
  if (levels < 2 || levels > 1000 || levels % 2 != 0)
    throw parameter_error("levels", fmt::format("levels = {}: must be even, in [2, 1000] (4 is usual)", levels));
}

morris_design make_morris_design(std::size_t inputs, const morris_options& options) {
  options.validate();
  if (inputs == 0) throw parameter_error("inputs", "Morris screening needs at least one input");
  const std::size_t d = inputs, r = options.trajectories, p = options.levels, half = p / 2;
  morris_design design{Eigen::MatrixXd(r * (d + 1), d), std::vector<std::size_t>(r * (d + 1), d), d, r};
  std::vector<std::size_t> level(d), order(d);
  for (std::size_t t = 0; t < r; ++t) {
    engine e = make_engine(options.seed, stream_purpose::morris_trajectory, t);
    // A base level per input; its partner is p/2 levels away, up or down, whichever exists.
    for (auto& k : level) k = static_cast<std::size_t>(uniform_index(e, p));
    // A uniformly random order of the moves (Fisher-Yates).
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = d; i > 1; --i) std::swap(order[i - 1], order[uniform_index(e, i)]);
    const std::size_t first = t * (d + 1);
    for (std::size_t i = 0; i < d; ++i) design.u(first, i) = level_centre(level[i], p);
    for (std::size_t j = 1; j <= d; ++j) {
      const std::size_t i = order[j - 1];
      level[i] = level[i] < half ? level[i] + half : level[i] - half;
      design.u.row(first + j) = design.u.row(first + j - 1);
      design.u(first + j, i) = level_centre(level[i], p);
      design.moved[first + j] = i;
    }
  }
  return design;
}

std::vector<morris_effect> elementary_effects(const morris_design& design, std::span<const double> y,
                                              std::size_t resamples, double confidence, std::uint64_t seed) {
  const std::size_t d = design.inputs, r = design.trajectories;
  if (y.size() != r * (d + 1))
    throw parameter_error("y", fmt::format("{} output values for a design of {} rows", y.size(), r * (d + 1)));
  std::vector<std::vector<double>> ee(d);
  for (std::size_t t = 0; t < r; ++t)
    for (std::size_t j = 1; j <= d; ++j) {
      const std::size_t row = t * (d + 1) + j, i = design.moved[row];
      const double dy = y[row] - y[row - 1], du = design.u(row, i) - design.u(row - 1, i);
      if (std::isfinite(dy)) ee[i].push_back(dy / du);
    }
  std::vector<morris_effect> effects(d);
  for (std::size_t i = 0; i < d; ++i) {
    morris_effect& e = effects[i];
    const std::vector<double>& x = ee[i];
    e.used = x.size();
    if (x.empty()) {
      e = {nan, nan, nan, nan, nan, 0};
      continue;
    }
    const double n = static_cast<double>(x.size());
    e.mu = std::accumulate(x.begin(), x.end(), 0.0) / n;
    double abs_sum = 0.0, square_sum = 0.0;
    for (double v : x) abs_sum += std::abs(v), square_sum += (v - e.mu) * (v - e.mu);
    e.mu_star = abs_sum / n;
    e.sigma = x.size() > 1 ? std::sqrt(square_sum / (n - 1.0)) : nan;
    const interval ci = bootstrap_mu_star(x, resamples, confidence, derive_seed(seed, stream_purpose::morris_bootstrap, i));
    e.mu_star_low = ci.low;
    e.mu_star_high = ci.high;
  }
  return effects;
}

}  // namespace contactuq::uq
