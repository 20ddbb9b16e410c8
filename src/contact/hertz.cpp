#include "contactuq/contact/hertz.hpp"

#include <cmath>

#include "contactuq/error.hpp"
#include "power.hpp"

namespace contactuq::contact {

void hertz_params::validate() const {
  require(stiffness > 0 && std::isfinite(stiffness), "stiffness", stiffness, "N/m^n",
          "positive and finite");
  require(exponent >= 1 && std::isfinite(exponent), "exponent", exponent, "", ">= 1");
}

double hertz_force(const hertz_params& params, double delta) {
  if (delta <= 0) return 0.0;
  return params.stiffness * detail::power(delta, params.exponent);  // Skrinjar eq. (21)
}

}  // namespace contactuq::contact
