#include "contactuq/contact/flores.hpp"

#include "contactuq/error.hpp"

namespace contactuq::contact {

double flores_chi(double restitution, double impact_velocity) {
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
  require(impact_velocity > 0, "impact_velocity", impact_velocity, "m/s", "positive");
  const double e = restitution;
  return 8 * (1 - e) / (5 * e * impact_velocity);  // Flores et al. (2011)
}

double flores_force(const flores_params& params, double delta, double delta_dot,
                    double impact_velocity) {
  if (delta <= 0) return 0.0;
  return hysteresis_damping_force(params, flores_chi(params.restitution, impact_velocity), delta,
                                  delta_dot);
}

double flores_force(const flores_params& params, double delta, double delta_dot,
                    flores_state& state) {
  const double v0 = record_impact_velocity(state, delta, delta_dot);
  if (delta <= 0) return 0.0;
  return flores_force(params, delta, delta_dot, v0);
}

}  // namespace contactuq::contact
