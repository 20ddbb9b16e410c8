#include "contactuq/contact/receptacle_pin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "contactuq/error.hpp"

namespace contactuq::contact {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double pi = std::numbers::pi;

double sgn(double v) { return (v > 0.0) - (v < 0.0); }

// Wraps an angle to [-pi, pi], as the report's wrap() does. For pi < |angle| < 7 (angles 2 atan2
// - theta0 with a small theta0) one step of 2 pi is what std::remainder takes (the quotient is
// in (0.5, 1.12)) and the subtraction is exact (Sterbenz), so both give the same double.
double wrap(double angle) {
  const double a = std::abs(angle);
  if (a <= pi) return angle;
  if (a < 7.0) return angle > 0.0 ? angle - 2.0 * pi : angle + 2.0 * pi;
  return std::remainder(angle, 2.0 * pi);
}

// Roots at the ends of a region may come out with a discriminant a few ulps below zero.
double clamp_discriminant(double disc, double C) {
  const double tolerance = 1e-12 * (C * C + 1e-300);
  return (disc < 0.0 && disc > -tolerance) ? 0.0 : disc;
}

// asin(w) for |w| <= 1/16 by its series to w^11: the first term left out, (231/13312) w^13,
// is below 7e-17 |w|. Grouped in pairs (Estrin) to shorten the chain of dependent operations.
inline double asin_small(double w) {
  const double z = w * w, z2 = z * z;
  const double p = (1.0 / 6 + z * (3.0 / 40)) + z2 * ((5.0 / 112 + z * (35.0 / 1152)) + z2 * (63.0 / 2816));
  return w + w * z * p;
}

// asin(j / 16) and sqrt(1 - (j / 16)^2), j = 0..12: the grid of alpha_angle.
struct asin_grid {
  std::array<double, 13> angle, cos;
};
const asin_grid grid = [] {
  asin_grid g{};
  for (std::size_t j = 0; j < g.angle.size(); ++j) {
    const double s = static_cast<double>(j) / 16.0;
    g.angle[j] = std::asin(s);
    g.cos[j] = std::sqrt(1.0 - s * s);
  }
  return g;
}();

// The angle in [0, pi/4] with sine sn and cosine cs (sn <= cs, both >= 0), without atan2 (a sixth
// of a stroke's time): from the nearest grid angle a_j, sin j/16, by the series of asin of
// sin(angle - a_j) = sn cos a_j - cs j/16, |angle - a_j| < 0.045.
inline double octant_angle(double sn, double cs) {
  const auto j = static_cast<std::size_t>(sn * 16.0 + 0.5);
  return grid.angle[j] + asin_small(sn * grid.cos[j] - cs * (static_cast<double>(j) / 16.0));
}

[[noreturn]] void geometry_error(const std::string& message) {
  throw parameter_error("geometry", message);
}

// The errors of the stroke loop, kept out of line so that the loop stays small.
[[noreturn, gnu::cold, gnu::noinline]] void no_rotation_error(double x, double d, pin_region r) {
  throw model_error(fmt::format(
      "no real arm rotation at x = {} m (d = {} m) on the pin {} (eq. 1.90 fails): the "
      "geometry is outside what the model represents",
      x, d, to_string(r)));
}

[[noreturn, gnu::cold, gnu::noinline]] void friction_lock_error(double x, pin_region r,
                                                               bool engaging,
                                                               double denominator, double mu) {
  throw model_error(fmt::format(
      "friction lock at x = {} m on the pin {}: Lmn {} mu Lmt = {} m does not have the sign of "
      "theta (eq. {}), the quasi-static model has no solution; mu = {} is too large for this "
      "geometry",
      x, to_string(r), engaging ? "-" : "+", denominator, engaging ? "1.4" : "1.81", mu));
}

}  // namespace

std::string_view to_string(arm_direction d) {
  return d == arm_direction::engage ? "engage" : "disengage";
}

std::string_view to_string(pin_region r) {
  switch (r) {
    case pin_region::tip: return "tip";
    case pin_region::cone: return "cone";
    case pin_region::round: return "round";
    case pin_region::barrel: return "barrel";
    case pin_region::none: break;
  }
  return "none";
}

