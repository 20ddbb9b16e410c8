#include "contactuq/contact/kelvin_voigt_cr.hpp"

#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::contact {

void kelvin_voigt_cr_params::validate() const {
  require(stiffness > 0 && std::isfinite(stiffness), "stiffness", stiffness, "N/m",
          "positive and finite");
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
}

double kelvin_voigt_cr_force(const kelvin_voigt_cr_params& p, double delta, double delta_dot) {
  if (delta <= 0) return 0.0;
  return delta_dot >= 0 ? p.stiffness * delta : p.stiffness * delta * p.restitution;  // (24)
}

}  // namespace contactuq::contact
