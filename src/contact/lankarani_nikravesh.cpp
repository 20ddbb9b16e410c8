#include "contactuq/contact/lankarani_nikravesh.hpp"

#include "contactuq/error.hpp"

namespace contactuq::contact {

double lankarani_nikravesh_chi(double restitution, double impact_velocity) {
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
  require(impact_velocity > 0, "impact_velocity", impact_velocity, "m/s", "positive");
  const double e = restitution;
  return 3 * (1 - e * e) / (4 * impact_velocity);  // Skrinjar eq. (26), divided by K
}

double lankarani_nikravesh_force(const lankarani_nikravesh_params& params, double delta,
                                 double delta_dot, double impact_velocity) {
  if (delta <= 0) return 0.0;
  return hysteresis_damping_force(
      params, lankarani_nikravesh_chi(params.restitution, impact_velocity), delta, delta_dot);
}

double lankarani_nikravesh_force(const lankarani_nikravesh_params& params, double delta,
                                 double delta_dot, lankarani_nikravesh_state& state) {
  const double v0 = record_impact_velocity(state, delta, delta_dot);
  if (delta <= 0) return 0.0;
  return lankarani_nikravesh_force(params, delta, delta_dot, v0);
}

}  // namespace contactuq::contact