void receptacle_pin_params::validate() const {
  auto finite = [](double v) { return std::isfinite(v); };
  require(finite(Rr) && Rr >= 0, "Rr", Rr, "m", ">= 0");
  require(finite(Rp) && Rp >= 0, "Rp", Rp, "m", ">= 0");
  require(finite(Rt) && Rt >= 0, "Rt", Rt, "m", ">= 0");
  require(finite(phi) && phi > 0 && phi < pi / 2, "phi", phi, "rad",
          "in (0, 90) deg, exclusive");
  require(finite(h), "h", h, "m", "finite");
  require(finite(R) && R >= 0, "R", R, "m", ">= 0");
  require(R + Rt > 0, "R", R, "m", "> 0 when the pin tip radius Rt is 0");
  require(finite(L) && L > 0, "L", L, "m", "> 0");
  require(finite(b), "b", b, "m", "finite");
  require(finite(K) && K > 0, "K", K, "N*m/rad", "> 0");
  require(finite(mu) && mu >= 0, "mu", mu, "", ">= 0");
  require(finite(theta0) && std::abs(std::cos(theta0)) > 1e-6, "theta0", theta0, "rad",
          "finite and away from +-90 deg, where the root selection (1.26), (1.92) is undefined");
}

void arm_group::validate() const {
  require(std::isfinite(d0), "d0", d0, "m", "finite");
  require(count >= 1, "count", count, "", "an integer >= 1");
}

double friction_coefficient(double mu_nominal, double v_norm) {
  return mu_nominal * std::tanh(2.5 * v_norm);  // (1.84)
}

receptacle_arm::receptacle_arm(const receptacle_pin_params& params, double d0,
                               arm_direction direction)
    : p_(params), d0_(d0), direction_(direction) {
  p_.validate();
  arm_group{d0, direction, 1}.validate();
  const auto& [Rr, Rp, phi, Rt, h, R, L, b, K, mu, theta0] = p_;
  sin_phi_ = std::sin(phi);
  cos_phi_ = std::cos(phi);
  tan_phi_ = std::tan(phi);
  cos_theta0_ = std::cos(theta0);
  sin_theta0_ = std::sin(theta0);
  sign_cos_theta0_ = sgn(cos_theta0_);

  // Geometric compatibility from the drawing parameters, (1.76)–(1.79).
  a_ = Rt * cos_phi_;
  e_ = Rr - Rp;
  Lct_ = (Rr * cos_phi_ - (a_ + e_)) / sin_phi_;
  const double scale = std::max({Rr, Rp, Rt, 1e-300});
  if (Lct_ < -1e-12 * scale)
    geometry_error(fmt::format(
        "pin cone length Lct = {} m < 0 from the compatibility equation (1.78): the pin tip "
        "(Rt = {} m) and round (Rr = {} m) do not fit a cone of phi = {} deg on a barrel of "
        "Rp = {} m; reduce Rt or Rr - Rp, or increase phi",
        Lct_, Rt, Rr, phi * 180 / pi, Rp));
  Lct_ = std::max(Lct_, 0.0);
  c_ = Rt + (Rr - Rt) * sin_phi_ + Lct_ * cos_phi_;

  // Critical rotations, each from an equation of the form A + B cos + C sin = 0.
  struct critical_equation {
    double A;
    const char* equation;
    const char* where;
  };
  const std::array<critical_equation, 4> equations = {{
      {-h, "(1.22)", "the very tip of the pin"},
      {-h + (Rt + R) * cos_phi_, "(1.24)", "the tip-to-cone transition"},
      {(R + Rr) * cos_phi_ - (h + e_), "(1.57)", "the cone-to-round transition"},
      {R + Rp - h, "(1.63)", "the round-to-barrel transition"},
  }};
  for (std::size_t k = 0; k < 4; ++k) {
    const double A = equations[k].A;
    const double disc = b * b + L * L - A * A;  // C^2 - (A^2 - B^2) with B = b, C = -L (1.90)
    if (disc < 0)
      geometry_error(fmt::format(
          "no real root of eq. {} for the arm at {} (C^2 - (A^2 - B^2) = {} m^2 < 0, eq. 1.90): "
          "the arm of length L = {} m, offset b = {} m, cannot reach it from height h = {} m",
          equations[k].equation, equations[k].where, disc, L, b, h));
    critical_.theta[k] = solve_rotation(A, b, -L).theta;
  }
  const auto& tc = critical_.theta;
  auto lever = [&](std::size_t k) {  // b sin(theta*) + L cos(theta*) at critical point k
    return b * std::sin(tc[k] + theta0) + L * std::cos(tc[k] + theta0);
  };
  critical_.d = {lever(0) + R,                                  // (1.23)
                 lever(1) + (Rt + R) * sin_phi_ - Rt,           // (1.25)
                 lever(2) + (R + Rr) * sin_phi_ - c_,           // (1.61)
                 lever(3) - c_};                                // (1.67)
  const auto& dcr = critical_.d;
  if (!(dcr[0] >= dcr[1] && dcr[1] >= dcr[2] && dcr[2] >= dcr[3]))
    geometry_error(fmt::format(
        "the critical separations d_cr = [{}, {}, {}, {}] m are not in tip, cone, round, barrel "
        "order along the stroke: this arm and pin do not form the geometry of Williams "
        "Figures 3-6",
        dcr[0], dcr[1], dcr[2], dcr[3]));
  for (std::size_t k = 0; k < 4; ++k)
    critical_.x[k] = direction_ == arm_direction::engage ? d0_ - dcr[k] : dcr[k] - d0_;
  locate_first_contact();

  // The terms of the cone equations (1.33)–(1.35) that do not depend on d.
  cone_.A1 = (Rt + R) * sin_phi_;
  cone_.A2 = (h - a_ - R * cos_phi_) / tan_phi_;
  cone_.B = -(L + b / tan_phi_);  // (1.34)
  cone_.C = L / tan_phi_ - b;     // (1.35)

  // On the barrel rotation and moment arms are constant, (1.70)–(1.73).
  const double ts4 = critical_.theta[3] + theta0;
  barrel_ = {pin_region::barrel, select_rotation(critical_.theta[3]), 0.0, 0.0, 1.0,
             L * std::cos(ts4) + b * std::sin(ts4), h - Rp};
}

