#pragma once
// Etsion's elastic-plastic impact model, Brake 2014 (001_...) eqs. (29)-(36): Kogut-Etsion (2002)
// loading and Etsion-Kligerman-Kadin (2005) unloading, finite-element fits (refs. [18], [19]):
//   delta_y = (pi K H / (2 E))^2 r,  K = 0.454 + 0.41 nu,  H = 2.8 sigma_y                (29)
//   F_y     = 4/3 E sqrt(r) delta_y^(3/2)     (Hertz, eq. 13, at delta_y)
//   loading, w = delta/delta_y (pieces switched where the fits cross, see below):
//     F = 4/3 E sqrt(r) delta^(3/2)            0 <= w <= 1.4831                        (13)
//     F = 1.03 F_y w^1.425                     1.4831 <= w <= 6.6490                   (30)
//     F = 1.40 F_y w^1.263                     6.6490 <= w                             (32)
//   unloading from (delta_m, F_m), w_m = delta_m/delta_y > 1:
//     delta_r/delta_m = (1 - w_m^-0.28) (1 - w_m^-0.69)   (raised where needed, below)  (34)
//     F = F_m ((delta - delta_r)/(delta_m - delta_r))^(1.5 w_m^-0.0331)                  (35)
//   and for w_m <= 1 the elastic unloading retraces Hertz (delta_r = 0, exponent 3/2).
// E: effective modulus [Pa]; r: effective radius [m]; H: hardness of the body that yields first
// (lower sigma_y) [Pa], H = 2.8 sigma_y (Tabor), not the Brinell hardness; nu: Poisson's ratio of
// that body; delta: overlap [m]; F [N].
//
// Where we depart from the printed equations, and why (derivations in docs/impact-laws.md):
//  - eq. (29) as printed has no pi; Kogut-Etsion's critical interference (after Chang, Etsion
//    and Bogy) has it: with pi and H = 2.8 sigma_y the Hertz peak pressure at delta_y is
//    K H = (1.27 + 1.15 nu) sigma_y, about 1.6 sigma_y, the von Mises onset. The appendix calls
//    H "the hardness of the more compliant material"; Kogut-Etsion define it as 2.8 Y of the
//    body that yields, which is what makes delta_y the yield onset (Brinell hardness moves it by
//    1.1x to 6.7x for the built-in materials).
//  - The published fits are not continuous: as printed the force jumps by +3 % at w = 1
//    (1.03 F_y against F_y) and by +1.6 % at w = 6. We switch pieces where they cross instead,
//    w = 1.03^(1/0.075) = 1.4831 and w = (1.40/1.03)^(1/0.162) = 6.6490 (the loading curve is
//    the smallest of the three, continuous and rising). Plastic deformation still starts at
//    w = 1: unloading from w_m > 1 follows (34)-(35).
//  - Just past yield and past each switch the fitted unloading curve (35) runs above the loading
//    curve (its residual (34) is tiny there), which would return more energy than the impact
//    took. The residual is raised to the smallest value that keeps unloading at or below loading,
//    delta_r >= sup (delta - q delta_m)/(1 - q), q = (F_load(delta)/F_m)^(1/n), n the exponent
//    of (35) (src/contact/unloading_guard.hpp); elsewhere eq. (34) stands.
//  - The fits were made for w up to about 110; beyond that they are extrapolated.
//  - Contact radius fits (31), (33), (36) do not enter the force and are not implemented.
// Branches follow the history (below delta_m: unloading curve both ways), as for thornton.hpp.

namespace contactuq::contact {

struct etsion_params {
  double modulus = 0.0;   ///< E, effective modulus [Pa], > 0
  double radius = 0.0;    ///< r, effective radius [m], > 0 and finite
  double poisson = 0.3;   ///< nu of the body that yields first [-], in [0, 0.5)
  // H = 2.8 sigma_y (Tabor) of the body that yields first (lower sigma_y) [Pa], > 0; not Brinell.
  double hardness = 0.0;

  void validate() const;
};

struct etsion_state {
  double max_overlap = 0.0;         ///< delta_m [m], largest overlap so far
  double max_force = 0.0;           ///< F_m [N]
  double residual_overlap = 0.0;    ///< delta_r [m], eq. (34) or the admissible bound; 0 elastic
  double unloading_exponent = 1.5;  ///< 1.5 w_m^-0.0331, eq. (35); 1.5 while elastic
};

// H = 2.8 sigma_y [Pa], the hardness Kogut-Etsion's critical interference is defined with.
double etsion_tabor_hardness(double yield_strength);
double etsion_yield_overlap(const etsion_params& params);  ///< delta_y [m], eq. (29)
double etsion_yield_force(const etsion_params& params);    ///< F_y [N]

double etsion_loading_force(const etsion_params& params, double delta);  ///< (13), (30), (32)
double etsion_unloading_force(const etsion_params& params, double delta,
                              const etsion_state& state);  ///< eq. (35)
// The law: loading at or above state.max_overlap (history advanced), unloading below.
double etsion_force(const etsion_params& params, double delta, double delta_dot,
                    etsion_state& state);

}  // namespace contactuq::contact
