#include "contactuq/contact/gonthier.hpp"

#include "contactuq/error.hpp"

namespace contactuq::contact {

double gonthier_chi(double restitution, double impact_velocity) {
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
  require(impact_velocity > 0, "impact_velocity", impact_velocity, "m/s", "positive");
  const double e = restitution;
  return (1 - e * e) / (e * impact_velocity);  // Gonthier et al. (2004)
}

double gonthier_force(const gonthier_params& params, double delta, double delta_dot,
                      double impact_velocity) {
  if (delta <= 0) return 0.0;
  return hysteresis_damping_force(params, gonthier_chi(params.restitution, impact_velocity), delta,
                                  delta_dot);
}

double gonthier_force(const gonthier_params& params, double delta, double delta_dot,
                      gonthier_state& state) {
  const double v0 = record_impact_velocity(state, delta, delta_dot);
  if (delta <= 0) return 0.0;
  return gonthier_force(params, delta, delta_dot, v0);
}

}  // namespace contactuq::contact
