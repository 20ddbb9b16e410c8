#include "contactuq/threaded/threaded_insertion.hpp"

#include <cvode/cvode.h>
#include <fmt/format.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <deque>
#include <numbers>
#include <optional>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/friction.hpp"
#include "contactuq/error.hpp"

namespace contactuq::threaded {

namespace {

constexpr double pi = std::numbers::pi;
constexpr double two_pi = 2 * pi;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using vec6 = Eigen::Matrix<double, 6, 1>;

Matrix3d skew(const Vector3d& v) {
  Matrix3d s;
  s << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return s;
}

// Rotation vector of a rotation matrix (log map).
Vector3d rotation_log(const Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

// Inverse right Jacobian of SO(3): d log(exp(phi) exp(e)) / de at e = 0.
Matrix3d inverse_right_jacobian(const Vector3d& phi) {
  const double t = phi.norm();
  const Matrix3d P = skew(phi);
  double c;
  if (t < 1e-4)
    c = 1.0 / 12 + t * t / 720;
  else
    c = 1 / (t * t) - (1 + std::cos(t)) / (2 * t * std::sin(t));
  return Matrix3d::Identity() + 0.5 * P + c * P * P;
}

double wrap_pi(double a) { return a - two_pi * std::round(a / two_pi); }

struct grasp_terms {
  vec6 delta;  // gripper-frame error [x; theta]
  Vector3d phi;  // world rotation vector of R_e R^T
  Vector3d rc_world;
};

grasp_terms grasp_error(const grasp_params& g, const Vector3d& x, const Matrix3d& R,
                        const Vector3d& x_e, const Matrix3d& R_e) {
  grasp_terms t;
  const Vector3d rc(0, 0, g.z_c);
  t.rc_world = R * rc;
  t.phi = rotation_log(R_e * R.transpose());
  t.delta.head<3>() = R_e.transpose() * (x_e + R_e * rc - x - t.rc_world);
  t.delta.tail<3>() = R_e.transpose() * t.phi;
  return t;
}

}  // namespace

mat6 grasp_params::stiffness() const {
  mat6 K = mat6::Zero();
  K(0, 0) = K(1, 1) = k_t;
  K(2, 2) = k_z;
  K(3, 3) = K(4, 4) = k_theta_t;
  K(5, 5) = k_theta_z;
  K(2, 5) = K(5, 2) = k_z_theta_z;
  return K;
}

bool grasp_params::validate() const {
  auto non_negative = [](double v, const char* field, const char* unit) {
    require(std::isfinite(v) && v >= 0, field, v, unit, "non-negative and finite");
  };
  non_negative(k_t, "k_t", "N/m");
  non_negative(k_z, "k_z", "N/m");
  non_negative(k_theta_t, "k_theta_t", "N*m/rad");
  non_negative(k_theta_z, "k_theta_z", "N*m/rad");
  non_negative(damping_ratio, "damping_ratio", "");
  require(std::isfinite(z_c), "z_c", z_c, "m", "finite");
  require(std::isfinite(k_z_theta_z), "k_z_theta_z", k_z_theta_z, "N/rad", "finite");
  // The only off-diagonal block is (z, theta_z): PSD iff k_z_theta_z^2 <= k_z k_theta_z.
  const double det = k_z * k_theta_z - k_z_theta_z * k_z_theta_z;
  if (det < -1e-12 * std::max(1.0, k_z * k_theta_z))
    throw parameter_error(
        "k_z_theta_z",
        fmt::format("grasp stiffness is not positive semidefinite: k_z_theta_z^2 = {} exceeds "
                    "k_z k_theta_z = {} (k_z = {} N/m, k_theta_z = {} N*m/rad, k_z_theta_z = {} N/rad)",
                    format_value(k_z_theta_z * k_z_theta_z), format_value(k_z * k_theta_z),
                    format_value(k_z), format_value(k_theta_z), format_value(k_z_theta_z)));
  return k_t == 0 || k_theta_t == 0 || det <= 1e-12 * std::max(1.0, k_z * k_theta_z);
}

wrench grasp_spring_wrench(const grasp_params& g, const Vector3d& x, const Matrix3d& R,
                           const Vector3d& x_e, const Matrix3d& R_e) {
  const grasp_terms t = grasp_error(g, x, R, x_e, R_e);
  const vec6 w = g.stiffness() * t.delta;
  wrench out;
  out.force = R_e * w.head<3>();  // (5.2)
  out.torque = t.rc_world.cross(out.force) +
               inverse_right_jacobian(t.phi).transpose() * (R_e * w.tail<3>());  // (5.3)
  return out;
}

double grasp_spring_energy(const grasp_params& g, const Vector3d& x, const Matrix3d& R,
                           const Vector3d& x_e, const Matrix3d& R_e) {
  const grasp_terms t = grasp_error(g, x, R, x_e, R_e);
  return 0.5 * t.delta.dot(g.stiffness() * t.delta);
}

double default_contact_length(const thread_params& t) { return t.pitch; }

double drive_torque_limit(const insertion_params& p) {
  if (!std::isnan(p.drive_torque_limit)) return p.drive_torque_limit;
  return std::min(0.2, 0.5 * pi * p.grasp.k_theta_z);
}

void insertion_params::validate() const {
  thread.validate();
  grasp.validate();
  require(std::isnan(mass) || (std::isfinite(mass) && mass > 0), "mass", mass, "kg",
          "positive and finite (or unset: a steel cylinder)");
  require(std::isfinite(density) && density > 0, "density", density, "kg/m^3", "positive");
  require(std::isfinite(contact_velocity) && contact_velocity > 0, "contact_velocity",
          contact_velocity, "m/s", "positive");
  require(std::isnan(contact_length) || (std::isfinite(contact_length) && contact_length > 0),
          "contact_length", contact_length, "m", "positive (or unset: the pitch)");
  require(std::isnan(drive_torque_limit) || (std::isfinite(drive_torque_limit) && drive_torque_limit > 0),
          "drive_torque_limit", drive_torque_limit, "N*m", "positive (or unset: 0.2 N*m)");
  // the twist error log(R_e R^T) wraps at half a turn: the drive must slip well before it
  require(std::isnan(drive_torque_limit) || grasp.k_theta_z == 0 ||
              drive_torque_limit < 0.9 * pi * grasp.k_theta_z,
          "drive_torque_limit", drive_torque_limit, "N*m",
          fmt::format("below 0.9 pi k_theta_z = {} N*m (the twist wraps at half a turn)",
                      format_value(0.9 * pi * grasp.k_theta_z))
              .c_str());
  require(std::isfinite(mu) && mu >= 0 && mu <= 2, "mu", mu, "", "in [0, 2]");
  require(std::isfinite(v_t) && v_t > 0, "v_t", v_t, "m/s", "positive");
  require(std::isfinite(feed) && feed >= 0, "feed", feed, "m/s", "non-negative and finite");
  require(std::isnan(duration) || (std::isfinite(duration) && duration > 0), "duration", duration,
          "s", "positive (or unset: turns p / feed)");
  require(feed > 0 || !std::isnan(duration), "feed", feed, "m/s", "positive unless a duration is given");
  require(std::isfinite(gravity) && gravity >= 0, "gravity", gravity, "m/s^2", "non-negative and finite");
  if (feed_mode != feed_kind::path) {
    require(std::isfinite(axial_force) && axial_force > 0, "axial_force", axial_force, "N",
            "positive and finite (force and guarded feeds)");
    require(grasp.k_z > 0, "k_z", grasp.k_z, "N/m",
            "positive with a force or guarded feed (the axial spring carries the force)");
  }
  require(std::isfinite(lateral_offset) && lateral_offset >= 0 &&
              lateral_offset <= thread.major_diameter,
          "lateral_offset", lateral_offset, "m", "in [0, d]");
  require(std::isfinite(offset_azimuth), "offset_azimuth", offset_azimuth, "rad", "finite");
  require(std::isfinite(tilt) && tilt >= 0 && tilt <= 0.5, "tilt", tilt, "rad", "in [0, 0.5]");
  require(std::isfinite(tilt_azimuth), "tilt_azimuth", tilt_azimuth, "rad", "finite");
  require(std::isfinite(phase), "phase", phase, "rad", "finite");
  // z0 < 0 starts the tip inside the nut (tests of the nut's helical symmetry; the model's input
  // keeps z0 >= 0)
  require(std::isfinite(z0) && z0 >= -thread.nut_height && z0 <= 10 * thread.pitch, "z0", z0, "m",
          "in [-H, 10 p]");
  require(std::isfinite(turns) && turns > 0 && turns <= 20, "turns", turns, "", "in (0, 20]");
  require(stall_abort_turns >= 0.5, "stall_abort_turns", stall_abort_turns, "",
          "at least 0.5 (a stall is seen over half a turn of drive), or infinite (never)");
  require(std::isfinite(engage_depth) && engage_depth > 0 && engage_depth < thread.nut_height,
          "engage_depth", engage_depth, "m", "positive and below the nut height");
  require(tip_angle > 0 && tip_angle < 1.5, "tip_angle", tip_angle, "rad", "in (0, 1.5)");
  require(points_per_turn >= 8 && points_per_turn <= 4000, "points_per_turn", points_per_turn, "",
          "in [8, 4000]");
  require(relative_tolerance >= 1e-10 && relative_tolerance <= 1e-2, "relative_tolerance",
          relative_tolerance, "", "in [1e-10, 1e-2]");
  require(max_steps >= 100 && max_steps <= 100000000, "max_steps", static_cast<double>(max_steps), "",
          "in [100, 1e8]");
  require(history_points >= 0 && history_points <= 100000, "history_points", history_points, "",
          "in [0, 100000]");
}

// ---- contact detection -----------------------------------------------------------------

namespace {

enum class probe_kind { bolt_helix, nut_helix, tip_circle, nut_edge };

struct probe_curve {
  probe_kind kind;
  double offset;  // profile offset from the crest centre [m] (helices)
  double s0, s1;  // parameter range [rad]
  bool closed;
  int line;       // index of the curve in probe_points
};

// The sample points of every probe curve on a grid fixed in the part that carries the curve
// (bolt body frame, nut frame), spacing 2 pi / points_per_turn in the curve parameter: computed
// once per start, and the same material points are sampled at every pose.
struct probe_points {
  static constexpr int lines = 8;  // 3 bolt helices, 3 nut helices, tip circle, nut edge
  double ds = 0;
  std::array<long, lines> first{};  // grid index of pts[line][0]
  std::array<std::vector<Vector3d>, lines> pts;
};

struct detector {
  const thread_geometry& g;
  const probe_points& grid;
  Vector3d x;
  Matrix3d R;
  // Whether contacts get `thread` and `helical_offset` (cross-threading); the forces need neither.
  bool classify = true;

