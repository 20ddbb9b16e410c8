#include "contactuq/contact/etsion.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"
#include "unloading_guard.hpp"

namespace contactuq::contact {

void etsion_params::validate() const {
  require(modulus > 0 && std::isfinite(modulus), "modulus", modulus, "Pa", "positive and finite");
  require(radius > 0 && std::isfinite(radius), "radius", radius, "m", "positive and finite");
  require(poisson >= 0 && poisson < 0.5, "poisson", poisson, "", "in [0, 0.5)");
  require(hardness > 0 && std::isfinite(hardness), "hardness", hardness, "Pa",
          "positive and finite (2.8 sigma_y, Tabor; not Brinell)");
}

double etsion_tabor_hardness(double yield_strength) { return 2.8 * yield_strength; }

double etsion_yield_overlap(const etsion_params& p) {
  const double k = 0.454 + 0.41 * p.poisson;  // hardness coefficient, below eq. (29)
  const double x = std::numbers::pi * k * p.hardness / (2 * p.modulus);
  return x * x * p.radius;  // eq. (29) with the pi of Kogut-Etsion (see header)
}

double etsion_yield_force(const etsion_params& p) {
  const double dy = etsion_yield_overlap(p);
  return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * dy * std::sqrt(dy);
}

namespace {

// w where Hertz meets eq. (30), 1.03 w^1.425 = w^1.5, and where eq. (30) meets eq. (32),
// 1.03 w^1.425 = 1.40 w^1.263: the loading curve switches there, so it is continuous.
const double hertz_to_subsurface = std::pow(1.03, 1 / 0.075);           // 1.4831
const double subsurface_to_surface = std::pow(1.40 / 1.03, 1 / 0.162);  // 6.6490

// F / F_y and its slope d(F/F_y)/dw on loading, w = delta / delta_y.
double loading_ratio(double w) {
  if (w <= hertz_to_subsurface) return w * std::sqrt(w);           // eq. (13)
  if (w <= subsurface_to_surface) return 1.03 * std::pow(w, 1.425);  // eq. (30)
  return 1.40 * std::pow(w, 1.263);                                  // eq. (32)
}
double loading_ratio_slope(double w) {
  if (w <= hertz_to_subsurface) return 1.5 * std::sqrt(w);
  if (w <= subsurface_to_surface) return 1.03 * 1.425 * std::pow(w, 0.425);
  return 1.40 * 1.263 * std::pow(w, 0.263);
}

}  // namespace

double etsion_loading_force(const etsion_params& p, double delta) {
  if (delta <= 0) return 0.0;
  return etsion_yield_force(p) * loading_ratio(delta / etsion_yield_overlap(p));
}

double etsion_unloading_force(const etsion_params& /*params*/, double delta,
                              const etsion_state& s) {
  if (delta <= 0 || delta <= s.residual_overlap || s.max_overlap <= 0) return 0.0;
  const double ratio = (delta - s.residual_overlap) / (s.max_overlap - s.residual_overlap);
  return s.max_force * std::pow(ratio, s.unloading_exponent);  // eq. (35)
}

double etsion_force(const etsion_params& p, double delta, double /*delta_dot*/, etsion_state& s) {
  if (delta < s.max_overlap) return etsion_unloading_force(p, delta, s);
  const double dy = etsion_yield_overlap(p);
  const double fy = etsion_yield_force(p);
  const double w = delta / dy;
  const double f = delta > 0 ? fy * loading_ratio(w) : 0.0;
  s.max_overlap = delta;
  s.max_force = f;
  if (w <= 1) {  // elastic: retrace Hertz
    s.residual_overlap = 0.0;
    s.unloading_exponent = 1.5;
    return f;
  }
  s.unloading_exponent = 1.5 * std::pow(w, -0.0331);  // eq. (35)
  const double printed = delta * (1 - std::pow(w, -0.28)) * (1 - std::pow(w, -0.69));  // (34)
  // Admissibility (see the header): the residual is raised where eq. (35) would run above loading.
  const double loading_bound = detail::admissible_residual(
      [&](double d) { return fy * loading_ratio(d / dy); }, delta, f,
      fy / dy * loading_ratio_slope(w), s.unloading_exponent);
  s.residual_overlap = std::max(printed, loading_bound);
  return f;
}

}  // namespace contactuq::contact
