#pragma once
// Limit states in standard normal space with known failure probabilities, shared by the tests
// of the reliability algorithms (uq/reliability.hpp).
#include <Eigen/Core>

#include <algorithm>
#include <cmath>

#include "contactuq/uq/reliability.hpp"

namespace contactuq::uq::test_cases {

inline double normal_tail(double beta) { return 0.5 * std::erfc(beta / std::sqrt(2.0)); }  // Phi(-beta)

// g = beta sqrt(n) - sum u_i: Pf = Phi(-beta) in any dimension n.
inline limit_state linear(double beta) {
  return [beta](const Eigen::MatrixXd& u) -> Eigen::VectorXd {
    const double a = beta * std::sqrt(static_cast<double>(u.cols()));
    return (a - u.rowwise().sum().array()).matrix();
  };
}

// The four-branch series system (otbenchmark, k = 7) in two standard normals; Pf = 2.2228e-3
// published, 2.2349e-3 +- 0.34 % by 4e7 Monte Carlo runs.
inline limit_state four_branch() {
  return [](const Eigen::MatrixXd& u) {
    Eigen::VectorXd y(u.rows());
    const double r = std::sqrt(2.0);
    for (Eigen::Index i = 0; i < u.rows(); ++i) {
      const double a = u(i, 0), b = u(i, 1), q = 0.1 * (a - b) * (a - b);
      y(i) = std::min({3.0 + q - (a + b) / r, 3.0 + q + (a + b) / r, (a - b) + 7.0 / r, (b - a) + 7.0 / r});
    }
    return y;
  };
}

}  // namespace contactuq::uq::test_cases