  // The point of the curve at parameter s in the frame of the part that carries it.
  static Vector3d local_point(const thread_geometry& g, probe_kind kind, double offset, double s) {
    const double p = g.params().pitch;
    switch (kind) {
      case probe_kind::bolt_helix: {
        const double zb = p * s / two_pi + 0.5 * p + offset;
        const double rb = g.bolt_surface(zb, s).radius;
        return {rb * std::cos(s), rb * std::sin(s), zb};
      }
      case probe_kind::nut_helix: {
        const double z = p * s / two_pi + 0.5 * p + offset;
        const double rn = g.nut_surface(z, s).radius;
        return {rn * std::cos(s), rn * std::sin(s), z};
      }
      case probe_kind::tip_circle: {
        const double rb = g.bolt_minor_radius();
        return {rb * std::cos(s), rb * std::sin(s), 0.0};
      }
      case probe_kind::nut_edge: {
        const double r = g.nut_opening_radius();
        return {r * std::cos(s), r * std::sin(s), 0.0};
      }
    }
    return {};
  }
  Vector3d to_global(const probe_curve& c, const Vector3d& local) const {
    return on_bolt(c) ? Vector3d(x + R * local) : local;
  }
  Vector3d point(const probe_curve& c, double s) const {
    return to_global(c, local_point(g, c.kind, c.offset, s));
  }

  static std::vector<double> crest_offsets(const thread_params& t) {
    const double r = t.root_radius * std::cos(t.flank_angle);
    if (r > 0) return {-r, 0.0, r};
    return {0.0};
  }

  static probe_points make_grid(const thread_geometry& g, int points_per_turn) {
    const auto& t = g.params();
    const double p = t.pitch;
    probe_points out;
    out.ds = two_pi / points_per_turn;
    auto fill = [&](int line, probe_kind kind, double offset, double s_lo, double s_hi) {
      const long i0 = static_cast<long>(std::floor(s_lo / out.ds)) - 1;
      const long i1 = static_cast<long>(std::ceil(s_hi / out.ds)) + 1;
      out.first[line] = i0;
      for (long i = i0; i <= i1; ++i) out.pts[line].push_back(local_point(g, kind, offset, out.ds * static_cast<double>(i)));
    };
    const auto offsets = crest_offsets(t);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      const double o = offsets[k];
      fill(static_cast<int>(k), probe_kind::bolt_helix, o, two_pi * (-0.5 * p - o) / p,
           two_pi * (t.bolt_length - 0.5 * p - o) / p);
      fill(3 + static_cast<int>(k), probe_kind::nut_helix, o, two_pi * (-t.nut_height - 0.5 * p - o) / p,
           two_pi * (-0.5 * p - o) / p);
    }
    fill(6, probe_kind::tip_circle, 0, 0, two_pi);
    fill(7, probe_kind::nut_edge, 0, 0, two_pi);
    return out;
  }
  static bool on_bolt(const probe_curve& c) {
    return c.kind == probe_kind::bolt_helix || c.kind == probe_kind::tip_circle;
  }
  // Penetration of the probe point P (global) into the other part.
  double penetration_at(const probe_curve& c, const Vector3d& P) const {
    if (on_bolt(c)) return g.nut_penetration({P.x(), P.y(), P.z()});
    const Vector3d Pb = R.transpose() * (P - x);
    return g.bolt_penetration({Pb.x(), Pb.y(), Pb.z()});
  }
  // The same with its gradient with respect to the global point P.
  double penetration_at(const probe_curve& c, const Vector3d& P, Vector3d& grad) const {
    vec3 gr;
    if (on_bolt(c)) {
      const double depth = g.nut_penetration({P.x(), P.y(), P.z()}, &gr);
      grad = {gr[0], gr[1], gr[2]};
      return depth;
    }
    const Vector3d Pb = R.transpose() * (P - x);
    const double depth = g.bolt_penetration({Pb.x(), Pb.y(), Pb.z()}, &gr);
    grad = R * Vector3d(gr[0], gr[1], gr[2]);
    return depth;
  }
  double penetration(const probe_curve& c, double s) const { return penetration_at(c, point(c, s)); }
  // The surface of the other part nearest to the curve's point at s (thread_geometry ids).
  int nearest_surface(const probe_curve& c, double s) const {
    const Vector3d P = point(c, s);
    int id = 0;
    if (on_bolt(c)) {
      g.nut_penetration({P.x(), P.y(), P.z()}, nullptr, &id);
    } else {
      const Vector3d Pb = R.transpose() * (P - x);
      g.bolt_penetration({Pb.x(), Pb.y(), Pb.z()}, nullptr, &id);
    }
    return id;
  }
  // Where the nearest surface changes between u and w (ids differ there): the penetration has a
  // kink, and quadrature panels end at it.
  double surface_switch(const probe_curve& c, double u, double w) const {
    const int at_u = nearest_surface(c, u);
    for (int i = 0; i < 40; ++i) {
      const double m = 0.5 * (u + w);
      (nearest_surface(c, m) == at_u ? u : w) = m;
    }
    return 0.5 * (u + w);
  }

  std::vector<probe_curve> curves() const {
    const auto& t = g.params();
    const double p = t.pitch;
    const Vector3d axis = R.col(2);
    const double cz = std::max(axis.z(), 0.2);
    const double m = g.bolt_major_radius() * std::sqrt(std::max(0.0, 1 - axis.z() * axis.z())) + p;
    std::vector<probe_curve> out;
    const std::vector<double> offsets = crest_offsets(t);
    // bolt body z that can be inside the nut (z in [-H, 0])
    const double zb_lo = std::max(0.0, (-t.nut_height - x.z() - m) / cz);
    const double zb_hi = std::min(t.bolt_length, (-x.z() + m) / cz);
    if (zb_hi > zb_lo)
      for (std::size_t k = 0; k < offsets.size(); ++k) {
        const double o = offsets[k];
        out.push_back({probe_kind::bolt_helix, o, two_pi * (zb_lo - 0.5 * p - o) / p,
                       two_pi * (zb_hi - 0.5 * p - o) / p, false, static_cast<int>(k)});
      }
    // nut z that can touch the bolt
    const double z_lo = std::max(-t.nut_height, x.z() - m);
    const double z_hi = std::min(0.0, x.z() + t.bolt_length * cz + m);
    if (z_hi > z_lo)
      for (std::size_t k = 0; k < offsets.size(); ++k) {
        const double o = offsets[k];
        out.push_back({probe_kind::nut_helix, o, two_pi * (z_lo - 0.5 * p - o) / p,
                       two_pi * (z_hi - 0.5 * p - o) / p, false, 3 + static_cast<int>(k)});
      }
    if (x.z() - m < 0) {
      out.push_back({probe_kind::tip_circle, 0, 0, two_pi, true, 6});
      out.push_back({probe_kind::nut_edge, 0, 0, two_pi, true, 7});
    }
    return out;
  }

