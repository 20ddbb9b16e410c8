#include "contactuq/contact/friction.hpp"

#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::contact {

void coulomb_params::validate() const {
  require(friction_coefficient >= 0 && std::isfinite(friction_coefficient), "friction_coefficient",
          friction_coefficient, "", "non-negative and finite");
}

void regularized_coulomb_params::validate() const {
  require(friction_coefficient >= 0 && std::isfinite(friction_coefficient), "friction_coefficient",
          friction_coefficient, "", "non-negative and finite");
  require(transition_velocity > 0 && std::isfinite(transition_velocity), "transition_velocity",
          transition_velocity, "m/s", "positive and finite");
}

double coulomb_friction_force(const coulomb_params& p, double normal_force, double velocity) {
  const double sign = velocity > 0 ? 1.0 : velocity < 0 ? -1.0 : 0.0;
  return -p.friction_coefficient * normal_force * sign;  // eq. (31)
}

double regularized_friction_coefficient(const regularized_coulomb_params& p, double velocity) {
  return p.friction_coefficient * std::tanh(2.5 * velocity / p.transition_velocity);  // (1.84)
}

double regularized_friction_force(const regularized_coulomb_params& p, double normal_force,
                                  double velocity) {
  return -regularized_friction_coefficient(p, velocity) * normal_force;
}

}  // namespace contactuq::contact
