#pragma once
// Tangential friction at a contact.
// Coulomb, Skrinjar et al. (003_...) eq. (31):
//   F_t = -mu F_n sign(v_t)
// Regularised Coulomb, Williams (000_...) eq. (1.84):
//   mu(v) = mu_nom tanh(2.5 v / v_t),   F_t = -mu(v) F_n
// which reaches 98.7 % of mu_nom at |v| = v_t and is smooth through v = 0, where eq. (31)
// jumps (Williams eq. 1.85). mu: friction coefficient [-]; F_n: normal force [N], >= 0;
// v_t (eq. 31): tangential sliding velocity [m/s]; v_t (eq. 1.84): transition velocity [m/s].
// The friction force opposes the sliding velocity.

namespace contactuq::contact {

struct coulomb_params {
  double friction_coefficient = 0.0;  ///< mu [-], >= 0

  void validate() const;
};

struct regularized_coulomb_params {
  double friction_coefficient = 0.0;  ///< mu_nom [-], >= 0
  double transition_velocity = 0.0;   ///< v_t [m/s], > 0

  void validate() const;
};

// Eq. (31): F_t [N] for normal force F_n [N] and sliding velocity v [m/s]; 0 at v = 0.
double coulomb_friction_force(const coulomb_params& params, double normal_force, double velocity);
// Eq. (1.84): mu(v) [-].
double regularized_friction_coefficient(const regularized_coulomb_params& params, double velocity);
// F_t = -mu(v) F_n [N].
double regularized_friction_force(const regularized_coulomb_params& params, double normal_force,
                                  double velocity);

}  // namespace contactuq::contact