inline receptacle_arm::rotation receptacle_arm::solve_rotation(double A, double B, double C,
                                                              bool select) const {
  const double disc = clamp_discriminant(C * C - (A * A - B * B), C);  // (1.90)
  if (disc < 0) return {nan, nan, nan};
  const double n = sgn(C * cos_theta0_);  // (1.92)
  // (1.93): theta* = 2 atan(N / D). atan2 differs from atan(N / D) only by 2 pi, removed by the
  // wrap, and is defined at A = B; sin and cos of theta* follow from the half-angle forms
  // (1.87), (1.88) without further trigonometry.
  const double N = -C + n * std::sqrt(disc);
  const double D = A - B;
  const double r2 = N * N + D * D;
  // Divisions, not a reciprocal: near alpha = 0 the loop equations (1.43) cancel to a few digits
  // and amplify the last bit of sin and cos of theta* into alpha.
  const double sin_ts = 2.0 * N * D / r2, cos_ts = (D * D - N * N) / r2;
  if (!select) return {wrap(2.0 * std::atan2(N, D) - p_.theta0), sin_ts, cos_ts};
  // theta = theta* - theta0. Rotations are small: where |sin theta| <= 1/16 and cos theta > 0,
  // theta is the series of asin(sin theta), with sin theta from the difference formula.
  const double sin_t = sin_ts * cos_theta0_ - cos_ts * sin_theta0_;
  const double cos_t = cos_ts * cos_theta0_ + sin_ts * sin_theta0_;
  const double theta = (cos_t > 0.0 && std::abs(sin_t) <= 0.0625)
                           ? asin_small(sin_t)
                           : wrap(2.0 * std::atan2(N, D) - p_.theta0);
  return {select_rotation(theta), sin_ts, cos_ts};  // (1.26)
}

inline double receptacle_arm::select_rotation(double theta) const {
  const double m = sign_cos_theta0_;
  return std::max(m * theta, 0.0) * m;  // (1.26)
}