  // A quadrature node of a probe curve: its point, depth and the depth's exact gradient (the
  // force field of V = Phi(depth)).
  struct node {
    Vector3d point;
    double depth;
    Vector3d grad;
  };

  bool add_contact(const probe_curve& c, const node& nd, double spin, double weight, int patch,
                   std::vector<contact_point>& out) const {
    const Vector3d& P = nd.point;
    const Vector3d& grad = nd.grad;
    const double depth = nd.depth;
    if (!(depth > 0)) return false;
    contact_point cp;
    cp.point = P;
    cp.depth = depth;
    const double gn = grad.norm();
    cp.normal = on_bolt(c) ? Vector3d(-grad / gn) : Vector3d(grad / gn);
    cp.depth_gradient_norm = gn;
    cp.weight = weight;
    cp.patch = patch;
    if (!classify) {
      out.push_back(cp);
      return true;
    }
    const Vector3d Pb = R.transpose() * (P - x);
    const auto& t = g.params();
    if (on_bolt(c))
      cp.thread = c.kind == probe_kind::bolt_helix && depth < -P.z() - 1e-15 &&
                  depth < P.z() + t.nut_height - 1e-15;
    else
      cp.thread = c.kind == probe_kind::nut_helix && depth < Pb.z() - 1e-15 &&
                  depth < t.bolt_length - Pb.z() - 1e-15;
    const double th = std::atan2(P.y(), P.x());
    const double thb = std::atan2(Pb.y(), Pb.x());
    const double turn = spin + wrap_pi(th - thb - spin);
    cp.helical_offset = (P.z() - Pb.z()) - t.pitch * turn / two_pi;
    out.push_back(cp);
    return true;
  }

  // Length of the probe curve per unit parameter [m/rad]: fixed per curve (helix and circle at
  // their nominal radius), so the weights of a material line do not change as the bolt moves.
  double speed(const probe_curve& c) const {
    const double p = g.params().pitch;
    const double lead = p / two_pi;
    switch (c.kind) {
      case probe_kind::bolt_helix:
        return std::hypot(g.bolt_major_radius(), lead);
      case probe_kind::nut_helix:
        return std::hypot(g.nut_minor_radius(), lead);
      case probe_kind::tip_circle:
        return g.bolt_minor_radius();
      case probe_kind::nut_edge:
        return g.nut_opening_radius();
    }
    return 0;
  }

  // The parameter where the penetration crosses zero between lo (<= 0) and hi (> 0), in either
  // order.
  double crossing(const probe_curve& c, double lo, double v_lo, double hi, double v_hi) const {
    if (v_lo == 0) return lo;
    boost::uintmax_t iterations = 60;
    const auto root = boost::math::tools::toms748_solve([&](double s) { return penetration(c, s); },
                                                        std::min(lo, hi), std::max(lo, hi),
                                                        lo < hi ? v_lo : v_hi, lo < hi ? v_hi : v_lo,
                                                        boost::math::tools::eps_tolerance<double>(44),
                                                        iterations);
    return 0.5 * (root.first + root.second);
  }

  // Signed distance of the curve's point from the plane of the other part's end face, negative on
  // the material's side: the nut's top face z = 0 for bolt curves, the bolt's tip plane z_b = 0
  // for nut curves. Where a curve crosses that plane near the edge, the penetration is the
  // minimum of the face and the wall distance: a sharp peak the samples can miss (two edges
  // crossing, Nicolson §3.5.3's line/line contact).
  double face(const probe_curve& c, const Vector3d& P) const {
    return on_bolt(c) ? P.z() : -R.col(2).dot(P - x);
  }
  double face(const probe_curve& c, double s) const { return face(c, point(c, s)); }

  // The largest penetration on [lo, hi] if it is positive: the stretch around it.
  bool hump(const probe_curve& c, double lo, double v_lo, double hi, double v_hi,
            std::vector<std::pair<double, double>>& out) const {
    const auto best = boost::math::tools::brent_find_minima([&](double s) { return -penetration(c, s); },
                                                            lo, hi, 26);
    const double peak = -best.second;
    if (peak <= 0) return false;
    out.emplace_back(crossing(c, lo, v_lo, best.first, peak), crossing(c, hi, v_hi, best.first, peak));
    return true;
  }

  // A sample less than this outside the other part may sit next to a peak between samples.
  double hump_margin() const {
    return 2e-3 * g.params().pitch;  // above the sampling error of a peak at 32 points/turn
  }

  // The stretches [a, b] of the probe curve that are inside the other part: runs of penetrating
  // samples extended to their zero crossings, humps between samples found by refining each local
  // maximum just below zero, and peaks where the curve crosses the other part's end face between
  // two samples outside.
  std::vector<std::pair<double, double>> inside(const probe_curve& c, int n, double ds,
                                                const std::vector<double>& s_val,
                                                const std::vector<double>& v,
                                                const std::vector<double>& f) const {
    const double margin = hump_margin();
    std::vector<std::pair<double, double>> out;
    // closed curves are walked from a sample outside, unwrapping s past 2 pi
    int first = 0;
    if (c.closed) {
      while (first < n && v[first] > 0) ++first;
      if (first == n) return {{c.s0, c.s0 + two_pi}};
    }
    const int count = c.closed ? n + 1 : n;
    auto s_at = [&](int j) { return c.closed ? s_val[first] + ds * j : s_val[j]; };
    auto v_at = [&](int j) {
      if (c.closed) return v[(first + j) % n];
      return (j < 0 || j >= n) ? -1e300 : v[j];
    };
    auto f_at = [&](int j) { return c.closed ? f[(first + j) % n] : f[j]; };
    for (int j = 0; j < count;) {
      if (v_at(j) > 0) {
        int k = j;
        while (k + 1 < count && v_at(k + 1) > 0) ++k;
        const double a = j == 0 ? s_at(0) : crossing(c, s_at(j - 1), v_at(j - 1), s_at(j), v_at(j));
        const double b = k + 1 >= count ? s_at(k)
                                         : crossing(c, s_at(k + 1), v_at(k + 1), s_at(k), v_at(k));
        out.emplace_back(a, b);
        j = k + 1;
        continue;
      }
      const bool interior = c.closed ? (j > 0 && j < n) : (j > 0 && j + 1 < n);
      if (interior && v_at(j) > -margin && v_at(j) >= v_at(j - 1) && v_at(j) > v_at(j + 1))
        hump(c, s_at(j - 1), v_at(j - 1), s_at(j + 1), v_at(j + 1), out);
      const bool next = c.closed ? j < n : j + 1 < n;
      if (next && v_at(j + 1) <= 0 && (f_at(j) < 0) != (f_at(j + 1) < 0)) {
        const double a = s_at(j), b = s_at(j + 1);
        boost::uintmax_t iterations = 40;
        const auto root = boost::math::tools::toms748_solve(
            [&](double s) { return face(c, s); }, a, b, f_at(j), f_at(j + 1),
            boost::math::tools::eps_tolerance<double>(40), iterations);
        const double at = 0.5 * (root.first + root.second);
        const double v_face = std::min(0.0, penetration(c, at));  // on the face: depth 0 at most
        // the material's side of the face: the peak lies between the crossing and that sample
        if (f_at(j + 1) < 0) hump(c, at, v_face, b, v_at(j + 1), out);
        else hump(c, a, v_at(j), at, v_face, out);
      }
      ++j;
    }
    // a peak found twice (as a hump and at the face) is one stretch
    std::sort(out.begin(), out.end());
    std::vector<std::pair<double, double>> merged;
    for (const auto& st : out) {
      if (!merged.empty() && st.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, st.second);
      else
        merged.push_back(st);
    }
    return merged;
  }

  // Gauss-Legendre nodes and weights on [-1, 1].
  static constexpr double xg[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                   0.8611363115940526};
  static constexpr double wg[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                   0.3478548451374538};

  double panel_integral(const probe_curve& c, double u, double w) const {
    double sum = 0;
    for (int i = 0; i < 4; ++i)
      sum += wg[i] * std::max(0.0, penetration(c, u + 0.5 * (w - u) * (1 + xg[i])));
    return 0.5 * (w - u) * sum;
  }

  // The same, keeping the nodes with their gradients: an accepted panel's nodes are its contacts.
  double panel_integral(const probe_curve& c, double u, double w, std::array<node, 4>& nodes) const {
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
      node& nd = nodes[i];
      nd.point = point(c, u + 0.5 * (w - u) * (1 + xg[i]));
      nd.depth = penetration_at(c, nd.point, nd.grad);
      sum += wg[i] * std::max(0.0, nd.depth);
    }
    return 0.5 * (w - u) * sum;
  }

