#pragma once
// Morris screening: elementary effects over one-at-a-time trajectories (Morris 1991,
// "Factorial sampling plans for preliminary computational experiments", Technometrics 33(2)
// 161-174), with the mean absolute effect mu* of Campolongo, Cariboni & Saltelli (2007),
// "An effective screening design for sensitivity analysis of large models", Environmental
// Modelling & Software 22, 1509-1518.
//
// The d inputs are screened on a grid of p (even) levels of their probability u in (0, 1), at
// the centres u_k = (k + 1/2) / p of p equally likely bins, so that every quantile is finite.
// A trajectory is d + 1 points: a random base point, then each input in a random order moved
// by p/2 levels, Delta u = +-1/2, one at a time. The elementary effect of input i on
// trajectory t, Morris (1991) eq. (1) in probability units,
//   EE_i^t = (y(after the move of i) - y(before)) / (u_i after - u_i before),
// and over the r trajectories where both ends are finite
//   mu_i = mean EE_i,  mu*_i = mean |EE_i|,  sigma_i = sd EE_i (divisor r - 1).
// For a uniform input on [a, b], y = c x gives EE = c (b - a) exactly: effects are in output
// units per the input's whole range.

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace contactuq::uq {

struct morris_options {
  std::size_t trajectories = 20;  ///< r, in [2, 100000]
  std::size_t levels = 4;         ///< p, even, in [2, 1000]
  std::uint64_t seed = 1;         ///< the study seed; trajectory t uses stream (seed, morris_trajectory, t)
  void validate() const;          ///< throws parameter_error naming the field
};

// r trajectories of d + 1 points each, row t (d + 1) + j the j-th point of trajectory t.
struct morris_design {
  Eigen::MatrixXd u;                ///< r (d + 1) x d probabilities, each a level centre
  std::vector<std::size_t> moved;   ///< per row j >= 1 of a trajectory: the input moved to reach it
  std::size_t inputs = 0;           ///< d
  std::size_t trajectories = 0;     ///< r
};

// Trajectory t depends only on (seed, t), not on r or on the order they are made in.
morris_design make_morris_design(std::size_t inputs, const morris_options& options);

struct morris_effect {
  double mu = 0.0, mu_star = 0.0, sigma = 0.0;
  // A percentile bootstrap interval of mu* over trajectories (Campolongo et al. 2007, sec. 3).
  double mu_star_low = 0.0, mu_star_high = 0.0;
  std::size_t used = 0;  ///< trajectories whose two ends of the move are finite
};

// The effects of every input on output values y (one per design row; NaN for a failed row).
// An input with no usable trajectory gets NaN effects and used = 0.
std::vector<morris_effect> elementary_effects(const morris_design& design, std::span<const double> y,
                                              std::size_t resamples = 1000, double confidence = 0.95,
                                              std::uint64_t seed = 1);

}  // namespace contactuq::uq
