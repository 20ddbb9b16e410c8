#include "contactuq/contact/kelvin_voigt.hpp"

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::contact {

void kelvin_voigt_params::validate() const {
  require(stiffness > 0 && std::isfinite(stiffness), "stiffness", stiffness, "N/m",
          "positive and finite");
  require(damping >= 0 && std::isfinite(damping), "damping", damping, "N*s/m",
          "non-negative and finite");
}

double kelvin_voigt_force(const kelvin_voigt_params& params, double delta, double delta_dot) {
  if (delta <= 0) return 0.0;
  return std::max(0.0, params.stiffness * delta + params.damping * delta_dot);  // eq. (12)
}

}  // namespace contactuq::contact
