#pragma once
// Gonthier, McPhee, Lange and Piedboeuf (2004) hysteresis damping, F = K delta^n (1 + chi'
// delta_dot):
//   chi' = (1 - e^2) / (e v0)      [s/m]
// Checked against the exact relation (H) of hysteresis_damping.hpp: as e -> 0 it has the limit
// chi' v0 -> 1/e that (H) requires, while near e = 1 it gives chi' v0 -> 2 (1 - e), not the 3/2 (1
// - e) of (H). It delivers e_out = 0.304 for e = 0.3, 0.488 for 0.5, 0.670 for 0.7, 0.876 for 0.9,
// so it is better at low e than near 1.
// K: stiffness [N/m^n]; v0: impact velocity [m/s]; e: restitution [-].

#include "contactuq/contact/hysteresis_damping.hpp"

namespace contactuq::contact {

using gonthier_params = hysteresis_damping_params;
using gonthier_state = hysteresis_damping_state;

double gonthier_chi(double restitution, double impact_velocity);  ///< chi' [s/m]
double gonthier_force(const gonthier_params& params, double delta, double delta_dot,
                      double impact_velocity);
double gonthier_force(const gonthier_params& params, double delta, double delta_dot,
                      gonthier_state& state);

}  // namespace contactuq::contact
