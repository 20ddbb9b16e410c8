#pragma once
// Johnson's line contact of two parallel cylinders, Skrinjar et al. (003_...) eqs. (28)-(30):
//   delta = f / (pi E) (ln(4 pi E dR / f) - 1),   F = f L                                (28)
//   1/E = (1 - nu_i^2)/E_i + (1 - nu_j^2)/E_j                                             (29)
//   dR = R_i - R_j (internal: pin j in hole i) or R_i + R_j (external)                   (30)
// f: force per unit axial length [N/m]; E: effective modulus [Pa]; dR [m]; L: axial length [m];
// delta: overlap [m]. Eq. (28) gives delta(f); we solve it for f.
//
// With x = f / f* and f* = 4 pi E dR / e^2 (Euler's e), eq. (28) reads
//   delta / delta* = x (1 - ln x),   delta* = 4 dR / e^2 = 0.541 dR,
// increasing and concave on 0 < x <= 1. Overlaps above delta* have no solution (the model's
// delta(f) turns back); the solver reports that instead of returning a wrong root. The solve is a
// Newton iteration on x kept inside a shrinking bracket [lo, hi] by geometric bisection, so it
// always converges for 0 < delta <= delta*.

namespace contactuq::contact {

enum class cylinder_contact { internal, external };

struct johnson_cylinder_params {
  double modulus = 0.0;            ///< E, effective modulus [Pa], > 0 (eq. 29)
  double radius_difference = 0.0;  ///< dR [m], > 0 (eq. 30; see johnson_radius_difference)
  double length = 0.0;             ///< L, axial contact length [m], > 0

  void validate() const;
};

// dR of eq. (30). Internal: radius_i is the hole, radius_j the pin, radius_i > radius_j.
double johnson_radius_difference(double radius_i, double radius_j, cylinder_contact kind);

// delta* = 4 dR / e^2 [m], the largest overlap the model can carry.
double johnson_cylinder_max_overlap(const johnson_cylinder_params& params);

enum class johnson_status { converged, overlap_too_large };

struct johnson_solution {
  double force = 0.0;  ///< F = f L [N]
  int iterations = 0;
  johnson_status status = johnson_status::converged;
};

// Solves eq. (28) for the force at overlap delta [m]; force 0 for delta <= 0.
johnson_solution johnson_cylinder_solve(const johnson_cylinder_params& params, double delta);
// The law: F [N]. Throws model_error, naming delta and delta*, when delta > delta*.
double johnson_cylinder_force(const johnson_cylinder_params& params, double delta);
// Eq. (28) itself, for checks: delta [m] at force F [N].
double johnson_cylinder_overlap(const johnson_cylinder_params& params, double force);

}  // namespace contactuq::contact
