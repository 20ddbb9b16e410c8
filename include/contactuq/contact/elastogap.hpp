#pragma once
// Modelica ElastoGap (002_...): spring-damper contact with a bounded damper force,
//   f_c = c delta^n,   f_d = clamp(d delta_dot, -f_c, f_c),   F = f_c + f_d,   delta > 0
// so that |f_d| <= f_c: the contact never pulls (F >= 0) and the force never jumps (F -> 0 as
// delta -> 0 whatever delta_dot). c: stiffness [N/m^n]; d: damping [N*s/m]; n: exponent [-];
// delta = s_rel0 - s_rel: overlap [m]; delta_dot [m/s].
// The two naive variants the Modelica documentation compares it with (its curves 1 and 2):
//   elastogap_unbounded_force   F = c delta^n + d delta_dot       pulls, and jumps at touch
//   elastogap_clipped_force     F = max(0, c delta^n + d delta_dot)   jumps at touch

namespace contactuq::contact {

struct elastogap_params {
  double stiffness = 0.0;  ///< c [N/m^n], > 0 and finite
  double damping = 0.0;    ///< d [N*s/m], >= 0
  double exponent = 1.0;   ///< n [-], >= 1 (1.5 for spheres, 1 for plates)

  void validate() const;
};

double elastogap_force(const elastogap_params& params, double delta, double delta_dot);
double elastogap_unbounded_force(const elastogap_params& params, double delta, double delta_dot);
double elastogap_clipped_force(const elastogap_params& params, double delta, double delta_dot);

}  // namespace contactuq::contact
