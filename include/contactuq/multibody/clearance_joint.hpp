#pragma once
// Clearance joints: a pin (body j) moving inside a hole or slot of body i, in contact through a
// continuous normal law and Coulomb friction, Skrinjar et al. (003_...) Sections 3-4.
//
// Revolute clearance joint (RCJ), eqs. (16)-(20), hole of radius R_i around point P of body i:
//   e = r_j - r_P,  n = e / |e|,  delta = |e| - c,  c = R_i - R_j,  t = (-n_y, n_x)
// Pin-slot clearance joint (PSCJ), eqs. (10)-(20): the slot is the convex hull of two circles,
// radius R_P about P and R_R about R (two cylindrical ends joined by two flats; R_P != R_R gives
// the non-parallel flats of Section 3). Its flats are the outer common tangents, with outward
// normals
//   N_+- = sin(phi) u +- cos(phi) w,   sin(phi) = (R_P - R_R) / L,  u = (R - P) / L,  w = perp(u)
// (t of eqs. (10)-(11) along each flat, n of eq. (12) across it). The active contact is the
// feature nearest to the pin: for a pin centre r inside the slot the wall distance is the least of
//   flat +-:  s = N_+- . (P - r) + R_P                          (eqs. (13)-(14) per flat)
//   arc P:    R_P - |r - P|   where (r - P)/|r - P| . u <= sin(phi)  (the end beyond the flats)
//   arc R:    R_R - |r - R|   where (r - R)/|r - R| . u >= sin(phi)
// and the overlap is delta = R_j - s (eq. (15) for a flat; eq. (19), delta = |e| - c, for an end).
// Sign: here delta > 0 is penetration (eqs. (15) and (19) as printed count it the other way).
// delta is continuous where the active feature changes (the flats are tangent to the arcs), and
// L = 0 with R_P = R_R is the RCJ (the paper's limit case, Section 6).
//
// Normal force (Section 4): a law of contact/law_registry.hpp per feature, with
//   hertz, lankarani_nikravesh, hunt_crossley, flores, gonthier: K of eqs. (22)-(23),
//     K = 4 / (3 (h_i + h_j)) sqrt(R_i R_j / (R_i - R_j)) for the pin in an end (internal),
//     K = 4 / (3 (h_i + h_j)) sqrt(R_j) for the pin on a flat (R_i -> inf), exponent n;
//   kelvin_voigt_cr, eq. (24): a linear stiffness (default: the K above read as N/m, as eq. (24)
//     reuses the symbol), its switch at v_n = 0 smoothed over +-velocity_regularization;
//   johnson_cylinder, eqs. (28)-(30): dR = R_i - R_j in an end (eq. 30, internal), dR = R_j on a
//     flat (our choice: eq. (30) has no finite value for a flat), axial length W;
//   johnson_cylinder_damped: Johnson's elastic force times the Lankarani-Nikravesh factor of eq.
//     (27), (1 + 3/4 (1 - c_r^2) delta' / delta'_0) (Johnson "with dissipation", Section 6).
// Tangential force: Coulomb, eq. (31), F_t = -mu F_n sign(v_t), or its tanh regularisation.
// Forces, eq. (32): on the pin F = -F_n n + F_t t, on the slot the opposite; each enters Q_e via
// eq. (33) at its body's contact point.

#include <limits>
#include <string>
#include <vector>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/multibody/body.hpp"

namespace contactuq::multibody {

enum class clearance_feature {
  arc_p,       ///< the cylindrical end about P (the whole hole of an RCJ)
  arc_r,       ///< the cylindrical end about R
  flat_plus,   ///< the flat on the +w side of the axis P -> R
  flat_minus,  ///< the flat on the -w side
};
const char* feature_name(clearance_feature f);

// Geometry of a hole or slot in body i's frame.
struct slot_geometry {
  vec2 centre_p = vec2::Zero();  ///< u_P [m]
  vec2 centre_r = vec2::Zero();  ///< u_R [m]; = u_P for a round hole (RCJ)
  double radius_p = 0.0;         ///< R_0^i at P [m], > pin radius
  double radius_r = 0.0;         ///< R_0^i at R [m], > pin radius; = radius_p when L = 0
  double pin_radius = 0.0;       ///< R_0^j [m], > 0

