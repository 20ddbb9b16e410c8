#include "contactuq/contact/etsion.hpp"

#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

namespace contactuq::contact {

void etsion_params::validate() const {
  require(modulus > 0 && std::isfinite(modulus), "modulus", modulus, "Pa", "positive and finite");
  require(radius > 0 && std::isfinite(radius), "radius", radius, "m", "positive and finite");
  require(poisson >= 0 && poisson < 0.5, "poisson", poisson, "", "in [0, 0.5)");
  require(hardness > 0 && std::isfinite(hardness), "hardness", hardness, "Pa",
          "positive and finite");
}

double etsion_yield_overlap(const etsion_params& p) {
  const double k = 0.454 + 0.41 * p.poisson;  // hardness coefficient, below eq. (29)
  const double x = std::numbers::pi * k * p.hardness / (2 * p.modulus);
  return x * x * p.radius;  // eq. (29) with the pi of Kogut-Etsion (see header)
}

double etsion_yield_force(const etsion_params& p) {
  const double dy = etsion_yield_overlap(p);
  return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * dy * std::sqrt(dy);
}

double etsion_loading_force(const etsion_params& p, double delta) {
  if (delta <= 0) return 0.0;
  const double w = delta / etsion_yield_overlap(p);
  if (w <= 1) return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * delta * std::sqrt(delta);
  if (w <= 6) return 1.03 * etsion_yield_force(p) * std::pow(w, 1.425);  // eq. (30)
  return 1.40 * etsion_yield_force(p) * std::pow(w, 1.263);              // eq. (32)
}

double etsion_unloading_force(const etsion_params& /*params*/, double delta,
                              const etsion_state& s) {
  if (delta <= 0 || delta <= s.residual_overlap || s.max_overlap <= 0) return 0.0;
  const double ratio = (delta - s.residual_overlap) / (s.max_overlap - s.residual_overlap);
  return s.max_force * std::pow(ratio, s.unloading_exponent);  // eq. (35)
}

double etsion_force(const etsion_params& p, double delta, double /*delta_dot*/, etsion_state& s) {
  if (delta < s.max_overlap) return etsion_unloading_force(p, delta, s);
  const double f = etsion_loading_force(p, delta);
  s.max_overlap = delta;
  s.max_force = f;
  const double w = delta / etsion_yield_overlap(p);
  if (w <= 1) {  // elastic: retrace Hertz
    s.residual_overlap = 0.0;
    s.unloading_exponent = 1.5;
  } else {
    s.residual_overlap = delta * (1 - std::pow(w, -0.28)) * (1 - std::pow(w, -0.69));  // (34)
    s.unloading_exponent = 1.5 * std::pow(w, -0.0331);                                 // (35)
  }
  return f;
}

}  // namespace contactuq::contact