  // Adaptive Gauss-Legendre on [u, w]: a panel is split while its halves change the integral of
  // the penetration by more than `tolerance` per unit parameter; the accepted halves' nodes
  // become contact points. The node set changes with the pose only where the integral changes
  // by less than the tolerance, so the force field is continuous to that level and the work it
  // does is the change of the contact energy to the same level.
  bool refine(const probe_curve& c, double u, double w, double whole, double tolerance, int level,
              double spin, double per_length, int patch, std::vector<contact_point>& out) const {
    const double m = 0.5 * (u + w);
    std::array<node, 4> left_nodes, right_nodes;
    const double left = panel_integral(c, u, m, left_nodes);
    const double right = panel_integral(c, m, w, right_nodes);
    if (level < 16 && std::abs(whole - (left + right)) > tolerance * (w - u)) {
      return refine(c, u, m, left, tolerance, level + 1, spin, per_length, patch, out) |
             refine(c, m, w, right, tolerance, level + 1, spin, per_length, patch, out);
    }
    bool any = false;
    for (int i = 0; i < 4; ++i)
      any |= add_contact(c, left_nodes[i], spin, 0.5 * (m - u) * wg[i] * per_length, patch, out);
    for (int i = 0; i < 4; ++i)
      any |= add_contact(c, right_nodes[i], spin, 0.5 * (w - m) * wg[i] * per_length, patch, out);
    return any;
  }

  // Every penetrated stretch of every probe curve as a distributed contact: the registered law's
  // force acts per `contact_length` of curve, integrated over the stretch by adaptive
  // Gauss-Legendre (refine) from panels one sample spacing long.
  std::vector<contact_point> find(double spin, double contact_length) const {
    std::vector<contact_point> out;
    std::vector<double> s_val, v, f;
    std::vector<char> exact;  // v is the penetration, not the bound -f
    int patch = 0;
    const double ds = grid.ds;
    for (const probe_curve& c : curves()) {
      const auto& pts = grid.pts[c.line];
      const long first = grid.first[c.line];
      long i0 = 0, i1 = static_cast<long>(pts.size()) - 1;  // closed curves: the whole circle
      if (!c.closed) {
        i0 = std::max(0L, static_cast<long>(std::ceil(c.s0 / ds)) - first);
        i1 = std::min(i1, static_cast<long>(std::floor(c.s1 / ds)) - first);
      } else {
        i1 = i0 + static_cast<long>(std::llround(two_pi / ds)) - 1;
      }
      const int n = static_cast<int>(i1 - i0 + 1);
      if (n < 3) continue;
      s_val.resize(n);
      v.resize(n);
      f.resize(n);
      exact.resize(n);
      // A sample beyond the other part's end face by more than the hump margin has penetration
      // at most -face (the face is one of the surfaces it is the minimum over): inside() never
      // looks closer at it, except as the neighbour of a sample it does look at (a bracket of a
      // crossing, a hump or a face crossing). Only those get their exact value: the stretches
      // are the same, and 40 % of the samples skip the surface query.
      const double margin = hump_margin();
      for (int i = 0; i < n; ++i) {
        s_val[i] = ds * static_cast<double>(first + i0 + i);
        const Vector3d P = to_global(c, pts[i0 + i]);
        f[i] = face(c, P);
        exact[i] = !(f[i] > margin);
        v[i] = exact[i] ? penetration_at(c, P) : -f[i];
      }
      for (int i = 0; i < n; ++i) {
        if (exact[i]) continue;
        const int before = i > 0 ? i - 1 : (c.closed ? n - 1 : -1);
        const int after = i + 1 < n ? i + 1 : (c.closed ? 0 : -1);
        if ((before >= 0 && exact[before]) || (after >= 0 && exact[after]))
          v[i] = penetration_at(c, to_global(c, pts[i0 + i]));
      }
      const double per_length = speed(c) / contact_length;
      const double sampled_peak = std::max(0.0, *std::max_element(v.begin(), v.end()));
      for (const auto& [a, b] : inside(c, n, ds, s_val, v, f)) {
        const int panels = std::max(1, static_cast<int>(std::ceil((b - a) / ds)));
        const double h = (b - a) / panels;
        const double peak = std::max(sampled_peak, penetration(c, 0.5 * (a + b)));
        const double tolerance = 1e-6 * peak;
        bool any = false;
        // panel ends at the sample spacing and at every change of the nearest surface between them
        std::vector<double> ends;
        for (int q = 0; q <= panels; ++q) {
          const double w = q == panels ? b : a + h * q;
          const double inset = 1e-9 * h;
          if (q > 0 && nearest_surface(c, ends.back() + inset) != nearest_surface(c, w - inset))
            ends.push_back(surface_switch(c, ends.back() + inset, w - inset));
          ends.push_back(w);
        }
        for (std::size_t q = 0; q + 1 < ends.size(); ++q) {
          const double u = ends[q], w = ends[q + 1];
          any |= refine(c, u, w, panel_integral(c, u, w), tolerance, 0, spin, per_length, patch, out);
        }
        if (any) ++patch;
      }
    }
    return out;
  }
};

}  // namespace

std::vector<contact_point> find_contacts(const thread_geometry& g, const Vector3d& x,
                                         const Matrix3d& R, int points_per_turn, double spin_angle,
                                         double contact_length) {
  if (std::isnan(contact_length)) contact_length = default_contact_length(g.params());
  const probe_points grid = detector::make_grid(g, points_per_turn);
  return detector{g, grid, x, R}.find(spin_angle, contact_length);
}

// ---- dynamics ----------------------------------------------------------------------------

namespace {

constexpr int n_state = 16;  // x_cm(3) q(4) v_cm(3) w_body(3) dissipated spin drive_slip

struct bolt_state {
  Vector3d x_cm;
  Eigen::Quaterniond q;
  Vector3d v_cm;
  Vector3d w_body;
  double dissipated;
  double spin;
  double slip;  // angle the spin drive has slipped [rad]
};

bolt_state unpack(const double* y) {
  bolt_state s;
  s.x_cm = {y[0], y[1], y[2]};
  s.q = Eigen::Quaterniond(y[3], y[4], y[5], y[6]);
  s.q.normalize();
  s.v_cm = {y[7], y[8], y[9]};
  s.w_body = {y[10], y[11], y[12]};
  s.dissipated = y[13];
  s.spin = y[14];
  s.slip = y[15];
  return s;
}

// What the step monitor needs of an evaluation's contacts, and its time.
struct contact_measures {
  double t = std::numeric_limits<double>::quiet_NaN();
  double max_normal = 0;
  int contacts = 0;
};

struct evaluation_terms {
  Vector3d force = Vector3d::Zero();   // on the bolt [N]
  Vector3d torque_cm = Vector3d::Zero();  // about the CM, world [N*m]
  Vector3d grasp_force = Vector3d::Zero();
  Vector3d grasp_torque = Vector3d::Zero();  // about the tip, world
  double dissipation = 0;  // [W]
  double slip_rate = 0;    // of the spin drive [rad/s]
  double max_normal = 0;
  int contacts = 0;
  double contact_energy = 0;
  std::vector<contact_point> points;
};

class insertion_system {
 public:
  explicit insertion_system(const insertion_params& p)
      : p_(p), g_(p.thread), law_(make_contact_law(p)) {
    const auto& t = p.thread;
    const double rs = g_.bolt_minor_radius();
    mass_ = std::isnan(p.mass) ? p.density * pi * rs * rs * t.bolt_length : p.mass;
    const double L = t.bolt_length;
    inertia_ = Vector3d(mass_ * (L * L / 12 + rs * rs / 4), mass_ * (L * L / 12 + rs * rs / 4),
                        0.5 * mass_ * rs * rs);  // (4.9)
    r_cm_ = Vector3d(0, 0, 0.5 * L);
    const mat6 K = p.grasp.stiffness();
    const double lever = 0.5 * L - p.grasp.z_c;
    const double m_diag[6] = {mass_, mass_, mass_, inertia_.x() + mass_ * lever * lever,
                              inertia_.y() + mass_ * lever * lever, inertia_.z()};
    for (int i = 0; i < 6; ++i) c_diag_[i] = 2 * p.grasp.damping_ratio * std::sqrt(K(i, i) * m_diag[i]);
    // equilibrium path (5.1): tip at (e cos, e sin, z0), phase: x_z - p theta_z/2pi = p/2 - p phase/2pi
    x_e0_ = Vector3d(p.lateral_offset * std::cos(p.offset_azimuth),
                     p.lateral_offset * std::sin(p.offset_azimuth), p.z0);
    theta_z0_ = two_pi * p.z0 / t.pitch - pi + p.phase;
    const Vector3d tilt_axis(-std::sin(p.tilt_azimuth), std::cos(p.tilt_azimuth), 0);
    R_tilt_ = Eigen::AngleAxisd(p.tilt, tilt_axis).toRotationMatrix();
    spin_rate_ = -two_pi * p.feed / t.pitch;
    if (t.plain_bore) {  // a peg is pushed, not screwed: no spin, `phase` only turns it
      theta_z0_ = p.phase;
      spin_rate_ = 0;
    }
  }

