#pragma once
// Piecewise-linear penalty contact (Kelvin-Voigt), Brake 2014 (001_...) eq. (12):
//   F = max(0, K_P delta + C_P delta_dot),  delta > 0;   F = 0 otherwise
// K_P: penalty stiffness [N/m]; C_P: damping [N*s/m]; delta: overlap [m]; delta_dot [m/s].
// Defaults are the paper's K_P = 10 kN/mm and C_P = 280 N*s/m.
// Eq. (12) itself pulls at the end of restitution, when C_P delta_dot < -K_P delta; the contact is
// unilateral, so we clip the force at zero (the unclipped law is elastogap_unbounded with n = 1).
// The force jumps to C_P delta_dot at first touch; that jump is the model's, not ours.

namespace contactuq::contact {

struct kelvin_voigt_params {
  double stiffness = 1e7;  ///< K_P [N/m], > 0 (default 10 kN/mm)
  double damping = 280.0;  ///< C_P [N*s/m], >= 0 (default 280 N*s/m)

  void validate() const;
};

// F [N] at overlap delta [m] and overlap rate delta_dot [m/s]; zero for delta <= 0.
double kelvin_voigt_force(const kelvin_voigt_params& params, double delta, double delta_dot);

}  // namespace contactuq::contact
