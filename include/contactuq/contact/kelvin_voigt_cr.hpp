#pragma once
// Kelvin-Voigt with a restitution factor on unloading, Skrinjar et al. (003_...) eq. (24):
//   F = K delta          if v_n = delta_dot >= 0   (approach)
//   F = K delta c_r      if delta_dot < 0          (separation)
// K: linear stiffness [N/m]; c_r: the factor called coefficient of restitution there [-].
// The loop returns c_r of the stored energy, so the restitution an impact actually shows is
// sqrt(c_r), not c_r. The force drops by (1 - c_r) K delta_m at the turning point (by design).

namespace contactuq::contact {

struct kelvin_voigt_cr_params {
  double stiffness = 0.0;    ///< K [N/m], > 0 and finite
  double restitution = 1.0;  ///< c_r [-], in (0, 1]

  void validate() const;
};

// F [N] at overlap delta [m] and rate delta_dot [m/s]; zero for delta <= 0.
double kelvin_voigt_cr_force(const kelvin_voigt_cr_params& params, double delta, double delta_dot);

}  // namespace contactuq::contact