  static contact::contact_law make_contact_law(const insertion_params& p) {
    contact::register_builtin_laws();
    if (p.law == "cor" || p.law.starts_with("cor_"))
      throw parameter_error("law", fmt::format("law = \"{}\": an impact map has no force; choose a "
                                               "force law (e.g. hunt_crossley, hertz)",
                                               p.law));
    contact::material steel;
    steel.name = "steel_aisi_1045";  // data/materials.toml
    steel.modulus = 205e9;
    steel.poisson = 0.29;
    steel.yield_strength = 530e6;
    steel.density = 7870;
    steel.brinell_hardness = 163;
    contact::law_inputs in;
    const double r = p.thread.root_radius > 0 ? p.thread.root_radius : 0.1 * p.thread.pitch;
    in.pair = contact::contact_pair{steel, steel, r, contact::flat_radius, 0.0,
                                    contact::cylinder_contact::external};
    in.values = p.law_parameters;
    static const char* with_restitution[] = {"hunt_crossley", "lankarani_nikravesh", "flores",
                                             "gonthier", "kelvin_voigt_cr"};
    if (!in.values.contains("restitution"))
      for (const char* n : with_restitution)
        if (p.law == n) in.values["restitution"] = 0.5;
    contact::contact_law law = contact::make_law(p.law, in);
    if (law.is_impact_map())
      throw parameter_error("law", fmt::format("law = \"{}\": an impact map has no force; choose a "
                                               "force law",
                                               p.law));
    law.force(0.0, p.contact_velocity);  // the impact velocity of the hysteresis family
    return law;
  }

  double mass() const { return mass_; }
  const thread_geometry& geometry() const { return g_; }
  double t_end() const {
    return std::isnan(p_.duration) ? p_.turns * p_.thread.pitch / p_.feed : p_.duration;
  }
  const Vector3d& r_cm() const { return r_cm_; }

  // Gripper pose and velocity on the equilibrium path (5.1), its spin set back by the angle the
  // drive has slipped.
  // With a force feed the gripper does not feed: follow_axially() places it along its axis.
  void gripper(double t, double slip, double slip_rate, Vector3d& x_e, Matrix3d& R_e, Vector3d& v_e,
               Vector3d& w_e) const {
    const double feed = p_.feed_mode == feed_kind::force ? 0.0 : p_.feed;
    x_e = x_e0_ + Vector3d(0, 0, -feed * t);
    R_e = R_tilt_ *
          Eigen::AngleAxisd(theta_z0_ + spin_rate_ * t + slip, Vector3d::UnitZ()).toRotationMatrix();
    v_e = Vector3d(0, 0, -feed);
    w_e = R_tilt_ * Vector3d(0, 0, spin_rate_ + slip_rate);
  }

  // Force and guarded feeds: moves x_e along the gripper's axis so that the grasp's axial force
  // on the bolt, the z row of K Delta (k_z Delta_z + k_z_theta_z Delta_theta_z), is -axial_force;
  // a guarded feed only where the path would push harder. Returns whether the force is held: the
  // gripper then follows the bolt along its axis, and the axial damping is off (the controller
  // holds the force itself).
  bool follow_axially(const Vector3d& x, const Matrix3d& R, const Matrix3d& R_e, double twist,
                      Vector3d& x_e) const {
    if (p_.feed_mode == feed_kind::path) return false;
    const auto& g = p_.grasp;
    const Vector3d rc(0, 0, g.z_c);
    const double target = (-p_.axial_force - g.k_z_theta_z * twist) / g.k_z;
    const double now = (R_e.transpose() * (x_e + R_e * rc - x - R * rc)).z();
    if (p_.feed_mode == feed_kind::guarded && now >= target) return false;  // the path pushes less
    x_e += (target - now) * R_e.col(2);
    return true;
  }

  // The spin drive slips once the twist it has wound into the grasp exceeds
  // drive_torque_limit / k_theta_z: a regularized clutch that returns the excess within
  // slip_time, so the wind-up never reaches the half turn where log(R_e R^T) wraps.
  double slip_rate(double twist) const {
    const double excess = std::abs(twist) - max_twist_;
    return excess > 0 ? -std::copysign(excess, twist) / slip_time : 0.0;
  }
  static constexpr double slip_time = 1e-4;  // [s]

  void initial_state(double* y) const {
    Vector3d x_e, v_e, w_e;
    Matrix3d R_e;
    gripper(0, 0, 0, x_e, R_e, v_e, w_e);
    const Vector3d xc = x_e + R_e * r_cm_;
    const Eigen::Quaterniond q(R_e);
    const Vector3d vc = v_e + w_e.cross(R_e * r_cm_);
    const Vector3d wb = R_e.transpose() * w_e;
    const double v[n_state] = {xc.x(), xc.y(), xc.z(), q.w(), q.x(), q.y(), q.z(),
                               vc.x(), vc.y(), vc.z(), wb.x(), wb.y(), wb.z(), 0.0, 0.0, 0.0};
    std::copy(v, v + n_state, y);
  }

  double theta_z0() const { return theta_z0_; }

  // The contacts depend on the pose alone (x_cm, q): `contacts`, when given, were found at this
  // pose and are reused.
  evaluation_terms terms(double t, const bolt_state& s, bool keep_points, bool energy,
                         const std::vector<contact_point>* contacts = nullptr) const {
    evaluation_terms out;
    const Matrix3d R = s.q.toRotationMatrix();
    const Vector3d x = s.x_cm - R * r_cm_;
    const Vector3d w = R * s.w_body;
    // grasp
    Vector3d x_e, v_e, w_e;
    Matrix3d R_e;
    gripper(t, s.slip, 0, x_e, R_e, v_e, w_e);
    const double twist = (R_e.transpose() * rotation_log(R_e * R.transpose())).z();
    out.slip_rate = slip_rate(twist);
    gripper(t, s.slip, out.slip_rate, x_e, R_e, v_e, w_e);
    const bool force_held = follow_axially(x, R, R_e, twist, x_e);
    const wrench spring = grasp_spring_wrench(p_.grasp, x, R, x_e, R_e);
    // the clutch dissipates the twist energy it lets go
    out.dissipation -= (p_.grasp.k_theta_z * twist) * out.slip_rate;
    const Vector3d rc = R * Vector3d(0, 0, p_.grasp.z_c);
    const Vector3d v_tip = s.v_cm + w.cross(x - s.x_cm);
    vec6 dv;
    dv.head<3>() = R_e.transpose() * ((v_e + w_e.cross(R_e * Vector3d(0, 0, p_.grasp.z_c))) -
                                      (v_tip + w.cross(rc)));
    dv.tail<3>() = R_e.transpose() * (w_e - w);
    if (force_held) dv[2] = 0;
    vec6 wd;
    for (int i = 0; i < 6; ++i) wd[i] = c_diag_[i] * dv[i];
    const Vector3d fd = R_e * wd.head<3>();
    const Vector3d td = rc.cross(fd) + R_e * wd.tail<3>();
    out.grasp_force = spring.force + fd;
    out.grasp_torque = spring.torque + td;
    out.dissipation += dv.dot(wd);
    out.force += out.grasp_force;
    out.torque_cm += out.grasp_torque + (x - s.x_cm).cross(out.grasp_force);
    out.force.z() -= mass_ * p_.gravity;  // at the centre of mass: no torque
    // contacts
    std::vector<contact_point> found;
    if (!contacts) {
      found = contacts_at(s, keep_points);
      contacts = &found;
    }
    const std::vector<contact_point>& cps = *contacts;
    patch_force_.assign(cps.empty() ? 0 : cps.back().patch + 1, 0.0);
    out.contacts = static_cast<int>(patch_force_.size());
    const contact::regularized_coulomb_params fr{p_.mu, p_.v_t};
    for (const contact_point& c : cps) {
      const Vector3d r = c.point - s.x_cm;
      const Vector3d vp = s.v_cm + w.cross(r);
      const double gn = c.depth_gradient_norm;
      const double rate = -c.normal.dot(vp) * gn;
      const double fe = law_.peek_force(c.depth, 0.0) * c.weight;
      const double fn = law_.peek_force(c.depth, rate) * gn * c.weight;
      out.dissipation += (fn - fe * gn) * rate / gn;
      Vector3d f = fn * c.normal;
      const Vector3d vt = vp - c.normal.dot(vp) * c.normal;
      const double speed = vt.norm();
      if (p_.mu > 0 && speed > 0) {
        const double mu = contact::regularized_friction_coefficient(fr, speed);
        f -= mu * fn * vt / speed;
        out.dissipation += mu * fn * speed;
      }
      out.force += f;
      out.torque_cm += r.cross(f);
      patch_force_[c.patch] += fn;
      if (energy) out.contact_energy += c.weight * law_energy(c.depth);
    }
    for (double f : patch_force_) out.max_normal = std::max(out.max_normal, f);
    if (keep_points) out.points = contacts == &found ? std::move(found) : cps;
    return out;
  }

