#include "contactuq/contact/johnson_cylinder.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

namespace contactuq::contact {
namespace {

constexpr double e2 = std::numbers::e * std::numbers::e;

double scale_force(const johnson_cylinder_params& p) {  // f* [N/m]
  return 4 * std::numbers::pi * p.modulus * p.radius_difference / e2;
}

}  // namespace

void johnson_cylinder_params::validate() const {
  require(modulus > 0 && std::isfinite(modulus), "modulus", modulus, "Pa", "positive and finite");
  require(radius_difference > 0 && std::isfinite(radius_difference), "radius_difference",
          radius_difference, "m", "positive and finite");
  require(length > 0 && std::isfinite(length), "length", length, "m", "positive and finite");
}

double johnson_radius_difference(double radius_i, double radius_j, cylinder_contact kind) {
  require(radius_i > 0 && std::isfinite(radius_i), "radius_i", radius_i, "m",
          "positive and finite");
  require(radius_j > 0 && std::isfinite(radius_j), "radius_j", radius_j, "m",
          "positive and finite");
  if (kind == cylinder_contact::external) return radius_i + radius_j;  // eq. (30), +
  require(radius_i > radius_j, "radius_i", radius_i, "m",
          "larger than the pin radius radius_j for internal contact");
  return radius_i - radius_j;  // eq. (30), -
}

double johnson_cylinder_max_overlap(const johnson_cylinder_params& p) {
  return 4 * p.radius_difference / e2;
}

johnson_solution johnson_cylinder_solve(const johnson_cylinder_params& p, double delta) {
  johnson_solution out;
  if (delta <= 0) return out;
  const double s = delta / johnson_cylinder_max_overlap(p);
  if (s > 1) {
    out.status = johnson_status::overlap_too_large;
    return out;
  }
  // phi(x) = x (1 - ln x) - s on (0, 1]: phi(0+) = -s < 0, phi(1) = 1 - s >= 0, phi' = -ln x.
  double lo = 0.0;
  double hi = 1.0;
  double x = std::min(1.0, s / (1 - std::log(s)));  // from x = s / (1 - ln x) with x ~ s
  for (out.iterations = 1; out.iterations <= 200; ++out.iterations) {
    const double phi = x * (1 - std::log(x)) - s;
    if (phi > 0)
      hi = x;
    else
      lo = x;
    if (std::abs(phi) <= 4 * std::numeric_limits<double>::epsilon() * s) break;
    const double slope = -std::log(x);
    double next = slope > 0 ? x - phi / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = lo > 0 ? std::sqrt(lo * hi) : 0.0625 * hi;
    if (std::abs(next - x) <= 2 * std::numeric_limits<double>::epsilon() * x) {
      x = next;
      break;
    }
    x = next;
  }
  out.force = x * scale_force(p) * p.length;
  return out;
}

double johnson_cylinder_force(const johnson_cylinder_params& p, double delta) {
  const auto sol = johnson_cylinder_solve(p, delta);
  if (sol.status == johnson_status::overlap_too_large)
    throw model_error(
        fmt::format("johnson_cylinder: overlap {} m exceeds the largest overlap the model carries, "
                    "delta* = 4 dR / e^2 = {} m (eq. 28 has no solution)",
                    delta, johnson_cylinder_max_overlap(p)));
  return sol.force;
}

double johnson_cylinder_overlap(const johnson_cylinder_params& p, double force) {
  if (force <= 0) return 0.0;
  const double f = force / p.length;
  const double e = p.modulus;
  return f / (std::numbers::pi * e) *
         (std::log(4 * std::numbers::pi * e * p.radius_difference / f) - 1);  // eq. (28)
}

}  // namespace contactuq::contact