inline receptacle_arm::contact_point receptacle_arm::kinematics(double d) const {
  const auto& [Rr, Rp, phi, Rt, h, R, L, b, K, mu, theta0] = p_;
  const auto& dcr = critical_.d;
  // alpha from its sine and cosine components (each a loop equation times a radius). In the
  // first quadrant, where the tip and the round keep it, alpha follows from the normalised
  // components by octant_angle; elsewhere, or where squares would under- or overflow, by atan2.
  auto with_alpha = [](contact_point c, double s, double co) {
    const double r2 = s * s + co * co;
    if (s >= 0.0 && co >= 0.0 && r2 >= 0x1p-900 && r2 <= 0x1p+900) {
      const double inv_r = 1.0 / std::sqrt(r2);
      c.sin_alpha = s * inv_r;
      c.cos_alpha = co * inv_r;
      c.alpha = c.sin_alpha <= c.cos_alpha ? octant_angle(c.sin_alpha, c.cos_alpha)
                                           : pi / 2 - octant_angle(c.cos_alpha, c.sin_alpha);
    } else {
      const double r = std::hypot(s, co);
      c.alpha = std::atan2(s, co);
      c.sin_alpha = s / r;
      c.cos_alpha = co / r;
    }
    return c;
  };
  if (d > dcr[0]) return {pin_region::none, 0.0, nan, nan, nan, nan, nan};
  if (d > dcr[1]) {  // pin tip, section 2.2.1
    const double A = L * L + b * b + h * h + (Rt + d) * (Rt + d) - (Rt + R) * (Rt + R);  // (1.14)
    const double B = -2.0 * (L * (Rt + d) + b * h);                                      // (1.15)
    const double C = 2.0 * (L * h - b * (Rt + d));                                       // (1.16)
    const rotation rot = solve_rotation(A, B, C, true);
    // (1.17), taken as atan2 of the two loop equations (1.9), (1.10): acos loses half the
    // digits near alpha = 0.
    contact_point c = with_alpha({pin_region::tip, rot.theta, 0, 0, 0, 0, 0},
                                 d + Rt - b * rot.sin_ts - L * rot.cos_ts,
                                 L * rot.sin_ts - b * rot.cos_ts + h);
    c.Lmn = (Rt + d) * c.cos_alpha - h * c.sin_alpha;       // (1.20)
    c.Lmt = (Rt + d) * c.sin_alpha + h * c.cos_alpha - Rt;  // (1.21)
    return c;
  }
  if (d > dcr[2]) {  // pin cone, section 2.2.2
    const double A = d + Rt - cone_.A1 + cone_.A2;  // (1.33)
    const rotation rot = solve_rotation(A, cone_.B, cone_.C, true);
    const double Lc = (h - a_ - R * cos_phi_ - b * rot.cos_ts + L * rot.sin_ts) / sin_phi_;  // (1.31)
    return {pin_region::cone, rot.theta, phi, sin_phi_, cos_phi_,                           // (1.40)
            (d + Rt - Rt * sin_phi_) * cos_phi_ - (h - a_) * sin_phi_ + Lc,               // (1.38)
            (d + Rt) * sin_phi_ + Rt * cos_phi_ * cos_phi_ - Rt + (h - a_) * cos_phi_};   // (1.39)
  }
  if (d > dcr[3]) {  // pin round, section 2.2.3
    const double dc = d + c_;
    const double he = h + e_;
    const double A = (R + Rr) * (R + Rr) - L * L - b * b - dc * dc - he * he;  // (1.48)
    const double B = 2.0 * L * dc + 2.0 * b * he;                              // (1.49)
    const double C = 2.0 * b * dc - 2.0 * L * he;                              // (1.50)
    const rotation rot = solve_rotation(A, B, C, true);
    // (1.51), taken as atan2 of the two loop equations (1.43), (1.44) for accuracy near alpha = 0.
    contact_point c = with_alpha({pin_region::round, rot.theta, 0, 0, 0, 0, 0},
                                 dc - b * rot.sin_ts - L * rot.cos_ts, L * rot.sin_ts - b * rot.cos_ts + he);
    c.Lmn = dc * c.cos_alpha - he * c.sin_alpha;       // (1.54)
    c.Lmt = dc * c.sin_alpha + he * c.cos_alpha - Rr;  // (1.55)
    return c;
  }
  return barrel_;  // section 2.2.4
}