  // The contacts at the state; `classify` for the cross-threading test.
  std::vector<contact_point> contacts_at(const bolt_state& s, bool classify) const {
    const Matrix3d R = s.q.toRotationMatrix();
    // the bolt's turn about z, theta_z0 + spin: the reference that unwraps each contact's turn
    // (helical_offset). With `spin` alone, a start whose theta_z0 is near pi put contacts on either
    // side of the bolt on different branches, a pitch apart: cross-threaded from the first touch.
    return detector{g_, grid_, Vector3d(s.x_cm - R * r_cm_), R, classify}.find(theta_z0_ + s.spin,
                                                                               contact_length_);
  }

  // Phi(delta) = integral of F(d, 0) over [0, delta], 8-point Gauss-Legendre.
  double law_energy(double delta) const {
    static const double xg[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                 0.9602898564975363};
    static const double wg[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                 0.1012285362903763};
    double sum = 0;
    for (int i = 0; i < 4; ++i)
      for (double sg : {-1.0, 1.0}) sum += wg[i] * law_.peek_force(0.5 * delta * (1 + sg * xg[i]), 0.0);
    return 0.5 * delta * sum;
  }

  // `seen`: where to leave the contact measures of this evaluation (the step monitor's).
  void derivative(double t, const double* y, double* yd,
                  const std::vector<contact_point>* contacts = nullptr,
                  contact_measures* seen = nullptr) const {
    const bolt_state s = unpack(y);
    const evaluation_terms e = terms(t, s, false, false, contacts);
    if (seen) *seen = {t, e.max_normal, e.contacts};
    const Matrix3d R = s.q.toRotationMatrix();
    const Vector3d tau_b = R.transpose() * e.torque_cm;
    const Vector3d& wb = s.w_body;
    const Vector3d Iw = inertia_.cwiseProduct(wb);
    const Vector3d wdot = (tau_b - wb.cross(Iw)).cwiseQuotient(inertia_);  // (4.10)
    const Vector3d a = e.force / mass_;                                   // (4.11)
    // q' = q (0, w_b) / 2 (raw, unnormalised state)
    const double qw = y[3], qx = y[4], qy = y[5], qz = y[6];
    yd[0] = s.v_cm.x();
    yd[1] = s.v_cm.y();
    yd[2] = s.v_cm.z();
    yd[3] = 0.5 * (-qx * wb.x() - qy * wb.y() - qz * wb.z());
    yd[4] = 0.5 * (qw * wb.x() + qy * wb.z() - qz * wb.y());
    yd[5] = 0.5 * (qw * wb.y() + qz * wb.x() - qx * wb.z());
    yd[6] = 0.5 * (qw * wb.z() + qx * wb.y() - qy * wb.x());
    yd[7] = a.x();
    yd[8] = a.y();
    yd[9] = a.z();
    yd[10] = wdot.x();
    yd[11] = wdot.y();
    yd[12] = wdot.z();
    yd[13] = e.dissipation;
    yd[14] = wb.z();
    yd[15] = e.slip_rate;
  }

  double kinetic(const bolt_state& s) const {
    return 0.5 * mass_ * s.v_cm.squaredNorm() + 0.5 * s.w_body.dot(inertia_.cwiseProduct(s.w_body));
  }
  double grasp_energy(double t, const bolt_state& s) const {
    Vector3d x_e, v_e, w_e;
    Matrix3d R_e;
    gripper(t, s.slip, 0, x_e, R_e, v_e, w_e);
    const Matrix3d R = s.q.toRotationMatrix();
    const Vector3d x = s.x_cm - R * r_cm_;
    follow_axially(x, R, R_e, (R_e.transpose() * rotation_log(R_e * R.transpose())).z(), x_e);
    return grasp_spring_energy(p_.grasp, x, R, x_e, R_e);
  }

  mutable long rhs_count = 0;

 private:
  insertion_params p_;
  thread_geometry g_;
  contact::contact_law law_;
  double mass_;
  Vector3d inertia_;
  Vector3d r_cm_;
  double c_diag_[6];
  Vector3d x_e0_;
  double theta_z0_;
  Matrix3d R_tilt_;
  double spin_rate_;
  double max_twist_ = p_.grasp.k_theta_z > 0 ? drive_torque_limit(p_) / p_.grasp.k_theta_z
                                              : std::numeric_limits<double>::infinity();
  double contact_length_ = std::isnan(p_.contact_length) ? default_contact_length(p_.thread)
                                                          : p_.contact_length;
  mutable std::vector<double> patch_force_;  // normal force per contact patch [N], scratch
  probe_points grid_ = detector::make_grid(g_, p_.points_per_turn);
};

struct cvode_data {
  const insertion_system* sys;
  std::string error;
  void* mem = nullptr;  // CVODE's memory, for the error weights in the Jacobian
  contact_measures last;  // of the latest right-hand side: the converged Newton iterate of a step
};

int rhs(sunrealtype t, N_Vector y, N_Vector yd, void* data) {
  auto* d = static_cast<cvode_data*>(data);
  ++d->sys->rhs_count;
  try {
    d->sys->derivative(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yd), nullptr, &d->last);
  } catch (const std::exception& e) {
    d->error = e.what();
    return -1;
  }
  for (int i = 0; i < n_state; ++i)
    if (!std::isfinite(NV_Ith_S(yd, i))) return 1;  // recoverable: CVODE cuts the step
  return 0;
}

// Jacobian by forward differences, as CVODE's own, except that
// - the columns of the states the contacts do not depend on (velocities, spin, slip) reuse the
//   contact search at y: 8 of the 16 columns cost a force evaluation instead of a search;
// - the dissipated energy's column is zero (no derivative depends on it);
// - a pose column's increment is at least 1e-2 of its error scale 1/ewt (about 10 nm and
//   1e-6 rad), not sqrt(eps) |y| (1e-10 m): the adaptive quadrature makes the contact force
//   continuous only to its tolerance (1e-6 of the peak depth), and a difference over 1e-10 m
//   sees that noise. Measured on 24 starts of the success study: 44 % fewer force evaluations,
//   Newton convergence failures 21 275 -> 8 567, the same outcomes (increments of 1e-4, 1e-3,
//   3e-2 and 1e-1 of the scale: 15, 40, 40 and 24 % fewer).
constexpr int n_pose = 7;       // x_cm, q: the states the contact search depends on
constexpr int i_dissipated = 13;  // the state no derivative depends on
constexpr double pose_increment = 1e-2;  // of the error scale 1/ewt

int jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* data, N_Vector ewt_v,
             N_Vector y_shift, N_Vector f_shift) {
  auto* d = static_cast<cvode_data*>(data);
  try {
    CVodeGetErrWeights(d->mem, ewt_v);
    const double* ewt = N_VGetArrayPointer(ewt_v);
    double* yv = N_VGetArrayPointer(y);
    double* ys = N_VGetArrayPointer(y_shift);
    const double* f0 = N_VGetArrayPointer(fy);
    double* f1 = N_VGetArrayPointer(f_shift);
    const double uround = std::numeric_limits<double>::epsilon();
    const double srur = std::sqrt(uround);
    double h = 0;
    CVodeGetCurrentStep(d->mem, &h);
    const double fnorm = N_VWrmsNorm(fy, ewt_v);
    const double min_inc = fnorm != 0 ? 1000 * std::abs(h) * uround * n_state * fnorm : 1.0;
    // velocity columns reuse the contacts of the unshifted pose; pose columns search anew (reusing
    // the quadrature nodes there took 8 % more steps: the node set is not the pose's)
    const auto contacts = d->sys->contacts_at(unpack(yv), false);
    for (int j = 0; j < n_state; ++j) {
      double* col = SUNDenseMatrix_Column(J, j);
      if (j == i_dissipated) {
        std::fill(col, col + n_state, 0.0);
        continue;
      }
      std::copy(yv, yv + n_state, ys);
      const double inc = std::max({srur * std::abs(yv[j]), min_inc / ewt[j],
                                   j < n_pose ? pose_increment / ewt[j] : 0.0});
      ys[j] += inc;
      const double step = ys[j] - yv[j];
      if (j < n_pose) {
        ++d->sys->rhs_count;
        d->sys->derivative(t, ys, f1);
      } else {
        d->sys->derivative(t, ys, f1, &contacts);
      }
      for (int i = 0; i < n_state; ++i) {
        col[i] = (f1[i] - f0[i]) / step;
        if (!std::isfinite(col[i])) return 1;  // recoverable: CVODE cuts the step
      }
    }
  } catch (const std::exception& e) {
    d->error = e.what();
    return -1;
  }
  return 0;
}

void silent_handler(int, const char*, const char*, char*, void*) {}

