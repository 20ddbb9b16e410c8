#include "contactuq/contact/hunt_crossley.hpp"

#include "contactuq/error.hpp"

namespace contactuq::contact {

double hunt_crossley_chi(double restitution, double impact_velocity) {
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
  require(impact_velocity > 0, "impact_velocity", impact_velocity, "m/s", "positive");
  const double e = restitution;
  return 3 * (1 - e) / (2 * impact_velocity);  // Hunt and Crossley (1975)
}

double hunt_crossley_force(const hunt_crossley_params& params, double delta, double delta_dot,
                           double impact_velocity) {
  if (delta <= 0) return 0.0;
  return hysteresis_damping_force(params, hunt_crossley_chi(params.restitution, impact_velocity),
                                  delta, delta_dot);
}

double hunt_crossley_force(const hunt_crossley_params& params, double delta, double delta_dot,
                           hunt_crossley_state& state) {
  const double v0 = record_impact_velocity(state, delta, delta_dot);
  if (delta <= 0) return 0.0;
  return hunt_crossley_force(params, delta, delta_dot, v0);
}

}  // namespace contactuq::contact
