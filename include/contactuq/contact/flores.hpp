#pragma once
// Flores, Machado, Silva and Martins (2011) hysteresis damping, F = K delta^n (1 + chi' delta_dot):
//   chi' = 8 (1 - e) / (5 e v0)    [s/m]
// Flores et al. obtain it from an energy balance of the hysteresis loop meant to hold for low e
// as well. Checked against the exact relation (H) of hysteresis_damping.hpp: near e = 1 it gives
// chi' v0 -> 8/5 (1 - e) where (H) needs 3/2 (1 - e), and as e -> 0 it gives 1.6/e where (H)
// needs 1/e. The restitution it delivers, e_out/e - 1, is -0.7 % at e = 0.9, -2.4 % at 0.7,
// -5.9 % at 0.5 and -15 % at 0.3.
// K: stiffness [N/m^n]; v0: impact velocity [m/s]; e: restitution [-].

#include "contactuq/contact/hysteresis_damping.hpp"

namespace contactuq::contact {

using flores_params = hysteresis_damping_params;
using flores_state = hysteresis_damping_state;

double flores_chi(double restitution, double impact_velocity);  ///< chi' [s/m]
double flores_force(const flores_params& params, double delta, double delta_dot,
                    double impact_velocity);
double flores_force(const flores_params& params, double delta, double delta_dot,
                    flores_state& state);

}  // namespace contactuq::contact
