#include "contactuq/contact/elastogap.hpp"

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"
#include "power.hpp"

namespace contactuq::contact {

void elastogap_params::validate() const {
  require(stiffness > 0 && std::isfinite(stiffness), "stiffness", stiffness, "N/m^n",
          "positive and finite");
  require(damping >= 0 && std::isfinite(damping), "damping", damping, "N*s/m",
          "non-negative and finite");
  require(exponent >= 1 && std::isfinite(exponent), "exponent", exponent, "", ">= 1");
}

double elastogap_force(const elastogap_params& p, double delta, double delta_dot) {
  if (delta <= 0) return 0.0;
  const double f_c = p.stiffness * detail::power(delta, p.exponent);
  return f_c + std::clamp(p.damping * delta_dot, -f_c, f_c);  // |f_d| <= f_c
}

double elastogap_unbounded_force(const elastogap_params& p, double delta, double delta_dot) {
  if (delta <= 0) return 0.0;
  return p.stiffness * detail::power(delta, p.exponent) + p.damping * delta_dot;
}

double elastogap_clipped_force(const elastogap_params& p, double delta, double delta_dot) {
  return std::max(0.0, elastogap_unbounded_force(p, delta, delta_dot));
}

}  // namespace contactuq::contact
