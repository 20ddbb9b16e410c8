#pragma once
// Etsion's elastic-plastic impact model, Brake 2014 (001_...) eqs. (29)-(36): Kogut-Etsion (2002)
// loading and Etsion-Kligerman-Kadin (2005) unloading, finite-element fits (refs. [18], [19]):
//   delta_y = (pi K H / (2 E))^2 r,  K = 0.454 + 0.41 nu                                (29)
//   F_y     = 4/3 E sqrt(r) delta_y^(3/2)     (Hertz, eq. 13, at delta_y)
//   loading, w = delta/delta_y:
//     F = 4/3 E sqrt(r) delta^(3/2)            0 <= w <= 1                             (13)
//     F = 1.03 F_y w^1.425                     1 <= w <= 6                             (30)
//     F = 1.40 F_y w^1.263                     6 <= w                                  (32)
//   unloading from (delta_m, F_m), w_m = delta_m/delta_y > 1:
//     delta_r/delta_m = (1 - w_m^-0.28) (1 - w_m^-0.69)                                  (34)
//     F = F_m ((delta - delta_r)/(delta_m - delta_r))^(1.5 w_m^-0.0331)                  (35)
//   and for w_m <= 1 the elastic unloading retraces Hertz (delta_r = 0, exponent 3/2).
// E: effective modulus [Pa]; r: effective radius [m]; H: hardness of the more compliant body
// [Pa]; nu: its Poisson ratio; delta: overlap [m]; F [N].
//
// Notes:
//  - eq. (29) as printed has no pi; Kogut-Etsion's critical interference (after Chang, Etsion
//    and Bogy) has it: with pi the Hertz peak pressure at delta_y is K H (about 1.6 sigma_y, the
//    von Mises onset), without it K H / pi. We keep pi.
//  - The published fits are not continuous: the force jumps by +3 % at w = 1 (1.03 F_y against
//    F_y) and by +1.6 % at w = 6. We keep them as published. Just past each jump the unloading
//    curve runs above the loading curve below it, by at most that jump, so an impact that just
//    passes yield can return slightly more energy than it took (e = 1.009 for AISI 1045 steel,
//    10 mm sphere on a flat, at 0.04 m/s).
//  - The fits were made for w up to about 110; beyond that they are extrapolated.
//  - Contact radius fits (31), (33), (36) do not enter the force and are not implemented.
// Branches follow the history (below delta_m: unloading curve both ways), as for thornton.hpp.

namespace contactuq::contact {

struct etsion_params {
  double modulus = 0.0;   ///< E, effective modulus [Pa], > 0
  double radius = 0.0;    ///< r, effective radius [m], > 0 and finite
  double poisson = 0.3;   ///< nu of the more compliant body [-], in [0, 0.5)
  double hardness = 0.0;  ///< H of the more compliant body [Pa], > 0 (Brinell: H g 1e6)

  void validate() const;
};

struct etsion_state {
  double max_overlap = 0.0;         ///< delta_m [m], largest overlap so far
  double max_force = 0.0;           ///< F_m [N]
  double residual_overlap = 0.0;    ///< delta_r [m], eq. (34); 0 while elastic
  double unloading_exponent = 1.5;  ///< 1.5 w_m^-0.0331, eq. (35); 1.5 while elastic
};

double etsion_yield_overlap(const etsion_params& params);  ///< delta_y [m], eq. (29)
double etsion_yield_force(const etsion_params& params);    ///< F_y [N]

double etsion_loading_force(const etsion_params& params, double delta);  ///< (13), (30), (32)
double etsion_unloading_force(const etsion_params& params, double delta,
                              const etsion_state& state);  ///< eq. (35)
// The law: loading at or above state.max_overlap (history advanced), unloading below.
double etsion_force(const etsion_params& params, double delta, double delta_dot,
                    etsion_state& state);

}  // namespace contactuq::contact
