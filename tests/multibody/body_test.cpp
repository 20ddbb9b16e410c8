// Kinematics of planar bodies, Skrinjar et al. (003_...) eqs. (6), (7), (33).
#include "contactuq/multibody/body.hpp"

#include <Eigen/LU>

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::multibody;

TEST_CASE("eq. (7) is the time derivative of eq. (6)", "[multibody]") {
  const double theta = GENERATE(0.0, 0.4, -2.0);
  const vec2 u(0.03, -0.01), position(0.1, 0.2), velocity(0.5, -0.3);
  const double omega = 7.0, h = 1e-7;
  const vec2 ahead = point_position(position + h * velocity, theta + h * omega, u);
  const vec2 behind = point_position(position - h * velocity, theta - h * omega, u);
  const vec2 fd = (ahead - behind) / (2 * h);
  const vec2 v = point_velocity(velocity, theta, omega, u);
  CHECK(v.x() == Approx(fd.x()).epsilon(1e-7));
  CHECK(v.y() == Approx(fd.y()).epsilon(1e-7));
}

TEST_CASE("eq. (33): the moment of a force is r x F about the centre of mass", "[multibody]") {
  const double theta = 0.7;
  const vec2 u(0.02, 0.005), f(3.0, -1.5);
  const vec2 r = rotation(theta) * u;
  CHECK(generalized_moment(theta, u, f) == Approx(r.x() * f.y() - r.y() * f.x()));
  CHECK(rotation(theta).determinant() == Approx(1.0));
}

TEST_CASE("a body without mass or inertia is rejected by name", "[multibody]") {
  body b{"slot", 0.0, 1e-6};
  CHECK_THROWS_WITH(b.validate(), Catch::Contains("slot.mass"));
  b.mass = 1.0;
  b.inertia = -1;
  CHECK_THROWS_AS(b.validate(), contactuq::parameter_error);
}
