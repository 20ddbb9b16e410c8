#pragma once
// Effective properties of two bodies in contact, Brake 2014 (001_...) appendix, after Johnson
// (1985):
//   E = ((1 - nu1^2)/E1 + (1 - nu2^2)/E2)^-1     effective modulus [Pa]
//   r = (1/r1 + 1/r2)^-1                          effective radius [m]; a flat has r = +inf
//   sigma_y = min(sigma_y1, sigma_y2)             yield strength of the pair [Pa]
// plus the effective mass of the relative motion and Hertz's stiffness (Skrinjar eq. (22)).

#include <limits>

namespace contactuq::contact {

inline constexpr double flat_radius = std::numeric_limits<double>::infinity();  ///< r of a flat
inline constexpr double standard_gravity = 9.80665;                             ///< g [m/s^2]

// E = ((1 - nu1^2)/E1 + (1 - nu2^2)/E2)^-1 [Pa]; Brake 2014 appendix, Skrinjar eq. (29).
// Throws parameter_error unless E1, E2 > 0 and 0 <= nu1, nu2 < 0.5.
double effective_modulus(double modulus_1, double poisson_1, double modulus_2, double poisson_2);

// r = (1/r1 + 1/r2)^-1 [m]; either radius may be flat_radius (+inf), not both.
double effective_radius(double radius_1, double radius_2);

// m = (1/m1 + 1/m2)^-1 [kg]; either mass may be +inf (a fixed body), not both.
double effective_mass(double mass_1, double mass_2);

// Hertz stiffness of a sphere pair, Brake 2014 eq. (13) / Skrinjar eq. (22):
//   K = 4/3 E sqrt(r)   [N/m^1.5]
double hertz_stiffness(double modulus, double radius);

// Brinell hardness number HB [kgf/mm^2] to pressure [Pa]: p = HB g 1e6 (Brake 2014, below eq. 19).
double brinell_to_pascal(double brinell);

// Hardness of the pair, Brake 2014 eq. (19), read as the hardness of the body that flows,
//   H = min(H1, H2)
// The fully plastic mean pressure p0 (eqs. 16, 20) is carried by the softer body flowing under
// the harder one, so it cannot exceed the softer body's hardness. The printed form
// (2/H1 + 2/H2)^-1 gives H/4 for two equal bodies, which puts p0 below the yield strength and
// the fully plastic onset (eq. 20) before first yield; a harmonic mean 2 (1/H1 + 1/H2)^-1 gives
// H for equal bodies but up to 2 H_soft for unlike ones. Any unit.
double combined_hardness(double hardness_1, double hardness_2);

}  // namespace contactuq::contact