void receptacle_arm::locate_first_contact() {
  const auto& [Rr, Rp, phi, Rt, h, R, L, b, K, mu, theta0] = p_;
  const auto& dcr = critical_.d;
  const double s0 = std::sin(theta0), c0 = cos_theta0_;
  const double lever0 = b * s0 + L * c0;
  // Candidate separations at first contact for each region, and the range where each holds.
  const double alpha_tip = std::acos((L * s0 - b * c0 + h) / (Rt + R));                         // (1.28)
  const double Lc0 = (h - a_ - R * cos_phi_ - b * c0 + L * s0) / sin_phi_;                      // (1.42)
  const double alpha_round = std::acos((L * s0 - b * c0 + h + e_) / (R + Rr));                  // (1.69)
  const std::array<double, 3> dc = {
      -Rt + (Rt + R) * std::sin(alpha_tip) + lever0,                                            // (1.27)
      -Rt + Rt * sin_phi_ - Lc0 * cos_phi_ + R * sin_phi_ + lever0,                             // (1.41)
      -c_ + (R + Rr) * std::sin(alpha_round) + lever0};                                         // (1.68)
  const std::array<pin_region, 3> regions = {pin_region::tip, pin_region::cone, pin_region::round};
  for (std::size_t k = 0; k < 3; ++k) {
    if (dc[k] < dcr[k] && dc[k] >= dcr[k + 1]) {  // NaN (no acos) never passes
      critical_.dc = dc[k];
      critical_.first_contact = regions[k];
      break;
    }
  }
  if (!critical_.dc) {
    // Either the arm already presses on the pin where it first reaches it (contact starts
    // abruptly at the tip, d = dcr1), or it never deflects outward and never touches.
    if (select_rotation(critical_.theta[0]) != 0.0) {
      critical_.dc = dcr[0];
      critical_.first_contact = pin_region::tip;
    } else if (select_rotation(critical_.theta[3]) != 0.0) {
      critical_.dc = dcr[3];
      critical_.first_contact = pin_region::barrel;
    }
  }
  if (critical_.dc)
    critical_.xc = direction_ == arm_direction::engage ? d0_ - *critical_.dc : *critical_.dc - d0_;
}

arm_state receptacle_arm::evaluate(double x, double v_norm) const {
  const double d = direction_ == arm_direction::engage ? d0_ - x : d0_ + x;  // (1.8), (1.80)
  arm_state s;
  state_at(x, d, friction_coefficient(p_.mu, v_norm), s);  // (1.84)
  return s;
}

inline void receptacle_arm::state_at(double x, double d, double mu, arm_state& s) const {
  const contact_point c = kinematics(d);
  if (std::isnan(c.theta)) no_rotation_error(x, d, c.region);
  s.region = c.region;
  s.alpha = c.alpha;
  s.Lmn = c.Lmn;
  s.Lmt = c.Lmt;
  s.theta = c.theta;  // selected by (1.26) in kinematics
  s.Fn = s.Ft = s.Fx = s.Fy = 0.0;
  if (s.theta == 0.0) return;  // no contact: the arm would have to bend toward the pin

  const bool engaging = direction_ == arm_direction::engage;
  const double denominator = engaging ? s.Lmn - mu * s.Lmt : s.Lmn + mu * s.Lmt;
  // The contact pushes (Fn > 0) only while the denominator has the sign of theta, which is the
  // sign m of cos(theta0); otherwise friction locks the arm.
  if (!(sign_cos_theta0_ * denominator > 0.0))
    friction_lock_error(x, s.region, engaging, denominator, mu);
  s.Fn = p_.K * s.theta / denominator;  // (1.4), (1.81)
  s.Ft = mu * s.Fn;                     // (1.3)
  const double sa = c.sin_alpha, ca = c.cos_alpha;
  if (engaging) {
    s.Fx = -s.Fn * sa - s.Ft * ca;  // (1.5)
    s.Fy = s.Fn * ca - s.Ft * sa;   // (1.6)
  } else {
    s.Fx = s.Fn * sa - s.Ft * ca;  // (1.82)
    s.Fy = s.Fn * ca + s.Ft * sa;  // (1.83)
  }
}

