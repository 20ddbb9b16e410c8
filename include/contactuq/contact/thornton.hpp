#pragma once
// Thornton's elastic-perfectly plastic impact model, Brake 2014 (001_...) eqs. (37)-(42), after
// Thornton (1997), ref. [20] there:
//   delta_y = (pi sigma_y / (2 E))^2 r                                   (37)
//   F_y     = 4/3 E sqrt(r) delta_y^(3/2) = pi^3 r^2 sigma_y^3 / (6 E^2)  (38)
//   loading:   F = 4/3 E sqrt(r) delta^(3/2)                  0 <= delta <= delta_y   (13)
//              F = F_y + pi sigma_y r (delta - delta_y)       delta_y <= delta         (39)
//   unloading from (delta_m, F_m):
//              r_bar     = r (4/3 E sqrt(r) delta_m^(3/2)) / F_m                        (40)
//              delta_bar = delta_m - (3 F_m / (4 E sqrt(r_bar)))^(2/3)                 (41)
//              F = 4/3 E sqrt(r_bar) (delta - delta_bar)^(3/2),  delta_bar <= delta    (42)
// E: effective modulus [Pa]; r: effective radius [m]; sigma_y: yield strength [Pa];
// delta: overlap [m]; F [N]. Force is C0 at delta_y (the slope jumps, as in the paper).
//
// Branches are chosen by the history, not by the sign of delta_dot: below the largest overlap
// reached so far the contact follows the elastic unloading curve (42) both ways, at or above it
// the virgin loading curve. For a single impact this is exactly eqs. (39)/(42); it also keeps
// the law well defined for trial states an ODE solver evaluates.

namespace contactuq::contact {

struct thornton_params {
  double modulus = 0.0;         ///< E, effective modulus [Pa], > 0
  double radius = 0.0;          ///< r, effective radius [m], > 0 and finite
  double yield_strength = 0.0;  ///< sigma_y [Pa], > 0

  void validate() const;
};

// Loading history; the caller owns it. A default-constructed state is a virgin contact.
struct thornton_state {
  double max_overlap = 0.0;       ///< delta_m [m], largest overlap so far
  double max_force = 0.0;         ///< F_m [N], loading force at delta_m
  double unloading_radius = 0.0;  ///< r_bar [m], eq. (40); r while still elastic
  double residual_overlap = 0.0;  ///< delta_bar [m], eq. (41); 0 while still elastic
};

double thornton_yield_overlap(const thornton_params& params);  ///< delta_y [m], eq. (37)
double thornton_yield_force(const thornton_params& params);    ///< F_y [N], eq. (38)

// Virgin loading curve, eqs. (13) and (39) [N].
double thornton_loading_force(const thornton_params& params, double delta);
// Elastic unloading curve from the history in state, eq. (42) [N]; 0 below delta_bar.
double thornton_unloading_force(const thornton_params& params, double delta,
                                const thornton_state& state);
// The law: loading at or above state.max_overlap (and the history is advanced), unloading
// below it. delta_dot [m/s] is not used (rate-independent) and kept for the common signature.
double thornton_force(const thornton_params& params, double delta, double delta_dot,
                      thornton_state& state);

// Thornton's (1997) closed-form coefficient of restitution of this model for an impact at
// v_i [m/s] with yield velocity v_y [m/s], the impact velocity at which delta_max = delta_y:
//   e = sqrt(6 sqrt(3)/5) sqrt(1 - (v_y/v_i)^2/6)
//       * ((v_y/v_i) / (v_y/v_i + 2 sqrt(6/5 - (v_y/v_i)^2/5)))^(1/4),   v_i > v_y
//   e = 1,                                                               v_i <= v_y
double thornton_restitution(double yield_velocity, double impact_velocity);
// v_y = sqrt(4 F_y delta_y / (5 m)) [m/s]: the kinetic energy 1/2 m v_y^2 equals the Hertz work
// 2/5 F_y delta_y done up to yield, for effective mass m [kg].
double thornton_yield_velocity(const thornton_params& params, double mass);

}  // namespace contactuq::contact
