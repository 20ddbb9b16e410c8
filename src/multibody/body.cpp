#include "contactuq/multibody/body.hpp"

#include <fmt/format.h>

#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::multibody {

void body::validate() const {
  const std::string prefix = name.empty() ? std::string("body") : name;
  require(mass > 0 && std::isfinite(mass), fmt::format("{}.mass", prefix), mass, "kg",
          "positive and finite");
  require(inertia > 0 && std::isfinite(inertia), fmt::format("{}.inertia", prefix), inertia,
          "kg*m^2", "positive and finite");
  const bool finite = position.allFinite() && std::isfinite(angle) && velocity.allFinite() &&
                      std::isfinite(angular_velocity);
  if (!finite)
    throw parameter_error(fmt::format("{}.position", prefix),
                          fmt::format("{}: initial pose and velocity must be finite", prefix));
}

Eigen::Matrix2d rotation(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Eigen::Matrix2d a;
  a << c, -s, s, c;
  return a;
}

Eigen::Matrix2d rotation_derivative(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Eigen::Matrix2d a;
  a << -s, -c, c, -s;
  return a;
}

vec2 point_position(const vec2& position, double theta, const vec2& u) {
  return position + rotation(theta) * u;  // eq. (6)
}

vec2 point_velocity(const vec2& velocity, double theta, double omega, const vec2& u) {
  return velocity + rotation_derivative(theta) * u * omega;  // eq. (7)
}

double generalized_moment(double theta, const vec2& u, const vec2& force) {
  return force.dot(rotation_derivative(theta) * u);  // eq. (33)
}

}  // namespace contactuq::multibody
