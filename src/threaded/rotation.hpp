#pragma once
// Constants and rotation helpers shared by the grasp, the contact detector and the insertion
// dynamics (threaded_insertion.hpp).

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

namespace contactuq::threaded::detail {

inline constexpr double pi = std::numbers::pi;
inline constexpr double two_pi = 2 * pi;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using vec6 = Eigen::Matrix<double, 6, 1>;

// Rotation vector of a rotation matrix (log map).
inline Vector3d rotation_log(const Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

inline double wrap_pi(double a) { return a - two_pi * std::round(a / two_pi); }

}  // namespace contactuq::threaded::detail