  double length() const { return (centre_r - centre_p).norm(); }  ///< L [m]
  // Throws parameter_error naming the field: radii positive, the pin smaller than both ends,
  // |R_P - R_R| < L (else one end swallows the other).
  void validate() const;
};

// Where the pin touches (or is nearest to) the wall.
struct wall_contact {
  clearance_feature feature = clearance_feature::arc_p;
  double overlap = 0.0;    ///< delta [m]: > 0 penetration, < 0 gap
  vec2 normal;             ///< n, unit, from the pin centre towards the wall (global)
  vec2 tangent;            ///< t = perp(n), eq. (20)
  vec2 pin_point;          ///< the pin's surface point along n: r_j + R_j n (global) [m]
  vec2 wall_point;         ///< the wall point along n: r_j + (R_j - delta) n (global) [m]
};

// Eqs. (16)-(20): pin centre r_pin [m] in the hole about `hole_centre` [m] (global).
wall_contact hole_contact(const vec2& hole_centre, double hole_radius, const vec2& pin_centre,
                          double pin_radius);
// Eqs. (10)-(20): pin centre r_pin [m] (global) in the slot of body i at (position, theta).
wall_contact slot_contact(const slot_geometry& slot, const vec2& position, double theta,
                          const vec2& pin_centre);

enum class friction_model {
  none,         ///< F_t = 0
  coulomb,      ///< eq. (31)
  regularized,  ///< mu tanh(2.5 v_t / v_tr) F_n (Williams eq. (1.84), contact/friction.hpp)
};

struct contact_options {
  std::string law = "lankarani_nikravesh";  ///< one of clearance_laws()
  double restitution = 0.4;          ///< c_r [-], in (0, 1] (Table 3: 0.4); unused by hertz, johnson_cylinder
  double exponent = 1.5;             ///< n of eqs. (21), (25) [-], >= 1
  double modulus_i = 69e9;           ///< E of the slot body [Pa], > 0 (Table 3: 69 GPa)
  double poisson_i = 0.35;           ///< nu of the slot body [-], in [0, 0.5) (Table 3)
  double modulus_j = 69e9;           ///< E of the pin [Pa], > 0
  double poisson_j = 0.35;           ///< nu of the pin [-], in [0, 0.5)
  double length = 0.08;              ///< W, axial contact length [m], > 0 (Table 3; Johnson only)
  // K of eq. (24) [N/m], > 0; NaN: K of eq. (22) for the feature, read as N/m.
  double kelvin_voigt_stiffness = std::numeric_limits<double>::quiet_NaN();
  double velocity_regularization = 1e-4;  ///< [m/s], > 0: width of kelvin_voigt_cr's switch
  // delta'_0 of eq. (26) is at least this [m/s], >= 1e-6: a contact that closes at (near) zero
  // speed, such as a resting one, would otherwise have infinite damping.
  double minimum_impact_velocity = 1e-3;
  friction_model friction = friction_model::regularized;
  double friction_coefficient = 0.51;  ///< mu [-], >= 0 (Table 3: mu_k = 0.51)
  double transition_velocity = 1e-3;   ///< v_tr [m/s], > 0 (regularized only)

  void validate() const;  ///< throws parameter_error naming the field
};

// The normal laws a clearance joint accepts, sorted.
std::vector<std::string> clearance_laws();

// Eqs. (22)-(23) [N/m^1.5]: internal (pin of radius r_pin in a hole of radius r_hole > r_pin) and
// a pin on a flat (r_hole = inf). E, nu: the two bodies' moduli [Pa] and Poisson ratios.
double clearance_hertz_stiffness(const contact_options& o, double r_hole, double r_pin);

// The normal law of one feature: end of radius r_hole (flat_radius for a flat) and pin r_pin.
// Throws parameter_error for an unknown law or bad options.
contact::contact_law make_clearance_law(const contact_options& o, double r_hole, double r_pin);

// Friction force F_t [N] along t for normal force F_n [N] and sliding velocity v_t [m/s].
double clearance_friction(const contact_options& o, double normal_force, double sliding_velocity);

enum class clearance_kind {
  revolute,  ///< RCJ: the hole about slot.centre_p with radius slot.radius_p
  pin_slot,  ///< PSCJ
};

struct clearance_joint {
  std::string name = "clearance";
  clearance_kind kind = clearance_kind::pin_slot;
  std::size_t body_i = 0;      ///< body with the hole or slot
  std::size_t body_j = 0;      ///< body with the pin, != body_i
  vec2 pin_centre = vec2::Zero();  ///< u of the pin centre in body j's frame [m]
  slot_geometry slot;
  contact_options contact;

  void validate() const;
  // Geometry of the joint at the given poses (global positions [m], angles [rad]).
  wall_contact locate(const vec2& position_i, double theta_i, const vec2& position_j,
                      double theta_j) const;
};

}  // namespace contactuq::multibody
