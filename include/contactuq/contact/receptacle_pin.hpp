#pragma once
// Quasi-static receptacle–pin insertion-force model, Williams, SAND2015-20731 (seeds/000_…).
//
// A receptacle arm is a pseudo-rigid cantilever with torsional stiffness K at its root:
//   K theta = Fn Lmn - Ft Lmt,  Ft = mu Fn                          (1.2), (1.3)
//   Fn = K theta / (Lmn -+ mu Lmt)   (engaging: -, disengaging: +)   (1.4), (1.81)
// The rotation theta, the pin-normal angle alpha and the moment arms Lmn, Lmt follow from the
// contact geometry, piecewise over the pin tip, cone, cone-to-barrel round and barrel
// (sections 2.2.1–2.2.4); each piece reduces to A + B cos(theta*) + C sin(theta*) = 0, solved in
// closed form with the root selection of Appendix A (1.89)–(1.93).
//
// Units: SI throughout (m, N, rad, N*m/rad). Forces are those the pin exerts on one arm; Fx is
// the insertion force along the stroke (negative when it resists +x motion).

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace contactuq::contact {

// Receptacle and pin parameters, named as in Williams Table 1.
struct receptacle_pin_params {
  // Pin, as given on a drawing (section 2.3); a, e, Lct and c are derived from these.
  double Rr = 0.0;   ///< pin cone-to-barrel round radius [m], >= 0
  double Rp = 0.0;   ///< pin barrel radius [m], >= 0
  double phi = 0.0;  ///< pin cone angle from the pin axis [rad], in (0, pi/2)
  double Rt = 0.0;   ///< pin tip radius [m], >= 0
  // Receptacle arm.
  double h = 0.0;       ///< height of the arm pivot above the pin axis [m], finite
  double R = 0.0;       ///< receptacle contact round radius [m], >= 0 (R + Rt > 0, R + Rr > 0)
  double L = 0.0;       ///< arm length, pivot to round centre along the arm [m], > 0
  double b = 0.0;       ///< offset of the round centre below the arm line [m], any sign
  double K = 0.0;       ///< torsional stiffness of the arm root [N*m/rad], > 0
  double mu = 0.0;      ///< nominal friction coefficient [-], >= 0
  double theta0 = 0.0;  ///< initial (unstressed) arm angle [rad], finite, |cos(theta0)| > 1e-6

  // Throws parameter_error naming the field, its value and the allowed range.
  void validate() const;
};

// Behaviour of an arm under +x motion (section 2.4).
enum class arm_direction { engage, disengage };
std::string_view to_string(arm_direction d);

// Part of the pin under the arm's contact round.
enum class pin_region { none, tip, cone, round, barrel };
std::string_view to_string(pin_region r);

// Arms that move together with the same initial separation and direction.
struct arm_group {
  double d0 = 0.0;  ///< initial separation, arm pivot to pin tip [m], finite
  arm_direction direction = arm_direction::engage;
  int count = 1;  ///< number of identical arms in the group, >= 1

  void validate() const;
};

// Transition points along the stroke. Index k = 0..3 is the report's k = 1..4: arm on the very
// tip (alpha = 90 deg), tip to cone (alpha = phi), cone to round (alpha = phi), round to barrel
// (alpha = 0).
struct critical_points {
  std::array<double, 4> theta{};  ///< theta_cr,k, incremental rotation [rad] (1.22, 1.24, 1.57, 1.63)
  std::array<double, 4> d{};      ///< d_cr,k, separation [m] (1.23, 1.25, 1.61, 1.67)
  std::array<double, 4> x{};      ///< x_cr,k, displacement [m] (1.8 or 1.80)
  // First contact; empty when the arm never touches the pin.
  std::optional<double> dc;       ///< separation at first contact [m] (1.27, 1.41, 1.68)
  std::optional<double> xc;       ///< displacement at first contact [m]
  pin_region first_contact = pin_region::none;
};

// State of one arm at one displacement. Before the arm reaches the pin (region none) the
// forces and rotation are zero and alpha, Lmn, Lmt are NaN: there is no contact point.
struct arm_state {
  double Fx = 0.0;     ///< insertion force on the arm, along +x [N] (1.5 or 1.82)
  double Fy = 0.0;     ///< force on the arm perpendicular to the stroke [N] (1.6 or 1.83)
  double Fn = 0.0;     ///< normal contact force [N] (1.4 or 1.81)
  double Ft = 0.0;     ///< tangential (friction) force [N] (1.3)
  double theta = 0.0;  ///< incremental arm rotation [rad], selected by (1.26)
  double alpha = 0.0;  ///< angle of the outward pin normal from the y axis [rad]
  double Lmn = 0.0;    ///< moment arm of Fn about the pivot [m]
  double Lmt = 0.0;    ///< moment arm of Ft about the pivot [m]
  pin_region region = pin_region::none;
};

// Regularised Coulomb friction, eq. (1.84): mu = mu_nom tanh(2.5 v / v_t).
double friction_coefficient(double mu_nominal, double v_norm);

class receptacle;
struct stroke;
struct receptacle_curve;

// One arm of a receptacle, with everything that does not depend on x precomputed.
class receptacle_arm {
 public:
  // Validates the inputs; throws parameter_error for invalid parameters or a geometry the model
  // cannot represent (no real critical root (1.90), negative cone length (1.78)).
  receptacle_arm(const receptacle_pin_params& params, double d0, arm_direction direction);

  // State at displacement x [m] with normalised velocity v_norm = v / v_t [-] (1.84).
  // Throws model_error where the quasi-static model has no solution (friction lock).
  arm_state evaluate(double x, double v_norm) const;

  const critical_points& critical() const noexcept { return critical_; }
  const receptacle_pin_params& params() const noexcept { return p_; }
  double d0() const noexcept { return d0_; }
  arm_direction direction() const noexcept { return direction_; }

 private:
  friend receptacle_curve evaluate_curve(const receptacle& r, const stroke& s);
  // What evaluate() does, at separation d with the friction coefficient mu of (1.84) already
  // known, writing every field of s; x only names the point in error messages. evaluate_curve
  // calls it in its stroke loop, with mu computed once per direction.
  void state_at(double x, double d, double mu, arm_state& s) const;
  // Appends to out the states at the n displacements x, all with friction coefficient mu.
  void sweep(const double* x, std::size_t n, double mu, std::vector<arm_state>& out) const;
  // A root of A + B cos(theta*) + C sin(theta*) = 0 chosen by (1.93), with sin and cos of
  // theta* = theta + theta0; theta is NaN when (1.90) fails. With select, theta is the rotation
  // selected by (1.26).
  struct rotation {
    double theta, sin_ts, cos_ts;
  };
  rotation solve_rotation(double A, double B, double C, bool select = false) const;
  double select_rotation(double theta) const;  // (1.26)
  // Geometry of the contact at separation d, with the rotation selected by (1.26).
  struct contact_point {
    pin_region region;
    double theta, alpha, sin_alpha, cos_alpha, Lmn, Lmt;
  };
  contact_point kinematics(double d) const;
  void locate_first_contact();

  receptacle_pin_params p_;
  double d0_;
  arm_direction direction_;
  // Derived pin geometry (1.76)–(1.79) and trig of constant angles.
  double a_, e_, Lct_, c_;
  double sin_phi_, cos_phi_, tan_phi_, cos_theta0_, sin_theta0_;
  double sign_cos_theta0_;  // m = sgn(cos theta0) of (1.26)
  critical_points critical_;
  contact_point barrel_;  // constant on the barrel, (1.70)–(1.73)
  // On the cone A = d + Rt - A1 + A2 (1.33); B (1.34) and C (1.35) are constant.
  struct {
    double A1, A2, B, C;
  } cone_;
};

// A receptacle: groups of arms sharing one parameter set and moving together.
class receptacle {
 public:
  receptacle(const receptacle_pin_params& params, const std::vector<arm_group>& groups);

  const std::vector<receptacle_arm>& arms() const noexcept { return arms_; }
  const std::vector<arm_group>& groups() const noexcept { return groups_; }

 private:
  std::vector<arm_group> groups_;
  std::vector<receptacle_arm> arms_;  // one representative arm per group
};

// A stroke as in the Appendix B decks: from -> to at +v_norm, then back at -v_norm.
struct stroke {
  double from = 0.0;              ///< start displacement [m], finite
  double to = 0.0;                ///< end displacement [m], finite, != from
  int points = 500;               ///< points per direction, >= 2
  double v_norm = 10.0;           ///< |v| / v_t on the stroke [-], > 0 (sign set per direction)
  bool round_trip = true;         ///< also evaluate the way back

  void validate() const;
  std::vector<double> positions() const;   ///< x at each point [m]
  std::vector<double> velocities() const;  ///< signed v / v_t at each point [-]
};

// A receptacle evaluated along a stroke. group_states[g][i] is one arm of group g at point i;
// the totals sum count * force over all groups.
struct receptacle_curve {
  std::vector<double> x;       ///< displacement [m]
  std::vector<double> v_norm;  ///< normalised velocity [-]
  std::vector<std::vector<arm_state>> group_states;
  std::vector<double> Fx_total;  ///< [N]
  std::vector<double> Fy_total;  ///< [N]
  std::size_t forward_points = 0;  ///< the first forward_points points are the +x stroke
};

receptacle_curve evaluate_curve(const receptacle& r, const stroke& s);

}  // namespace contactuq::contact