struct cvode_handle {
  SUNContext ctx = nullptr;
  N_Vector y = nullptr, atol = nullptr, dky = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver ls = nullptr;
  void* mem = nullptr;
  ~cvode_handle() {
    if (mem) CVodeFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (A) SUNMatDestroy(A);
    if (y) N_VDestroy(y);
    if (atol) N_VDestroy(atol);
    if (dky) N_VDestroy(dky);
    if (ctx) SUNContext_Free(&ctx);
  }
};

// One start of a bolt: the CVODE memory, the measures of the bolt's pose against the nut and the
// result filled while stepping. Not copyable: CVODE holds the address of data_.
class insertion_run {
 public:
  insertion_run(const insertion_params& params, const insertion_system& sys)
      : params_(params),
        sys_(sys),
        p_(params.thread.pitch),
        t_end_(sys.t_end()),
        data_{&sys, {}, nullptr, {}},
        plain_(params.thread.plain_bore),
        tilt_ok_(plain_ ? params.tip_angle : engaged_tilt_limit(params.thread)),
        full_thread_(plain_ ? 0.0 : p_ * (0.5 + params.thread.runup_angle / two_pi)) {
    setup_cvode();
    z0_tip_ = tip_of(unpack(N_VGetArrayPointer(h_.y))).z();
  }
  insertion_run(const insertion_run&) = delete;
  insertion_run& operator=(const insertion_run&) = delete;

  // Steps CVODE to t_end, or until the start is decided (with stop_when_decided: engaged or
  // tipped; or stalled for stall_abort_turns), fails or takes more than max_steps steps.
  void integrate() {
    if (n_hist_ > 0) {
      record(0.0, N_VGetArrayPointer(h_.y));
      next_sample_ = 1;
    }
    // the start itself: the stall window's first point, and a tip started inside the nut may be
    // engaged at t = 0
    bool decided = watch_step();
    while (t_ < t_end_ && !decided) {
      const int flag = CVode(h_.mem, t_end_, h_.y, &t_, CV_ONE_STEP);
      if (flag < 0) {
        res_.outcome = insertion_outcome::inconclusive;
        res_.message =
            data_.error.empty() ? std::string(CVodeGetReturnFlagName(flag)) : data_.error;
        break;
      }
      record_history_through(t_);
      long taken = 0;
      CVodeGetNumSteps(h_.mem, &taken);
      if (taken >= params_.max_steps) {
        res_.message = fmt::format("more than max_steps = {} integrator steps by t = {:.4g} s",
                                   params_.max_steps, t_);
        break;
      }
      decided = watch_step();
    }
    long steps = 0;
    CVodeGetNumSteps(h_.mem, &steps);
    res_.steps = steps;
    res_.rhs_evaluations = sys_.rhs_count;
    res_.final_time = t_;
  }

  // The outcome from the state where the integration stopped.
  insertion_result judge() {
    const bolt_state s = unpack(N_VGetArrayPointer(h_.y));
    const evaluation_terms e = sys_.terms(t_, s, true, false);
    const double depth = -tip_of(s).z() - full_thread_;
    res_.final_tilt = tilt_of(s);
    res_.phase_error = plain_ ? std::numeric_limits<double>::quiet_NaN() : phase_of(s);
    res_.axial_advance = z0_tip_ - tip_of(s).z();
    res_.engagement_margin = depth - params_.engage_depth;
    res_.energy_dissipated = s.dissipated;
    res_.drive_slip = std::abs(s.slip);
    res_.cross_threaded = cross_threaded(e.points, depth);
    res_.final_advance_ratio = advance_ratio(tip_of(s).z());
    if (!res_.message.empty()) {
      res_.outcome = insertion_outcome::inconclusive;
    } else if (res_.max_tilt > params_.tip_angle) {
      res_.outcome = insertion_outcome::tipped;
    } else if (res_.cross_threaded) {
      res_.outcome = insertion_outcome::cross_threaded;
    } else if (depth >= params_.engage_depth && res_.final_tilt <= tilt_ok_ &&
               (plain_ || std::abs(res_.phase_error) < 0.5 * pi)) {
      res_.outcome = insertion_outcome::engaged;
    } else if (depth + full_thread_ < 0.25 * p_) {
      res_.outcome = insertion_outcome::no_start;
    } else if (res_.final_advance_ratio < stall_ratio && e.max_normal > 0) {
      res_.outcome = insertion_outcome::jammed;  // stalled against the nut
    } else {
      // neither engaged nor stalled: still threading (or still moving) when the run ended
      res_.outcome = insertion_outcome::inconclusive;
      res_.message = fmt::format(
          "not engaged but not stalled when the run ended: the tip advanced {:.3g} of the feed "
          "over the last {:.3g} s",
          res_.final_advance_ratio, stall_window_);
    }
    res_.success = res_.outcome == insertion_outcome::engaged;
    // An engaged start that stopped early would have gone on with the gripper: its margin counts
    // the feed's travel left in the run, so the margin grows the earlier a start engages and is
    // continuous across success (a start engaging just at t_end has a margin just above 0, one
    // just short of it just below 0).
    if (res_.success && params_.stop_when_decided) res_.engagement_margin += params_.feed * (t_end_ - t_);
    if (res_.success && std::isnan(res_.time_to_engage)) res_.time_to_engage = t_;
    if (!res_.success) res_.time_to_engage = std::numeric_limits<double>::quiet_NaN();
    return std::move(res_);
  }

 private:
  // The largest tilt at which a start counts as engaged [rad]: from the allowance on the flanks
  // over the major radius, at least 1 degree.
  static double engaged_tilt_limit(const thread_params& tp) {
    return std::max(pi / 180, 2 * std::atan(tp.allowance * std::tan(tp.flank_angle) /
                                            (0.5 * tp.major_diameter)));
  }

  // BDF with a dense linear solver, from the bolt moving with the gripper at t = 0; a step is at
  // most half the time between two probe points of a turn (points_per_turn).
  void setup_cvode() {
    if (SUNContext_Create(nullptr, &h_.ctx) != 0)
      throw std::runtime_error("SUNContext_Create failed");
    h_.y = N_VNew_Serial(n_state, h_.ctx);
    h_.atol = N_VNew_Serial(n_state, h_.ctx);
    h_.dky = N_VNew_Serial(n_state, h_.ctx);
    sys_.initial_state(N_VGetArrayPointer(h_.y));
    const double rtol = params_.relative_tolerance;
    const double pos_tol = rtol * p_;
    const double speed = params_.feed > 0 ? params_.feed : p_ / t_end_;
    double* at = N_VGetArrayPointer(h_.atol);
    for (int i = 0; i < 3; ++i) at[i] = pos_tol;
    for (int i = 3; i < 7; ++i) at[i] = 1e-7;
    for (int i = 7; i < 10; ++i) at[i] = 1e3 * rtol * speed;
    for (int i = 10; i < 13; ++i) at[i] = 1e3 * rtol * speed / p_;
    // The dissipated energy is an output no derivative depends on: integrated on the steps the
    // motion needs, never limiting them (it set a third of the steps at rtol; without it 14 %
    // fewer force evaluations). The energy-balance test bounds its error.
    at[i_dissipated] = 1.0;  // [J]: a start dissipates mJ, a slipping clutch a few J
    at[14] = 1e-6;
    at[15] = 1e-6;
    h_.mem = CVodeCreate(CV_BDF, h_.ctx);
    h_.A = SUNDenseMatrix(n_state, n_state, h_.ctx);
    h_.ls = SUNLinSol_Dense(h_.y, h_.A, h_.ctx);
    int flag = CVodeInit(h_.mem, rhs, 0.0, h_.y);
    if (flag == CV_SUCCESS) flag = CVodeSetUserData(h_.mem, &data_);
    if (flag == CV_SUCCESS) flag = CVodeSVtolerances(h_.mem, rtol, h_.atol);
    if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(h_.mem, h_.ls, h_.A);
    if (flag == CV_SUCCESS) flag = CVodeSetJacFn(h_.mem, jacobian);
    // BDF orders 3-5 are not A-stable: at rtol 1e-4 they let the lightly damped tilt mode of an
    // engaged bolt grow (steady screw motion broke into oscillation after three turns); BDF2 is
    // A-stable and costs no more steps here.
    if (flag == CV_SUCCESS) flag = CVodeSetMaxOrd(h_.mem, 2);
    // The Newton matrix is formed at every step and the Jacobian is at most 20 steps old (CVODE:
    // every 20 steps and 51). A Jacobian kept from a contact that has since opened makes the
    // Newton matrix stiff where the motion is free: the updates shrink, the convergence test
    // (which also carries the last rate across steps) passes with the residual unsolved, and the
    // accepted steps no longer follow the equations. Seen as bolts thrown out of the nut without
    // any contact (axial grasp force 4-63 N, contact forces to 16 kN, tilts to 15 deg: three false
    // tip-outs in the 2000-start study). On 24 such starts the bound removes every one; on 24
    // starts of the success study it costs 4-6 % more time (stricter Newton tests did not remove
    // them: convergence coefficients 0.05, 0.02 and 0.01 left 1-2 of 8, 0.01 tipped two).
    if (flag == CV_SUCCESS) flag = CVodeSetLSetupFrequency(h_.mem, 1);
    if (flag == CV_SUCCESS) flag = CVodeSetJacEvalFrequency(h_.mem, 20);
    data_.mem = h_.mem;
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(h_.mem, params_.max_steps);
    if (flag == CV_SUCCESS)
      flag = CVodeSetMaxStep(h_.mem, (p_ / speed) / (2.0 * params_.points_per_turn));
    if (flag == CV_SUCCESS) flag = CVodeSetStopTime(h_.mem, t_end_);
    if (flag == CV_SUCCESS) flag = CVodeSetErrHandlerFn(h_.mem, silent_handler, nullptr);
    if (flag != CV_SUCCESS) throw std::runtime_error("CVODE setup failed");
  }

