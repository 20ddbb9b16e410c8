#include "contactuq/contact/hysteresis_damping.hpp"

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>

#include "contactuq/error.hpp"
#include "power.hpp"

namespace contactuq::contact {

void hysteresis_damping_params::validate() const {
  require(stiffness > 0 && std::isfinite(stiffness), "stiffness", stiffness, "N/m^n",
          "positive and finite");
  require(exponent >= 1 && std::isfinite(exponent), "exponent", exponent, "", ">= 1");
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
}

double hysteresis_damping_force(const hysteresis_damping_params& p, double chi, double delta,
                                double delta_dot) {
  if (delta <= 0) return 0.0;
  // Skrinjar eq. (25), clipped so that the contact never pulls.
  return std::max(0.0, p.stiffness * detail::power(delta, p.exponent) * (1 + chi * delta_dot));
}

double record_impact_velocity(hysteresis_damping_state& s, double delta, double delta_dot) {
  if (delta < 0) {
    s.impact_velocity = 0.0;
  } else if (s.impact_velocity <= 0) {
    if (delta_dot > 0) {
      s.impact_velocity = delta_dot;
    } else if (delta > 0) {
      throw model_error(
          "hysteresis damping law evaluated in contact before the impact velocity was seen: "
          "call it at first touch (delta >= 0, delta_dot > 0) or pass the impact velocity");
    }
  }
  return s.impact_velocity;
}

double hysteresis_restitution(double x) {
  require(x >= 0 && std::isfinite(x), "chi*impact_velocity", x, "", "non-negative and finite");
  if (x == 0) return 1.0;
  // (H) with z = -ln(1 - y), y = e_out x in (0, 1): z - (1 - exp(-z)) = x - ln(1 + x). The left
  // side increases from 0 and y = 1 - exp(-z) keeps full precision when y is close to 1 (large x).
  const double target = x - std::log1p(x);
  auto g = [target](double z) { return z + std::expm1(-z) - target; };
  boost::math::tools::eps_tolerance<double> tol(52);
  std::uintmax_t iterations = 200;
  const auto [lo, hi] = boost::math::tools::toms748_solve(g, 0.0, target + 2, tol, iterations);
  return -std::expm1(-0.5 * (lo + hi)) / x;
}

}  // namespace contactuq::contact
