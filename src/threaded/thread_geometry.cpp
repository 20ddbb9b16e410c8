#include "contactuq/threaded/thread_geometry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

namespace contactuq::threaded {

namespace {

constexpr double two_pi = 2 * std::numbers::pi;
constexpr double inv_two_pi = 1 / two_pi;
constexpr double inch = 0.0254;

// ISO 261 coarse and fine pitches, ISO 965-1 6g fundamental deviation es = -(15 + 11 P) um
// (P in mm) as tabulated (rounded); ASME B1.1 UNC/UNF basic major diameters and class 2A
// allowances (major diameter max = basic - allowance).
const std::vector<thread_standard>& standards() {
  static const std::vector<thread_standard> table = {
      {"M3x0.5", 3e-3, 0.5e-3, 20e-6},       {"M4x0.7", 4e-3, 0.7e-3, 22e-6},
      {"M5x0.8", 5e-3, 0.8e-3, 24e-6},       {"M6x1", 6e-3, 1.0e-3, 26e-6},
      {"M8x1.25", 8e-3, 1.25e-3, 28e-6},     {"M8x1", 8e-3, 1.0e-3, 26e-6},
      {"M10x1.5", 10e-3, 1.5e-3, 32e-6},     {"M10x1.25", 10e-3, 1.25e-3, 28e-6},
      {"M12x1.75", 12e-3, 1.75e-3, 34e-6},   {"M12x1.5", 12e-3, 1.5e-3, 32e-6},
      {"M16x2", 16e-3, 2.0e-3, 38e-6},       {"M16x1.5", 16e-3, 1.5e-3, 32e-6},
      {"M20x2.5", 20e-3, 2.5e-3, 42e-6},     {"M24x3", 24e-3, 3.0e-3, 48e-6},
      {"#10-24 UNC", 0.190 * inch, inch / 24, 0.0010 * inch},
      {"1/4-20 UNC", 0.250 * inch, inch / 20, 0.0011 * inch},
      {"1/4-28 UNF", 0.250 * inch, inch / 28, 0.0010 * inch},
      {"5/16-18 UNC", 0.3125 * inch, inch / 18, 0.0012 * inch},
      {"3/8-16 UNC", 0.375 * inch, inch / 16, 0.0013 * inch},
      {"1/2-13 UNC", 0.500 * inch, inch / 13, 0.0015 * inch},
      {"3/4-10 UNC", 0.750 * inch, inch / 10, 0.0018 * inch},
  };
  return table;
}

// Angle in (-pi, pi] of a point; 0 on the axis.
double azimuth(double x, double y) { return (x == 0 && y == 0) ? 0.0 : std::atan2(y, x); }

}  // namespace

thread_standard find_thread_standard(std::string_view name) {
  for (const auto& s : standards())
    if (s.name == name) return s;
  throw parameter_error("thread", fmt::format("thread = \"{}\": unknown thread; known: {}, or \"custom\" with d and p",
                                              name, fmt::join(thread_standard_names(), ", ")));
}

std::vector<std::string> thread_standard_names() {
  std::vector<std::string> names;
  for (const auto& s : standards()) names.push_back(s.name);
  return names;
}

void thread_params::validate() const {
  require(std::isfinite(major_diameter) && major_diameter > 0, "d", major_diameter, "m",
          "positive and finite");
  require(std::isfinite(pitch) && pitch > 0 && pitch < 0.5 * major_diameter, "p", pitch, "m",
          "positive and below d/2");
  require(flank_angle > 0.05 && flank_angle < 1.4, "flank_angle", flank_angle, "rad",
          "in (0.05, 1.4) (about 3 to 80 deg)");
  const double r_max = pitch / (4 * std::cos(flank_angle));
  require(root_radius >= 0 && root_radius <= r_max, "root_radius", root_radius, "m",
          "in [0, p/(4 cos(flank_angle))] (the flank must keep a straight part)");
  if (plain_bore) {
    // no thread to overlap: the clearance is what lets the peg tilt (Whitney's c > 0)
    require(std::isfinite(allowance) && allowance > 0 && allowance < major_diameter, "allowance",
            allowance, "m",
            "in (0, d) for a plain bore (the diametral clearance D - d_peg; d is the bore diameter D)");
  } else {
    const double h = 0.5 * pitch / std::tan(flank_angle) -
                     2 * root_radius * (1 / std::sin(flank_angle) - 1);
    require(h > 0, "root_radius", root_radius, "m", "small enough that the thread height is positive");
    require(allowance >= 0 && allowance < 2 * h, "allowance", allowance, "m",
            "in [0, 2 h) (h = thread height; plain_bore for a bore without thread)");
    require(0.5 * major_diameter - 0.5 * allowance - h > 0, "d", major_diameter, "m",
            "larger than the thread depth (the bolt core radius must be positive)");
  }
  require(std::isfinite(runup_angle) && runup_angle >= 0 && runup_angle <= 8 * std::numbers::pi,
          "runup_angle", runup_angle, "rad", "in [0, 8 pi]");
  require(chamfer >= 0 && chamfer <= 0.25 * major_diameter, "chamfer", chamfer, "m", "in [0, d/4]");
  require(std::isfinite(nut_height) && nut_height > pitch, "nut_height", nut_height, "m",
          "finite and above one pitch");
  require(std::isfinite(bolt_length) && bolt_length > pitch, "bolt_length", bolt_length, "m",
          "finite and above one pitch");
}

thread_geometry::thread_geometry(const thread_params& params) : p_(params) {
  p_.validate();
  const double a = p_.flank_angle;
  cot_ = 1 / std::tan(a);
  t1_ = p_.root_radius * std::cos(a);
  c_ = p_.root_radius * (1 / std::sin(a) - 1);
  h_ = p_.plain_bore ? 0.0 : 0.5 * p_.pitch * cot_ - 2 * c_;
  rb_ = 0.5 * p_.major_diameter - 0.5 * p_.allowance - h_;
  inv_pitch_ = 1 / p_.pitch;
  ramp_per_length_ = p_.runup_angle > 0 ? two_pi / (p_.pitch * p_.runup_angle) : 0.0;
  thesis_runup_ = p_.runup == runup_kind::thesis && p_.runup_angle > 0;
}

double slop_angle(const thread_params& t, int full_threads) {
  t.validate();
  if (t.plain_bore)
    throw parameter_error("plain_bore", "slop_angle: a plain bore has no thread flanks (Whitney's theta_m applies)");
  if (full_threads < 1)
    throw parameter_error("full_threads", fmt::format("slop_angle: {} full threads; needs at least 1", full_threads));
  // thesis §3.5.3 with a = e/2 (header) and 1/sqrt(3) = tan(30 deg) -> tan(alpha)
  const double ta = std::tan(t.flank_angle);
  const double half_e = 0.5 * t.allowance;
  return half_e * ta /
         (0.5 * t.major_diameter - t.root_radius + t.pitch * (full_threads - 0.5) * 0.5 * ta - half_e);
}

double thread_geometry::mesh_tolerance() const {
  return 0.5 * p_.allowance * std::tan(p_.flank_angle);
}

// Thesis §3.2.1 profile, generalised (header): value, slope and curvature from one reduction of
// t.
void thread_geometry::profile_and_slope(double t, double& f, double& slope,
                                        double* curvature) const {
  double k = 0;
  if (p_.plain_bore) {  // thread depth zero: plain peg and bore (header)
    f = 0;
    slope = 0;
  } else {
    const double p = p_.pitch;
    const double r = p_.root_radius;
    double s = t - p * std::floor(t * inv_pitch_);  // in [0, p]
    if (s >= p) s -= p;
    if (s < 0) s += p;
    const double sign = s <= 0.5 * p ? 1.0 : -1.0;
    const double tau = std::min(s, p - s);  // even
    if (tau <= t1_) {
      const double root = std::sqrt(std::max(0.0, r * r - tau * tau));
      f = r - root;
      slope = tau == 0 ? 0.0 : sign * tau / std::max(1e-150, root);
      k = r * r / std::max(1e-150, root * root * root);
    } else if (tau <= 0.5 * p - t1_) {
      f = cot_ * tau - c_;
      slope = sign * cot_;
    } else {
      const double q = 0.5 * p - tau;
      const double root = std::sqrt(std::max(0.0, r * r - q * q));
      f = h_ - r + root;
      slope = q == 0 ? 0.0 : sign * q / std::max(1e-150, root);
      k = -r * r / std::max(1e-150, root * root * root);
    }
  }
  if (curvature) *curvature = k;
}

double thread_geometry::profile(double t) const {
  double f, slope;
  profile_and_slope(t, f, slope);
  return f;
}

double thread_geometry::profile_slope(double t) const {
  double f, slope;
  profile_and_slope(t, f, slope);
  return slope;
}

double thread_geometry::profile_curvature(double t) const {
  double f, slope, k;
  profile_and_slope(t, f, slope, &k);
  return k;
}

double thread_geometry::ramp(double edge_depth) const {
  if (p_.runup_angle == 0) return edge_depth > 0 ? 1.0 : 0.0;
  // thesis: full once the edge is inside, the sliver a run-up beyond (header)
  if (thesis_runup_) return std::clamp(1 + edge_depth * ramp_per_length_, 0.0, 1.0);
  return std::clamp(edge_depth * ramp_per_length_, 0.0, 1.0);  // psi / runup, psi = 2 pi depth / p
}

namespace {
// Offset of u from the nearest ridge centre (u = p/2 mod p), in [-p/2, p/2].
double ridge_offset(double u, double p, double inv_p) {
  const double w = u - 0.5 * p;
  return w - p * std::floor(w * inv_p + 0.5);
}
}  // namespace

double thread_geometry::nut_ramp(double z, double theta) const {
  const double p = p_.pitch;
  const double zc = z - ridge_offset(z - p * theta * inv_two_pi, p, inv_pitch_);  // ridge centre height
  return ramp(-(zc + 0.5 * p));  // depth of the ridge's upper edge below the top face
}

double thread_geometry::bolt_ramp(double z_b, double theta_b) const {
  const double p = p_.pitch;
  const double zc = z_b - ridge_offset(z_b - p * theta_b * inv_two_pi, p, inv_pitch_);
  return ramp(zc - 0.5 * p);  // height of the ridge's lower edge above the tip
}

namespace {
// d g / d theta inside the ramp: psi changes by -1 (nut) or +1 (bolt) per radian.
double ramp_rate(double g, double runup) {
  return (runup > 0 && g > 0 && g < 1) ? 1 / runup : 0.0;
}
}  // namespace

// r = d/2 - g f(u) (nut), R_b + g f(u) (bolt), u = z - lambda theta, lambda = p/2pi, with the ramp
// g a function of theta alone (its ridge's start) and linear in it: g_theta constant, g_thth = 0.
surface_point thread_geometry::nut_surface(double z, double theta) const {
  const double lambda = p_.pitch * inv_two_pi;
  const double g = nut_ramp(z, theta);
  double f, fp, fpp;
  profile_and_slope(z - lambda * theta, f, fp, &fpp);
  const double g_theta = -ramp_rate(g, p_.runup_angle);
  surface_point s{0.5 * p_.major_diameter - g * f,
                  -g * fp,
                  -g_theta * f + g * fp * lambda,
                  -g * fpp,
                  -g_theta * fp + g * fpp * lambda,
                  2 * g_theta * fp * lambda - g * fpp * lambda * lambda};
  if (p_.chamfer > 0 && z > -p_.chamfer) {
    const double cone = 0.5 * p_.major_diameter + p_.chamfer + z;
    if (cone > s.radius) s = {cone, 1.0, 0.0};
  }
  return s;
}

surface_point thread_geometry::bolt_surface(double z_b, double theta_b) const {
  const double lambda = p_.pitch * inv_two_pi;
  const double g = bolt_ramp(z_b, theta_b);
  double f, fp, fpp;
  profile_and_slope(z_b - lambda * theta_b, f, fp, &fpp);
  const double g_theta = ramp_rate(g, p_.runup_angle);
  return {rb_ + g * f,
          g * fp,
          g_theta * f - g * fp * lambda,
          g * fpp,
          g_theta * fp - g * fpp * lambda,
          -2 * g_theta * fp * lambda + g * fpp * lambda * lambda};
}

namespace {
// X_theta x X_z of X = (r cos, r sin, z), normalised: outward from the axis.
vec3 outward_normal(const surface_point& s, double theta) {
  const double c = std::cos(theta);
  const double sn = std::sin(theta);
  const vec3 n = {s.dr_dtheta * sn + s.radius * c, -s.dr_dtheta * c + s.radius * sn,
                  -s.radius * s.dr_dz};
  const double norm = std::sqrt(s.dr_dtheta * s.dr_dtheta +
                                s.radius * s.radius * (1 + s.dr_dz * s.dr_dz));
  return {n[0] / norm, n[1] / norm, n[2] / norm};
}
}  // namespace

vec3 thread_geometry::nut_normal(double z, double theta) const {
  const vec3 n = outward_normal(nut_surface(z, theta), theta);
  return {-n[0], -n[1], -n[2]};  // out of the nut's material is towards the axis
}

vec3 thread_geometry::bolt_normal(double z_b, double theta_b) const {
  return outward_normal(bolt_surface(z_b, theta_b), theta_b);
}

namespace {
// Penetration sign * (rho - r) kappa of a point at (rho, theta, z) for a surface r(z, theta),
// kappa = 1/sqrt(1 + r_z^2 + (r_theta/rho)^2) (sign +1: the nut's material outside r, -1: the
// bolt's inside), and its exact gradient in Cartesian coordinates.
double radial_depth(double sign, double rho, double c, double sn, const surface_point& s,
                    vec3* grad) {
  const double inv_rho = rho > 0 ? 1 / rho : 0.0;
  const double rt = s.dr_dtheta * inv_rho;
  const double kappa = 1 / std::sqrt(1 + s.dr_dz * s.dr_dz + rt * rt);
  const double gap = sign * (rho - s.radius);
  if (grad) {
    // kappa_x = -kappa^3 (r_z d(r_z)/dx + rt d(rt)/dx), rt = r_theta / rho
    const double k3 = kappa * kappa * kappa;
    const double d_rho = sign * kappa + gap * k3 * rt * rt * inv_rho;
    const double d_theta = -sign * s.dr_dtheta * kappa -
                           gap * k3 * (s.dr_dz * s.d2r_dz_dtheta + rt * s.d2r_dtheta2 * inv_rho);
    const double d_z = -sign * s.dr_dz * kappa -
                       gap * k3 * (s.dr_dz * s.d2r_dz2 + rt * s.d2r_dz_dtheta * inv_rho);
    const double t = d_theta * inv_rho;  // along e_theta = (-sin, cos, 0)
    *grad = {d_rho * c - t * sn, d_rho * sn + t * c, d_z};
  }
  return gap * kappa;
}
}  // namespace

double thread_geometry::nut_penetration(const vec3& P, vec3* grad, int* surface) const {
  const double rho = std::sqrt(P[0] * P[0] + P[1] * P[1]);  // lengths of mm: no overflow, and hypot is slow
  const double c = rho > 0 ? P[0] / rho : 1.0;
  const double sn = rho > 0 ? P[1] / rho : 0.0;
  const surface_point s = nut_surface(P[2], azimuth(P[0], P[1]));
  vec3 g_radial;
  const double radial = radial_depth(1.0, rho, c, sn, s, grad ? &g_radial : nullptr);
  const double top = -P[2];
  const double bottom = P[2] + p_.nut_height;
  const double pen = std::min({radial, top, bottom});
  if (surface) *surface = pen == radial ? 0 : pen == top ? 1 : 2;
  if (grad) *grad = pen == top ? vec3{0, 0, -1} : pen == bottom ? vec3{0, 0, 1} : g_radial;
  return pen;
}

double thread_geometry::bolt_penetration(const vec3& P, vec3* grad, int* surface) const {
  const double rho = std::sqrt(P[0] * P[0] + P[1] * P[1]);  // lengths of mm: no overflow, and hypot is slow
  const double c = rho > 0 ? P[0] / rho : 1.0;
  const double sn = rho > 0 ? P[1] / rho : 0.0;
  const surface_point s = bolt_surface(P[2], azimuth(P[0], P[1]));
  vec3 g_radial;
  const double radial = radial_depth(-1.0, rho, c, sn, s, grad ? &g_radial : nullptr);
  const double tip = P[2];
  const double end = p_.bolt_length - P[2];
  const double pen = std::min({radial, tip, end});
  if (surface) *surface = pen == radial ? 0 : pen == tip ? 1 : 2;
  if (grad) *grad = pen == tip ? vec3{0, 0, 1} : pen == end ? vec3{0, 0, -1} : g_radial;
  return pen;
}

}  // namespace contactuq::threaded