  static double tilt_of(const bolt_state& s) {
    return std::acos(std::clamp(s.q.toRotationMatrix()(2, 2), -1.0, 1.0));
  }
  Vector3d tip_of(const bolt_state& s) const {
    return Vector3d(s.x_cm - s.q.toRotationMatrix() * sys_.r_cm());
  }
  double phase_of(const bolt_state& s) const {  // helical phase error, 0 = meshing
    const double delta = tip_of(s).z() - p_ * (sys_.theta_z0() + s.spin) / two_pi;
    return wrap_pi(two_pi * (delta - 0.5 * p_) / p_);
  }
  // Thread contacts more than half a pitch apart along the helix, with the tip in the nut (never
  // in a plain bore: no thread to cross).
  bool cross_threaded(const std::vector<contact_point>& cps, double depth) const {
    if (plain_) return false;
    double lo = 1e300, hi = -1e300;
    for (const auto& c : cps)
      if (c.thread) {
        lo = std::min(lo, c.helical_offset);
        hi = std::max(hi, c.helical_offset);
      }
    return depth >= -0.5 * p_ && hi - lo > 0.5 * p_;
  }

  void record(double t, const double* y) {
    const bolt_state s = unpack(y);
    const evaluation_terms e = sys_.terms(t, s, false, true);
    insertion_sample smp;
    smp.t = t;
    smp.tip_z = tip_of(s).z();
    smp.tilt = tilt_of(s);
    smp.phase_lag = phase_of(s);
    smp.axial_force = e.grasp_force.z();
    smp.torque_z = e.grasp_torque.z();
    smp.kinetic = sys_.kinetic(s);
    smp.grasp_energy = sys_.grasp_energy(t, s);
    smp.contact_energy = e.contact_energy;
    smp.dissipated = s.dissipated;
    res_.history.push_back(smp);
  }
  // History samples (evenly spaced over [0, t_end]) up to the accepted step t, on CVODE's dense
  // output.
  void record_history_through(double t) {
    while (n_hist_ > 1 && next_sample_ < n_hist_) {
      const double ts = t_end_ * next_sample_ / (n_hist_ - 1);
      if (ts > t) break;
      CVodeGetDky(h_.mem, ts, 0, h_.dky);
      record(ts, N_VGetArrayPointer(h_.dky));
      ++next_sample_;
    }
  }

  // The tip's advance along -z over the trailing stall window (the whole run if shorter) as a
  // fraction of the gripper's feed over it; NaN without feed.
  double advance_ratio(double tip_z) const {
    if (!(params_.feed > 0)) return std::numeric_limits<double>::quiet_NaN();
    const double t0 = std::max(0.0, t_ - stall_window_);
    // the tip's height at t0, linear between the accepted steps around it
    std::size_t k = 0;
    while (k + 1 < trail_.size() && trail_[k + 1].first <= t0) ++k;
    double z0 = trail_[k].second;
    if (k + 1 < trail_.size() && trail_[k + 1].first > trail_[k].first) {
      const double w = (t0 - trail_[k].first) / (trail_[k + 1].first - trail_[k].first);
      z0 += std::clamp(w, 0.0, 1.0) * (trail_[k + 1].second - trail_[k].second);
    }
    const double span = t_ - t0;
    return span > 0 ? (z0 - tip_z) / (params_.feed * span) : std::numeric_limits<double>::quiet_NaN();
  }

  // The maxima and the engagement at the accepted step; true when the start is decided (with
  // stop_when_decided: tipped or engaged) or the drive gives up on a stall.
  //
  // The contact measures at the accepted step come from the step's last right-hand side, the
  // converged Newton iterate: within the convergence test of the accepted state (a tenth of the
  // error tolerance), and a contact search per step cheaper (a quarter of all searches). The
  // grasp's terms need no search and are exact; cross-threading, judged rarely, searches anew.
  bool watch_step() {
    const bolt_state s = unpack(N_VGetArrayPointer(h_.y));
    static const std::vector<contact_point> none;
    const evaluation_terms grasp = sys_.terms(t_, s, false, false, &none);
    contact_measures c = data_.last;
    if (!(c.t == t_)) {  // no Newton iterate at this time (the start): search here
      const evaluation_terms e = sys_.terms(t_, s, false, false);
      c = {t_, e.max_normal, e.contacts};
    }
    const double tilt = tilt_of(s);
    const double depth = -tip_of(s).z() - full_thread_;
    trail_.emplace_back(t_, tip_of(s).z());
    while (trail_.size() > 2 && trail_[1].first <= t_ - stall_window_) trail_.pop_front();
    res_.max_tilt = std::max(res_.max_tilt, tilt);
    res_.max_contacts = std::max(res_.max_contacts, c.contacts);
    res_.max_contact_force = std::max(res_.max_contact_force, c.max_normal);
    res_.max_axial_force = std::max(res_.max_axial_force, std::abs(grasp.grasp_force.z()));
    res_.max_torque_z = std::max(res_.max_torque_z, std::abs(grasp.grasp_torque.z()));
    const bool engaged_now = depth >= params_.engage_depth && tilt <= tilt_ok_ &&
                             (plain_ || std::abs(phase_of(s)) < 0.5 * pi) &&
                             !cross_threaded(sys_.terms(t_, s, true, false).points, depth);
    if (engaged_now && std::isnan(res_.time_to_engage)) res_.time_to_engage = t_;
    // A drive that gives up once a stall has lasted stall_abort_turns (the stall began about a
    // window before it was first seen): the start ends jammed (judge()). Some starts stall for a
    // turn or more and then go on (the axial grasp force grows with the feed until it pushes the
    // bolt past the wedged flanks), so this is a choice of the process, not a shortcut.
    const bool stalled_now = t_ >= stall_window_ && c.max_normal > 0 &&
                             advance_ratio(tip_of(s).z()) < stall_ratio;
    if (!stalled_now) stalled_since_ = std::numeric_limits<double>::quiet_NaN();
    else if (std::isnan(stalled_since_)) stalled_since_ = t_;
    const bool aborted =
        stalled_now && t_ - stalled_since_ + stall_window_ >= params_.stall_abort_turns * p_ / params_.feed;
    return aborted || (params_.stop_when_decided && (tilt > params_.tip_angle || engaged_now));
  }

  const insertion_params& params_;
  const insertion_system& sys_;
  const double p_;      // pitch [m]
  const double t_end_;  // [s]
  cvode_handle h_;
  cvode_data data_;
  const bool plain_;  // plain peg and bore: no phase, no cross-threading, depth from the top face
  // largest final tilt of an engaged start; in a plain bore the bore itself bounds the tilt
  const double tilt_ok_;
  // engaged depth: the tip's depth below the first full nut thread (notes §8)
  const double full_thread_;
  double z0_tip_ = 0;
  // Stall (outcome jammed): over the last half turn of drive the tip advances less than
  // stall_ratio of the feed while contacts carry load. A threading bolt advances a pitch per turn
  // of its own (ratio about 1, less only as far as the drive slips); a stalled one only by the
  // contacts' compliance under the axial grasp force the feed winds up, k_z p/2 over the window
  // (1.25 N at the defaults: a Hertz deflection below 1 um, a ratio of 1e-3).
  static constexpr double stall_turns = 0.5;
  static constexpr double stall_ratio = 0.1;
  const double stall_window_ =
      params_.feed > 0 ? stall_turns * p_ / params_.feed : std::numeric_limits<double>::infinity();
  std::deque<std::pair<double, double>> trail_;  // (t, tip z) at accepted steps in the window
  double stalled_since_ = std::numeric_limits<double>::quiet_NaN();  // start of the current stall
  const int n_hist_ = params_.history_points;
  int next_sample_ = 0;
  double t_ = 0;
  insertion_result res_;
};

}  // namespace

insertion_result simulate_insertion(const insertion_params& params) {
  params.validate();
  const insertion_system sys(params);
  insertion_run run(params, sys);
  run.integrate();
  return run.judge();
}

}  // namespace contactuq::threaded
