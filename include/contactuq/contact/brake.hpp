#pragma once
// Brake's elastic-perfectly plastic impact model, Brake 2014 (001_...) eqs. (13)-(28), after
// Brake (2012), ref. [1] there. Four regimes:
//   elastic       F = 4/3 E sqrt(r) delta^(3/2),  a = sqrt(r delta)     0 <= delta <= delta_y  (13)
//   mixed         cubic Hermite blends of F and a between (delta_y, F_y, F'_y) and
//                 (delta_p, F_p, F'_p), C1 at both ends          delta_y..delta_p  (23)-(24)
//   fully plastic F = p0 pi a^2,  a^2 = 2 r delta + xi                  delta_p <= delta  (16)-(18)
//   unloading     F = 4/3 E sqrt(r_bar) (delta - delta_bar)^(3/2)                         (25)
//                 delta_bar = delta_m - (3 F_m / (4 E sqrt(r_bar)))^(2/3)                  (26)
//                 r_bar = r (elastic), 1/2 (delta_m + a_m^2/delta_m) (plastic, 27),
//                 Hermite blend of the two (mixed, 28)
// with yield where the von Mises stress of the Hertz field first reaches sigma_y,
//   f(nu) = max_z ( -(1+nu)(1 - z atan(1/z)) + 3/2 / (1 + z^2) )^2                       (14)
//   delta_y = r / f(nu) (pi sigma_y / (2 E))^2                                            (15)
// and the fully plastic onset at the Tabor hardness p0 = H g 1e6 (H Brinell of the pair, eq. 19):
//   delta_p = (p0/sigma_y)^2 delta_y,  a_p = sqrt(2 r delta_p + xi),  F_p = p0 pi a_p^2  (20)-(21)
// E: effective modulus [Pa]; r: effective radius [m]; delta: overlap [m]; a: contact radius [m].
//
// Where we read the printed equations differently, and why (derivations in docs/impact-laws.md):
//  - eq. (22) prints xi = (r 3 pi p0/(4E))^2 - 2 (p0/sigma_y)^2 delta_p, which mixes m^2 and m.
//    We take xi = a_p^2 - 2 r delta_p with a_p = 3 pi r p0 / (4 E): the Hertz contact radius at
//    mean pressure p0, which is what eq. (21) then returns for a_p (and 2 r delta_p =
//    2 r (p0/sigma_y)^2 delta_y is the dimensionally consistent second term).
//  - eq. (19) is read as the hardness of the body that flows, min(H1, H2) (combined_hardness()).
//  - r_bar'_p in eq. (28) is the exact derivative of eq. (27) with (17), 1/2 (1 - xi/delta_p^2),
//    where the paper takes a forward difference of the same function.
//  - Admissible unloading (departs from eqs. (26)-(28)): with the repaired xi < 0 the plastic
//    line (18) is steeper just past delta_p than the Hertz-type curve (25) with r_bar of (27)
//    (which gives r_bar < r there), so the printed curve runs above loading and the impact
//    returns more energy than it took. Unloading is elastic recovery of a deformed sphere, so we
//    require r_bar >= r and F_unload <= F_load on [delta_bar, delta_m]. With q(delta) =
//    (F_load(delta)/F_m)^(2/3) that is delta_bar >= sup (delta - q delta_m)/(1 - q) (the
//    limit at delta_m is the slope condition delta_bar >= delta_m - 3/2 F_m / F_load'(delta_m)),
//    and r_bar >= r is delta_bar >= delta_m - (3 F_m / (4 E sqrt(r)))^(2/3). delta_bar is the
//    largest of eq. (26), those two bounds and 0, and r_bar then follows from continuity at
//    (delta_m, F_m), r_bar = (3 F_m / (4 E (delta_m - delta_bar)^(3/2)))^2. Where eq. (26)
//    already satisfies both (delta_m^2 >= -xi, where eq. (27) gives r_bar >= r), nothing
//    changes; in the mixed regime and up to that point r_bar >= r decides unless the loading
//    bound does (docs/impact-laws.md tabulates which).
// Branches follow the history (below delta_m: unloading curve both ways), as for thornton.hpp.

namespace contactuq::contact {

struct brake_params {
  double modulus = 0.0;         ///< E, effective modulus [Pa], > 0
  double radius = 0.0;          ///< r, effective radius [m], > 0 and finite
  double yield_strength = 0.0;  ///< sigma_y, of the body that yields first [Pa], > 0
  double poisson = 0.3;         ///< nu, of the body that yields first [-], in [0, 0.5)
  double hardness = 0.0;        ///< p0 = H g 1e6, hardness of the pair [Pa], > yield_strength

  void validate() const;
};

// Regime boundaries and blend coefficients, computed once from the parameters (eq. 14 needs a
// one-dimensional maximisation).
struct brake_regimes {
  brake_params params;
  double stress_factor = 0.0;                   ///< f(nu) [-], eq. (14)
  double yield_overlap = 0.0;                   ///< delta_y [m], eq. (15)
  double yield_force = 0.0;                     ///< F_y [N]
  double yield_slope = 0.0;                     ///< F'_y [N/m]
  double yield_radius = 0.0;                    ///< a_y [m]
  double yield_radius_slope = 0.0;              ///< a'_y [-]
  double plastic_overlap = 0.0;                 ///< delta_p [m], eq. (20)
  double plastic_force = 0.0;                   ///< F_p [N]
  double plastic_slope = 0.0;                   ///< F'_p = 2 pi p0 r [N/m]
  double plastic_radius = 0.0;                  ///< a_p [m], eq. (21)
  double plastic_radius_slope = 0.0;            ///< a'_p = r / a_p [-]
  double xi = 0.0;                              ///< xi [m^2], eq. (22) as read above
  double plastic_unloading_radius = 0.0;        ///< r_bar_p [m], eq. (27) at delta_p
  double plastic_unloading_radius_slope = 0.0;  ///< r_bar'_p [-]
};

// Validates params and computes the regimes. Throws parameter_error.
brake_regimes make_brake_regimes(const brake_params& params);

// f(nu) of eq. (14): the squared peak of the von Mises stress of the Hertz field over p_max.
double brake_stress_factor(double poisson);

struct brake_state {
  double max_overlap = 0.0;       ///< delta_m [m], largest overlap so far
  double max_force = 0.0;         ///< F_m [N]
  double max_radius = 0.0;        ///< a_m [m], contact radius at delta_m
  double unloading_radius = 0.0;  ///< r_bar [m], eqs. (27)-(28) or continuity, >= r
  double residual_overlap = 0.0;  ///< delta_bar [m], eq. (26) or the admissible bound, >= 0
};

// Loading force, eqs. (13), (18), (23) [N].
double brake_loading_force(const brake_regimes& regimes, double delta);
// dF/d delta of the loading curve [N/m] (left derivative at the regime boundaries, where it is
// continuous anyway).
double brake_loading_slope(const brake_regimes& regimes, double delta);
// Contact radius on loading, eqs. (17), (24) [m].
double brake_contact_radius(const brake_regimes& regimes, double delta);
// Elastic unloading from the history in state, eq. (25) [N]; 0 below delta_bar.
double brake_unloading_force(const brake_regimes& regimes, double delta, const brake_state& state);
// The law: loading at or above state.max_overlap (history advanced), unloading below.
// delta_dot is not used (rate-independent).
double brake_force(const brake_regimes& regimes, double delta, double delta_dot,
                   brake_state& state);
// Convenience form: recomputes the regimes on every call (slow; prefer the one above).
double brake_force(const brake_params& params, double delta, double delta_dot, brake_state& state);

}  // namespace contactuq::contact
