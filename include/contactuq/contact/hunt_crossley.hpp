#pragma once
// Hunt-Crossley (1975) hysteresis damping, F = K delta^n (1 + chi' delta_dot) with
//   chi' = 3 (1 - e) / (2 v0)      [s/m]
// Hunt and Crossley's e = 1 - 2/3 chi' v0 for small damping is the first-order expansion of the
// exact relation (H) of hysteresis_damping.hpp; solving it for chi' gives the form above. It is
// accurate only as e -> 1 ((H) gives e_out = 0.909 for e = 0.9 and 0.663 for e = 0.5).
// K: stiffness [N/m^n]; v0: impact velocity [m/s]; e: restitution [-].

#include "contactuq/contact/hysteresis_damping.hpp"

namespace contactuq::contact {

using hunt_crossley_params = hysteresis_damping_params;
using hunt_crossley_state = hysteresis_damping_state;

double hunt_crossley_chi(double restitution, double impact_velocity);  ///< chi' [s/m]
double hunt_crossley_force(const hunt_crossley_params& params, double delta, double delta_dot,
                           double impact_velocity);
// Records the impact velocity in state at first touch (see record_impact_velocity()).
double hunt_crossley_force(const hunt_crossley_params& params, double delta, double delta_dot,
                           hunt_crossley_state& state);

}  // namespace contactuq::contact