receptacle::receptacle(const receptacle_pin_params& params, const std::vector<arm_group>& groups)
    : groups_(groups) {
  if (groups_.empty())
    throw parameter_error("arms", "a receptacle needs at least one arm group");
  arms_.reserve(groups_.size());
  for (const auto& g : groups_) {
    g.validate();
    arms_.emplace_back(params, g.d0, g.direction);
  }
}

void stroke::validate() const {
  require(std::isfinite(from), "from", from, "m", "finite");
  require(std::isfinite(to) && to != from, "to", to, "m", "finite and different from 'from'");
  require(points >= 2, "points", points, "", "an integer >= 2");
  require(std::isfinite(v_norm) && v_norm > 0, "v_norm", v_norm, "", "> 0");
}

std::vector<double> stroke::positions() const {
  std::vector<double> x;
  x.reserve(static_cast<std::size_t>(round_trip ? 2 * points : points));
  for (int i = 0; i < points; ++i) x.push_back(from + (to - from) * i / (points - 1));
  if (round_trip)  // the same points in reverse order
    for (std::size_t i = static_cast<std::size_t>(points); i-- > 0;) x.push_back(x[i]);
  return x;
}

std::vector<double> stroke::velocities() const {
  const double forward = to > from ? v_norm : -v_norm;
  std::vector<double> v(static_cast<std::size_t>(points), forward);
  if (round_trip) v.resize(2 * static_cast<std::size_t>(points), -forward);
  return v;
}

void receptacle_arm::sweep(const double* x, std::size_t n, double mu,
                           std::vector<arm_state>& out) const {
  const bool engaging = direction_ == arm_direction::engage;
  // Off the pin and on the barrel nothing depends on d: those states are copied. The barrel's
  // is found at the first barrel point, so that an error there names the same x as before.
  const arm_state none{0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, nan, pin_region::none};
  arm_state barrel;
  bool have_barrel = false;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = engaging ? d0_ - x[i] : d0_ + x[i];  // (1.8), (1.80)
    if (d > critical_.d[0]) {
      out.push_back(none);
    } else if (d <= critical_.d[3]) {
      if (!have_barrel) {
        state_at(x[i], d, mu, barrel);
        have_barrel = true;
      }
      out.push_back(barrel);
    } else {
      state_at(x[i], d, mu, out.emplace_back());
    }
  }
}

receptacle_curve evaluate_curve(const receptacle& r, const stroke& s) {
  s.validate();
  receptacle_curve curve;
  curve.x = s.positions();
  curve.v_norm = s.velocities();
  curve.forward_points = static_cast<std::size_t>(s.points);
  const std::size_t n = curve.x.size();
  const double* x = curve.x.data();
  const double* v = curve.v_norm.data();
  curve.Fx_total.assign(n, 0.0);
  curve.Fy_total.assign(n, 0.0);
  double* Fx = curve.Fx_total.data();
  double* Fy = curve.Fy_total.data();
  curve.group_states.resize(r.arms().size());
  for (std::size_t g = 0; g < r.arms().size(); ++g) {
    const auto& arm = r.arms()[g];
    auto& states = curve.group_states[g];
    states.reserve(n);  // sweep appends: no zeroing of what it writes (a tenth of a stroke's time)
    // The velocity is constant along each direction of the stroke: (1.84) once per direction.
    for (std::size_t begin = 0, end; begin < n; begin = end) {
      for (end = begin + 1; end < n && v[end] == v[begin];) ++end;
      arm.sweep(x + begin, end - begin, friction_coefficient(arm.p_.mu, v[begin]), states);
    }
    const double count = r.groups()[g].count;
    const arm_state* st = states.data();
    for (std::size_t i = 0; i < n; ++i) {
      Fx[i] += count * st[i].Fx;
      Fy[i] += count * st[i].Fy;
    }
  }
  return curve;
}

}  // namespace contactuq::contact
