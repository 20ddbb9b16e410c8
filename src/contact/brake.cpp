#include "contactuq/contact/brake.hpp"

#include <boost/math/tools/minima.hpp>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"
#include "unloading_guard.hpp"

namespace contactuq::contact {
namespace {

constexpr double pi = std::numbers::pi;

// Cubic Hermite on s in [0, 1] through (0, y0) and (1, y1) with end slopes d0, d1 already
// multiplied by the interval length; the polynomial form of eqs. (23), (24) and (28).
double hermite(double s, double y0, double y1, double d0, double d1) {
  return ((2 * y0 - 2 * y1 + d0 + d1) * s + (-3 * y0 + 3 * y1 - 2 * d0 - d1)) * s * s + d0 * s + y0;
}

// d/ds of hermite().
double hermite_slope(double s, double y0, double y1, double d0, double d1) {
  return (3 * (2 * y0 - 2 * y1 + d0 + d1) * s + 2 * (-3 * y0 + 3 * y1 - 2 * d0 - d1)) * s + d0;
}

double hertz(const brake_params& p, double delta) {
  return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * delta * std::sqrt(delta);  // eq. (13)
}

// Deformed radius after unloading from the fully plastic regime, eq. (27) with a_m^2 from (17).
double plastic_unloading_radius(const brake_regimes& g, double delta_m) {
  const double a2 = 2 * g.params.radius * delta_m + g.xi;
  return 0.5 * (delta_m + a2 / delta_m);
}

}  // namespace

void brake_params::validate() const {
  require(modulus > 0 && std::isfinite(modulus), "modulus", modulus, "Pa", "positive and finite");
  require(radius > 0 && std::isfinite(radius), "radius", radius, "m", "positive and finite");
  require(yield_strength > 0 && std::isfinite(yield_strength), "yield_strength", yield_strength,
          "Pa", "positive and finite");
  require(poisson >= 0 && poisson < 0.5, "poisson", poisson, "", "in [0, 0.5)");
  require(hardness > yield_strength && std::isfinite(hardness), "hardness", hardness, "Pa",
          "greater than yield_strength (the fully plastic onset, eq. 20, must follow first yield)");
}

double brake_stress_factor(double poisson) {
  require(poisson >= 0 && poisson < 0.5, "poisson", poisson, "", "in [0, 0.5)");
  // Eq. (14). The stress combination is even in z, so z >= 0 suffices; atan(1/z) = atan2(1, z)
  // is finite at z = 0. Its peak lies near z = 0.5 (depth over contact radius) for nu in [0, 0.5).
  auto negative_square = [poisson](double z) {
    const double s = -(1 + poisson) * (1 - z * std::atan2(1.0, z)) + 1.5 / (1 + z * z);
    return -s * s;
  };
  const auto [z, value] = boost::math::tools::brent_find_minima(negative_square, 0.0, 3.0, 52);
  (void)z;
  return -value;
}

brake_regimes make_brake_regimes(const brake_params& p) {
  p.validate();
  brake_regimes g;
  g.params = p;
  const double r = p.radius;
  const double e = p.modulus;
  const double p0 = p.hardness;
  g.stress_factor = brake_stress_factor(p.poisson);
  const double x = pi * p.yield_strength / (2 * e);
  g.yield_overlap = r / g.stress_factor * x * x;  // eq. (15)
  g.yield_force = hertz(p, g.yield_overlap);
  g.yield_slope = 1.5 * g.yield_force / g.yield_overlap;
  g.yield_radius = std::sqrt(r * g.yield_overlap);
  g.yield_radius_slope = 0.5 * std::sqrt(r / g.yield_overlap);
  const double ratio = p0 / p.yield_strength;
  g.plastic_overlap = ratio * ratio * g.yield_overlap;  // eq. (20)
  const double a_p = 3 * pi * r * p0 / (4 * e);
  g.xi = a_p * a_p - 2 * r * g.plastic_overlap;  // eq. (22), dimensionally consistent form
  g.plastic_radius = std::sqrt(2 * r * g.plastic_overlap + g.xi);   // eq. (21), equals a_p
  g.plastic_radius_slope = r / g.plastic_radius;                    // d/d delta of eq. (17)
  g.plastic_force = p0 * pi * g.plastic_radius * g.plastic_radius;  // eq. (16)
  g.plastic_slope = 2 * pi * p0 * r;                                // d/d delta of eq. (18)
  g.plastic_unloading_radius = plastic_unloading_radius(g, g.plastic_overlap);
  g.plastic_unloading_radius_slope =
      0.5 * (1 - g.xi / (g.plastic_overlap * g.plastic_overlap));  // d/d delta_m of eq. (27)
  return g;
}

double brake_loading_force(const brake_regimes& g, double delta) {
  if (delta <= 0) return 0.0;
  if (delta <= g.yield_overlap) return hertz(g.params, delta);  // eq. (13)
  if (delta >= g.plastic_overlap)
    return g.params.hardness * pi * (2 * g.params.radius * delta + g.xi);  // eq. (18)
  const double span = g.plastic_overlap - g.yield_overlap;
  const double s = (delta - g.yield_overlap) / span;
  return hermite(s, g.yield_force, g.plastic_force, span * g.yield_slope,
                 span * g.plastic_slope);  // eq. (23)
}

double brake_loading_slope(const brake_regimes& g, double delta) {
  if (delta <= 0) return 0.0;
  if (delta <= g.yield_overlap) return 1.5 * hertz(g.params, delta) / delta;
  if (delta >= g.plastic_overlap) return g.plastic_slope;
  const double span = g.plastic_overlap - g.yield_overlap;
  const double s = (delta - g.yield_overlap) / span;
  return hermite_slope(s, g.yield_force, g.plastic_force, span * g.yield_slope,
                       span * g.plastic_slope) /
         span;
}

double brake_contact_radius(const brake_regimes& g, double delta) {
  if (delta <= 0) return 0.0;
  if (delta <= g.yield_overlap) return std::sqrt(g.params.radius * delta);  // below eq. (13)
  if (delta >= g.plastic_overlap) return std::sqrt(2 * g.params.radius * delta + g.xi);  // (17)
  const double span = g.plastic_overlap - g.yield_overlap;
  const double s = (delta - g.yield_overlap) / span;
  return hermite(s, g.yield_radius, g.plastic_radius, span * g.yield_radius_slope,
                 span * g.plastic_radius_slope);  // eq. (24)
}

double brake_unloading_force(const brake_regimes& g, double delta, const brake_state& s) {
  const double x = delta - s.residual_overlap;
  if (delta <= 0 || x <= 0) return 0.0;
  return 4.0 / 3.0 * g.params.modulus * std::sqrt(s.unloading_radius) * x * std::sqrt(x);  // (25)
}

double brake_force(const brake_regimes& g, double delta, double /*delta_dot*/, brake_state& s) {
  if (delta < s.max_overlap) return brake_unloading_force(g, delta, s);
  const double f = brake_loading_force(g, delta);
  s.max_overlap = delta;
  s.max_force = f;
  s.max_radius = brake_contact_radius(g, delta);
  const double r = g.params.radius;
  const double e = g.params.modulus;
  if (delta <= g.yield_overlap) {  // elastic: r_bar = r, delta_bar = 0
    s.unloading_radius = r;
    s.residual_overlap = 0.0;
    return f;
  }
  if (delta >= g.plastic_overlap) {
    s.unloading_radius = 0.5 * (delta + s.max_radius * s.max_radius / delta);  // eq. (27)
  } else {
    const double span = g.plastic_overlap - g.yield_overlap;
    const double t = (delta - g.yield_overlap) / span;
    s.unloading_radius = hermite(t, r, g.plastic_unloading_radius, 0.0,
                                 span * g.plastic_unloading_radius_slope);  // eq. (28)
  }
  // Eq. (26) with the printed r_bar; then the admissibility condition (see the header): the
  // residual is raised, where needed, until r_bar >= r and unloading lies at or below loading,
  // and r_bar follows from continuity at (delta_m, F_m).
  const double k = 3 * f / (4 * e);
  const double printed = delta - std::cbrt(k * k / s.unloading_radius);     // eq. (26)
  const double radius_bound = delta - std::cbrt(k * k / r);                  // r_bar >= r
  const double loading_bound = detail::admissible_residual(
      [&g](double d) { return brake_loading_force(g, d); }, delta, f,
      brake_loading_slope(g, delta), 1.5);
  s.residual_overlap = std::max({printed, radius_bound, loading_bound, 0.0});
  if (s.residual_overlap > printed) {
    const double x = delta - s.residual_overlap;
    s.unloading_radius = k * k / (x * x * x);  // eq. (26) solved for r_bar
  }
  return f;
}

double brake_force(const brake_params& params, double delta, double delta_dot, brake_state& state) {
  return brake_force(make_brake_regimes(params), delta, delta_dot, state);
}

}  // namespace contactuq::contact
