#include "contactuq/contact/thornton.hpp"

#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

namespace contactuq::contact {

void thornton_params::validate() const {
  require(modulus > 0 && std::isfinite(modulus), "modulus", modulus, "Pa", "positive and finite");
  require(radius > 0 && std::isfinite(radius), "radius", radius, "m", "positive and finite");
  require(yield_strength > 0 && std::isfinite(yield_strength), "yield_strength", yield_strength,
          "Pa", "positive and finite");
}

double thornton_yield_overlap(const thornton_params& p) {
  const double x = std::numbers::pi * p.yield_strength / (2 * p.modulus);
  return x * x * p.radius;  // eq. (37)
}

double thornton_yield_force(const thornton_params& p) {
  const double dy = thornton_yield_overlap(p);
  return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * dy * std::sqrt(dy);  // eq. (38)
}

double thornton_loading_force(const thornton_params& p, double delta) {
  if (delta <= 0) return 0.0;
  const double dy = thornton_yield_overlap(p);
  if (delta <= dy) return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * delta * std::sqrt(delta);
  return thornton_yield_force(p) +
         std::numbers::pi * p.yield_strength * p.radius * (delta - dy);  // eq. (39)
}

double thornton_unloading_force(const thornton_params& p, double delta, const thornton_state& s) {
  const double x = delta - s.residual_overlap;
  if (delta <= 0 || x <= 0) return 0.0;
  return 4.0 / 3.0 * p.modulus * std::sqrt(s.unloading_radius) * x * std::sqrt(x);  // eq. (42)
}

double thornton_force(const thornton_params& p, double delta, double /*delta_dot*/,
                      thornton_state& s) {
  if (delta < s.max_overlap) return thornton_unloading_force(p, delta, s);
  const double f = thornton_loading_force(p, delta);
  s.max_overlap = delta;
  s.max_force = f;
  if (delta <= thornton_yield_overlap(p)) {
    s.unloading_radius = p.radius;  // elastic: unloading retraces loading
    s.residual_overlap = 0.0;
  } else {
    const double hertz = 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * delta * std::sqrt(delta);
    s.unloading_radius = p.radius * hertz / f;  // eq. (40)
    s.residual_overlap =
        delta - std::cbrt(std::pow(3 * f / (4 * p.modulus * std::sqrt(s.unloading_radius)), 2));
  }
  return f;
}

double thornton_restitution(double yield_velocity, double impact_velocity) {
  require(yield_velocity > 0, "yield_velocity", yield_velocity, "m/s", "positive");
  require(impact_velocity > 0, "impact_velocity", impact_velocity, "m/s", "positive");
  const double q = yield_velocity / impact_velocity;
  if (q >= 1) return 1.0;
  return std::sqrt(6 * std::sqrt(3.0) / 5) * std::sqrt(1 - q * q / 6) *
         std::pow(q / (q + 2 * std::sqrt(6.0 / 5 - q * q / 5)), 0.25);
}

double thornton_yield_velocity(const thornton_params& p, double mass) {
  require(mass > 0 && std::isfinite(mass), "mass", mass, "kg", "positive and finite");
  return std::sqrt(4 * thornton_yield_force(p) * thornton_yield_overlap(p) / (5 * mass));
}

}  // namespace contactuq::contact
