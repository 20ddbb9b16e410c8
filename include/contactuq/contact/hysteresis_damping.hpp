#pragma once
// The hysteresis-damping family, Skrinjar et al. (003_...) eq. (25):
//   F = K delta^n + chi delta^n delta_dot = K delta^n (1 + chi' delta_dot),   delta > 0
// with chi' = chi / K a function of the restitution e and the impact velocity v0 = delta_dot at
// first touch. Members (each in its own header): lankarani_nikravesh, hunt_crossley, flores,
// gonthier. K: stiffness [N/m^n]; delta: overlap [m]; delta_dot: overlap rate [m/s];
// chi' [s/m]. All are continuous at first touch (F -> 0 as delta -> 0).
//
// Exact restitution of the family (our derivation, used to check each chi'): with the
// effective mass m, m w dw = -K delta^n (1 + chi' w) d delta integrates to
//   chi' w - ln(1 + chi' w) = const - chi'^2 K delta^(n+1) / ((n+1) m),
// so with x = chi' v0 the outgoing speed e_out v0 solves
//   x - ln(1 + x) = -e_out x - ln(1 - e_out x),                        (H)
// independent of K, n and m. hysteresis_restitution() solves (H). Its root has e_out x < 1, so in
// a free impact 1 + chi' delta_dot stays positive; where other forces drive delta_dot below
// -1/chi' the law would pull, and we clip F at zero.

namespace contactuq::contact {

struct hysteresis_damping_params {
  double stiffness = 0.0;    ///< K [N/m^n], > 0 and finite
  double exponent = 1.5;     ///< n [-], >= 1 (3/2 for spheres)
  double restitution = 1.0;  ///< e [-], the restitution the damping is tuned for, in (0, 1]

  void validate() const;
};

// History: the impact velocity, recorded at first touch. Owned by the caller.
struct hysteresis_damping_state {
  double impact_velocity = 0.0;  ///< v0 [m/s]; 0 while out of contact
};

// F = max(0, K delta^n (1 + chi' delta_dot)) [N] for delta > 0, else 0; chi' [s/m].
double hysteresis_damping_force(const hysteresis_damping_params& params, double chi, double delta,
                                double delta_dot);

// Records v0 = delta_dot at the first call with delta >= 0 and delta_dot > 0 after the state
// was out of contact (delta < 0) or fresh; returns the recorded v0. Throws model_error when a
// contact is evaluated with delta > 0 before any approach was seen (v0 unknown).
double record_impact_velocity(hysteresis_damping_state& state, double delta, double delta_dot);

// Solves (H) for e_out given x = chi' v0 >= 0 (returns 1 for x = 0).
double hysteresis_restitution(double chi_times_impact_velocity);

}  // namespace contactuq::contact
