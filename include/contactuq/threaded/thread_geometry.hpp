#pragma once
// Geometry of a bolt (external thread) starting in a nut (internal thread), Nicolson 1990
// (004_...) §3.2, generalised to a flank half-angle alpha and a continuous run-up.
//
// Profile, period p, t taken mod p, even in t (thesis §3.2.1 for alpha = 30 deg):
//   f(t) = r - sqrt(r^2 - t^2)                      |t| <= t1 = r cos(alpha)     (root arc)
//        = cot(alpha) |t| - r (1/sin(alpha) - 1)      t1 <= |t| <= p/2 - t1      (flank)
//        = h - r + sqrt(r^2 - (p/2 - |t|)^2)          p/2 - t1 <= |t| <= p/2     (crest arc)
//   h = (p/2) cot(alpha) - 2 r (1/sin(alpha) - 1)    (= sqrt(3) p/2 - 2r at 30 deg)
// f and f' are continuous, and f(t) + f(t + p/2) = h: the nut profile is the bolt profile shifted
// by half a pitch.
//
// Surfaces in cylindrical coordinates (radius, theta, z), helical coordinate u = z - p theta/2pi
// (right-handed: a point advancing along the thread turns counter-clockwise seen from +z):
//   nut  (fixed, z in [-H, 0], hole):   r_n(z, theta)  = d/2 - g_n f(u)
//   bolt (body frame, z_b in [0, L]):   r_b(z_b, th_b) = R_b + g_b f(u_b),  R_b = d/2 - e/2 - h
// (thesis r_int, r_ext; e = diametral allowance on the bolt, the thesis's a d). Coaxial, the bolt
// meshes when its helical phase x_z - p theta_z/2pi is p/2 mod p.
// Run-up (documented deviation): the printed run-up (thesis r_int, r_ext, first branches) scales
// the period with the angle, is discontinuous (0.265p step) and empty over the last 62 deg of
// each 180 deg run-up. Here each thread ridge keeps its period and its height ramps linearly,
// g = clamp(psi / runup_angle, 0, 1), with psi the angle travelled along the ridge from the point
// where the ridge's lower (bolt) / upper (nut) edge leaves the end face. The surfaces stay
// continuous with continuous slopes across ridges (f = f' = 0 at the roots), the bolt tip is a
// plain circle of radius R_b and the nut opening a plain circle of radius d/2 (+ chamfer).
// Run-up "thesis" (runup = runup_kind::thesis, for comparison with the thesis's parts): the
// thesis's reading of where the run-up sits, with the same continuous height ramp. Its full
// threads reach the end faces (a nut ridge is full once its upper edge is below the top face, a
// bolt ridge once its lower edge is above the tip, thesis r_int, r_ext, third branches) and the
// 180 deg run-up is an extra sliver beyond them, cut by the face (first branches): g = clamp(1 +
// psi / runup_angle, 0, 1), psi as above (negative for a ridge whose edge is outside the face).
// At the nut face (theta = 0, z = -p/2) it has a full crest where the ramp has none: both threads
// start p runup_angle/2pi earlier (half a turn at 180 deg). The printed run-up also scales the
// period; here the period is kept, so the surfaces stay continuous.
// Chamfer c (optional, 45 deg): the nut radius is at least d/2 + c + z for z in [-c, 0].
// Plain bore (plain_bore = true): thread depth exactly zero, f = 0 and h = 0, so the same
// surfaces are a plain cylindrical peg of diameter d - e in a plain bore of diameter D = d,
// Whitney's peg-in-hole (ASME J. Dyn. Sys. Meas. Control 104:65, 1982) with clearance ratio
// c = (D - d_peg)/D = e/d. The pitch then only sets the lead of the probe helices that sample
// the side surfaces (and the model's length scales); flank angle and run-up have no effect.
// Units: SI (m, rad).

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::threaded {

using vec3 = std::array<double, 3>;

// A thread by its basic size: major diameter d, pitch p and the diametral allowance of the
// external thread (ISO 965-1 6g fundamental deviation |es|, ASME B1.1 class 2A allowance).
struct thread_standard {
  std::string name;          ///< e.g. "M8x1.25", "1/4-20 UNC"
  double major_diameter;     ///< d [m], basic major diameter of the nut
  double pitch;              ///< p [m]
  double allowance;          ///< e [m], diametral allowance of the bolt (6g / 2A)
};

// The standard thread of that name; throws parameter_error("thread", ...) listing the names.
thread_standard find_thread_standard(std::string_view name);
// Names of the tabulated standards.
std::vector<std::string> thread_standard_names();

// Where the run-up sits (thread_params::runup, above).
enum class runup_kind {
  ramp,    ///< the ridge's height ramps up from where its edge leaves the end face (default)
  thesis,  ///< full ridges reach the end faces, the run-up a sliver beyond them (Nicolson)
};

struct thread_params {
  double major_diameter = 8e-3;          ///< d [m], > 0
  double pitch = 1.25e-3;                ///< p [m], > 0, < d/2
  double flank_angle = 0.5235987755982988;  ///< alpha [rad], half-angle of the thread, (0, pi/2)
  double root_radius = 0.125e-3;         ///< r [m], crest and root radius, in [0, p/(4 cos alpha)]
  double allowance = 28e-6;              ///< e [m], diametral allowance of the bolt, [0, 2 h)
  double runup_angle = 3.141592653589793;  ///< [rad], >= 0 (0: abrupt thread start)
  runup_kind runup = runup_kind::ramp;   ///< where the run-up sits (above)
  double chamfer = 0.0;                  ///< c [m], nut entry chamfer (45 deg), [0, d/4]
  double nut_height = 6.4e-3;            ///< H [m], > p
  double bolt_length = 20e-3;            ///< L [m], > p
  // No thread: a plain peg of diameter d - allowance in a plain bore of diameter d (above); the
  // allowance is then the diametral clearance D - d_peg, in (0, d).
  bool plain_bore = false;

  // Throws parameter_error naming the field ("d", "p", "flank_angle", "root_radius",
  // "allowance", "runup_angle", "chamfer", "nut_height", "bolt_length").
  void validate() const;
};

// A surface value with its first and second partial derivatives.
struct surface_point {
  double radius;  ///< r [m]
  double dr_dz;   ///< [-]
  double dr_dtheta;  ///< [m/rad]
  double d2r_dz2 = 0;        ///< [1/m]
  double d2r_dz_dtheta = 0;  ///< [1/rad]
  double d2r_dtheta2 = 0;    ///< [m/rad^2]
};

// Nicolson's "slop" (thesis §3.5.3, the unnumbered equation after Fig. 3.8): the largest tilt
// [rad] of a bolt engaged over l >= 1 full threads, where the bolt's critical points reach the
// nut's flanks, small angles:
//   phi_max = a / (sqrt(3) (d/2 - r + p (l - 0.5)/(2 sqrt 3) - a)).
// The printed a is a length there (the allowance ratio would make it dimensionless over a
// length); read as the radial allowance e/2 (the thesis's a d/2), the formula is the flank
// clearance (e/2) tan(alpha) over the radius of the critical points, which is what it is
// generalised to here: phi_max = (e/2) tan(alpha) / (d/2 - r + p (l - 0.5) tan(alpha)/2 - e/2).
// Thesis thread (p = 1, d = 6p, r = 0.1p, a = 0.05): 1.71 deg at l = 1, 1.56 at l = 2, 1.32 at
// l = 4; the slice of Fig. 3.8 (tests/threaded) agrees within 0.4 % for l = 2..5.
// Throws parameter_error("full_threads") for l < 1; 0 for a plain bore is not defined (the
// bore's own limit applies): throws parameter_error("plain_bore").
double slop_angle(const thread_params& t, int full_threads);

class thread_geometry {
 public:
  explicit thread_geometry(const thread_params& params);

  const thread_params& params() const noexcept { return p_; }
  double height() const noexcept { return h_; }  ///< h [m]; 0 for a plain bore
  double profile(double t) const;                ///< f(t) [m]
  double profile_slope(double t) const;          ///< f'(t) [-]
  double profile_curvature(double t) const;      ///< f''(t) [1/m] (0 on the flanks)
  double bolt_minor_radius() const noexcept { return rb_; }  ///< R_b [m]
  double bolt_major_radius() const noexcept { return rb_ + h_; }  ///< d/2 - e/2 [m]
  double nut_minor_radius() const noexcept { return 0.5 * p_.major_diameter - h_; }
  double nut_opening_radius() const noexcept { return 0.5 * p_.major_diameter + p_.chamfer; }
  // Largest helical phase error |delta - p/2| at which a coaxial bolt meets no contact with full
  // threads: (e/2) tan(alpha) (notes §1, a d/(2 sqrt 3) at 30 deg) [m].
  double mesh_tolerance() const;
  // Radial interference of crest on crest (delta = 0): h - e/2 [m].
  double crest_interference() const noexcept { return h_ - 0.5 * p_.allowance; }
  // Lateral offset above which a coaxial tip lands on the nut's top face: d/2 + c - R_b [m].
  double capture_radius() const noexcept { return nut_opening_radius() - rb_; }
  // Whitney's clearance ratio c = (D - d_peg)/D of the bore and the bolt's core (d/2 and R_b;
  // for a plain bore the peg and the bore themselves) [-].
  double clearance_ratio() const noexcept { return 1 - 2 * rb_ / p_.major_diameter; }

  // Run-up factors g in [0, 1] at a point of the surface.
  double nut_ramp(double z, double theta) const;
  double bolt_ramp(double z_b, double theta_b) const;

  surface_point nut_surface(double z, double theta) const;       ///< r_n and partials
  surface_point bolt_surface(double z_b, double theta_b) const;  ///< r_b and partials

  // Unit normal of a surface r(z, theta) pointing out of the material (into the hole for the
  // nut, outward for the bolt), thesis n_g, n_b with the norm corrected to
  // sqrt(r_theta^2 + r^2 (1 + r_z^2)) (notes §1; the print lacks the square).
  vec3 nut_normal(double z, double theta) const;
  vec3 bolt_normal(double z_b, double theta_b) const;

  // Penetration [m] of a point into the nut (global frame) or the bolt (body frame): positive
  // inside the material, the depth to the nearest of the threaded surface (radial depth times
  // the normal's radial component), the end faces; negative outside (then a separation measure,
  // exact near the threaded surface). grad, when given, receives d(penetration)/dP, exact
  // (the normal's radial component varies with the point too); surface the nearest surface
  // (0 threaded, 1 top face / bolt tip, 2 nut bottom / bolt end).
  double nut_penetration(const vec3& point, vec3* grad = nullptr, int* surface = nullptr) const;
  double bolt_penetration(const vec3& point_b, vec3* grad = nullptr, int* surface = nullptr) const;

 private:
  double ramp(double edge_depth) const;
  void profile_and_slope(double t, double& f, double& slope, double* curvature = nullptr) const;
  thread_params p_;
  double h_;
  double t1_;       // end of the root arc
  double c_;        // flank offset r (1/sin(alpha) - 1)
  double cot_;      // cot(alpha)
  double rb_;
  // reciprocals for the point queries, which run millions of times per start
  double inv_pitch_;        // 1/p
  double ramp_per_length_;  // 2 pi / (p runup_angle): ramp rise per metre of edge depth
  bool thesis_runup_;       // runup_kind::thesis with a run-up: the ramp shifted by one run-up
};

}  // namespace contactuq::threaded
