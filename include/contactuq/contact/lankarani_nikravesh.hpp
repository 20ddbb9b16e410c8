#pragma once
// Lankarani-Nikravesh (1990) hysteresis damping, Skrinjar et al. (003_...) eqs. (25)-(27):
//   F = K delta^n (1 + 3/4 (1 - c_r^2) delta_dot / delta_dot_0),   chi' = 3 (1 - e^2) / (4 v0)
// derived from the energy loss 1/2 m v0^2 (1 - e^2) with the loop approximated by the elastic
// (undamped) trajectory, so valid for e close to 1: exact (H) gives e_out = 0.953 for e = 0.95,
// 0.913 for e = 0.9 and 0.725 for e = 0.5. K: stiffness [N/m^n]; v0 = delta_dot_0: impact
// velocity [m/s]; c_r = e: restitution [-].

#include "contactuq/contact/hysteresis_damping.hpp"

namespace contactuq::contact {

using lankarani_nikravesh_params = hysteresis_damping_params;
using lankarani_nikravesh_state = hysteresis_damping_state;

double lankarani_nikravesh_chi(double restitution, double impact_velocity);  ///< eq. (26) / K
double lankarani_nikravesh_force(const lankarani_nikravesh_params& params, double delta,
                                 double delta_dot, double impact_velocity);  ///< eq. (27)
double lankarani_nikravesh_force(const lankarani_nikravesh_params& params, double delta,
                                 double delta_dot, lankarani_nikravesh_state& state);

}  // namespace contactuq::contact
