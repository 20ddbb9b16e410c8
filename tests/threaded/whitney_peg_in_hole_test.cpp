// The thread-depth -> 0 limit of the threaded-insertion geometry: a plain peg in a plain bore
// (thread_params::plain_bore), checked against Whitney's peg-in-hole results, D. E. Whitney,
// "Quasi-static assembly of compliantly supported rigid parts", ASME J. Dyn. Sys. Meas. Control
// 104(1):65-77, 1982, as transcribed in ../shared/seeds/004-notes.md §7 ("Whitney peg-in-hole")
// and §8 item 9. Notation: bore diameter D, peg diameter d, r = d/2, clearance ratio
// c = (D - d)/D, tilt theta, friction coefficient mu.
//
// The contacts are the model's (find_contacts: the same probe curves, depths and normals as a
// threaded start); the statics on them are planar, in the plane of the tilt (e1 across the bore
// towards the wall the tip corner touches, e3 up the bore axis), with moments about the tip
// centre, counterclockwise from e1 to e3.

#include <Eigen/Geometry>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/threaded/threaded_insertion.hpp"

using namespace contactuq;
using namespace contactuq::threaded;
using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

namespace {

constexpr double pi = std::numbers::pi;
constexpr int points_per_turn = 32;  // the model's default

// A plain bore of diameter D = 8 mm and a peg of diameter d = D (1 - c).
thread_params plain_bore(double c) {
  thread_params t;  // M8x1.25 lengths: pitch (the probe helices' lead) 1.25 mm, H = 6.4 mm
  t.plain_bore = true;
  t.major_diameter = 8e-3;
  t.allowance = c * t.major_diameter;
  return t;
}

// Exact 2-D two-point contact depth along the peg side from the tip corner (notes §7):
// l = (D - d cos(theta)) / sin(theta).
double two_point_depth(double D, double d, double theta) {
  return (D - d * std::cos(theta)) / std::sin(theta);
}

// A peg tilted by theta in the plane at azimuth psi: its axis leans towards -e1 going up, its
// tip corner on the +e1 side touches the bore wall and its -e1 side touches the bore's top edge
// (the lip), both by construction of the exact 2-D geometry (notes §7). `wall` and `lip` move it
// into the wall and past the lip by those penetrations (negative: clear of them).
struct two_point_pose {
  double theta, r, D;
  Vector3d e1, e2, e3;
  Vector3d x;  // tip centre
  Matrix3d R;
  double l;    // two-point depth of the unmoved pose
  Vector3d shift;  // of the tip centre from the unmoved pose
  two_point_pose(const thread_geometry& g, double theta_, double psi, double spin, double wall,
                 double lip)
      : theta(theta_),
        r(g.bolt_minor_radius()),
        D(g.params().major_diameter),
        e1(std::cos(psi), std::sin(psi), 0),
        e2(-std::sin(psi), std::cos(psi), 0),
        e3(0, 0, 1),
        l(two_point_depth(D, 2 * r, theta)) {
    // the axis a = cos(theta) e3 - sin(theta) e1; u = cos(theta) e1 + sin(theta) e3 across it
    R = Eigen::AngleAxisd(-theta, e2).toRotationMatrix() *
        Eigen::AngleAxisd(spin, Vector3d::UnitZ()).toRotationMatrix();
    x = (0.5 * D - r * std::cos(theta)) * e1 + (r * std::sin(theta) - l * std::cos(theta)) * e3;
    // a move m e1 + n e3 goes into the wall by m and past the lip by -(m cos + n sin)
    const double n = -(lip + wall * std::cos(theta)) / std::sin(theta);
    shift = wall * e1 + n * e3;
    x += shift;
  }
  Vector3d axis() const { return R.col(2); }
  Vector3d across() const { return std::cos(theta) * e1 + std::sin(theta) * e3; }
  Vector3d tip_corner() const { return x + r * across(); }
  Vector3d lip() const { return -0.5 * D * e1; }
};

// The contacts near the tip corner and near the lip: their force-weighted (weight x depth, as a
// linear law) centroid and mean normal.
struct contact_cluster {
  int count = 0;
  double weight = 0;
  Vector3d point = Vector3d::Zero();   // world
  Vector3d normal = Vector3d::Zero();  // world, unit
  double deepest = 0;
};

struct two_clusters {
  contact_cluster tip, lip;
  int stray = 0;  // contacts near neither
};

two_clusters cluster(const std::vector<contact_point>& cps, const Vector3d& tip_corner,
                     const Vector3d& lip_point, double radius) {
  two_clusters out;
  for (const auto& c : cps) {
    const double to_tip = (c.point - tip_corner).norm(), to_lip = (c.point - lip_point).norm();
    if (std::min(to_tip, to_lip) > radius) {
      ++out.stray;
      continue;
    }
    contact_cluster& k = to_tip < to_lip ? out.tip : out.lip;
    const double w = c.weight * c.depth;
    ++k.count;
    k.weight += w;
    k.point += w * c.point;
    k.normal += w * c.normal;
    k.deepest = std::max(k.deepest, c.depth);
  }
  for (contact_cluster* k : {&out.tip, &out.lip})
    if (k->weight > 0) {
      k->point /= k->weight;
      k->normal.normalize();
    }
  return out;
}

// A contact in the tilt plane: point relative to the tip centre and unit normal (force on the
// peg), components along e1 and e3.
struct planar_contact {
  Vector2d point, normal;
};

planar_contact in_plane(const contact_cluster& k, const two_point_pose& pose) {
  const Vector3d rel = k.point - pose.x;
  planar_contact pc{{rel.dot(pose.e1), rel.dot(pose.e3)}, {k.normal.dot(pose.e1), k.normal.dot(pose.e3)}};
  pc.normal.normalize();
  return pc;
}

double cross2(const Vector2d& a, const Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

// The edges of the contacts' friction cones as planar wrenches (f_1, f_3, moment about the tip
// centre / r): n +- mu t at each contact.
std::vector<Vector3d> cone_edges(const std::vector<planar_contact>& contacts, double mu, double r) {
  std::vector<Vector3d> out;
  for (const auto& c : contacts) {
    const Vector2d t(-c.normal.y(), c.normal.x());
    for (double s : {-1.0, 1.0}) {
      const Vector2d f = c.normal + s * mu * t;
      out.emplace_back(f.x(), f.y(), cross2(c.point, f) / r);
    }
  }
  return out;
}

// Non-negative coefficients of the cone edges that sum to `target`, if any: a basic solution
// uses at most three edges (Caratheodory), so every nonsingular triple is tried.
std::optional<std::vector<double>> cone_combination(const std::vector<Vector3d>& edges,
                                                    const Vector3d& target) {
  const std::size_t n = edges.size();
  const double scale = target.norm();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      for (std::size_t k = j + 1; k < n; ++k) {
        Matrix3d A;
        A << edges[i], edges[j], edges[k];
        const auto lu = A.fullPivLu();
        if (!lu.isInvertible()) continue;
        const Vector3d c = lu.solve(target);
        if ((A * c - target).norm() > 1e-12 * scale) continue;
        if (c.minCoeff() < -1e-13 * scale) continue;
        std::vector<double> out(n, 0.0);
        out[i] = c[0];
        out[j] = c[1];
        out[k] = c[2];
        return out;
      }
  return std::nullopt;
}

// Whether the contacts can hold the peg still against the applied load (force F_x along e1,
// F_z pushing down into the bore, moment M): the load normalised by F_z, moment by r F_z.
bool held(const std::vector<Vector3d>& edges, double fx_over_fz, double m_over_rfz) {
  // contact forces balance the load: sum = -(F_x, -F_z, M / r)
  return cone_combination(edges, Vector3d(-fx_over_fz, 1.0, -m_over_rfz)).has_value();
}

// The model's two-point contact of a peg tilted by theta (pushed 0.1 nm into the wall and past
// the lip), as planar contacts {tip corner, lip}; the measured depth l = the lip contact's height
// along the peg axis above the tip plane.
struct measured_two_point {
  planar_contact tip, lip;
  double l_measured;
  double l_pushed;  // the exact depth at the pushed pose
  two_clusters clusters;
};

measured_two_point measure_two_point(const thread_geometry& g, double theta, double psi,
                                     double spin) {
  const double push = 1e-10;
  two_point_pose pose(g, theta, psi, spin, push, push);
  const auto cps = find_contacts(g, pose.x, pose.R, points_per_turn, spin);
  measured_two_point m;
  m.clusters = cluster(cps, pose.tip_corner(), pose.lip(), 0.2e-3);
  m.tip = in_plane(m.clusters.tip, pose);
  m.lip = in_plane(m.clusters.lip, pose);
  m.l_measured = (m.clusters.lip.point - m.clusters.tip.point).dot(pose.axis());
  m.l_pushed = pose.l - pose.shift.dot(pose.axis());
  return m;
}

}  // namespace

TEST_CASE("Whitney peg-in-hole: a plain bore is the thread-depth -> 0 limit, inputs checked") {
  const thread_geometry g(plain_bore(0.005));
  CHECK(g.height() == 0.0);
  CHECK(g.bolt_minor_radius() == Approx(0.5 * 8e-3 * (1 - 0.005)).epsilon(1e-15));
  CHECK(g.bolt_major_radius() == g.bolt_minor_radius());
  CHECK(g.nut_minor_radius() == 0.5 * 8e-3);
  CHECK(g.clearance_ratio() == Approx(0.005).epsilon(1e-12));
  for (double z : {-1e-3, -3.3e-3})
    for (double th : {0.0, 1.0, 4.0}) {
      const auto n = g.nut_surface(z, th), b = g.bolt_surface(z + 4e-3, th);
      CHECK(n.radius == 0.5 * 8e-3);
      CHECK(b.radius == g.bolt_minor_radius());
      CHECK(n.dr_dz == 0.0);
      CHECK(b.dr_dtheta == 0.0);
      const vec3 nn = g.nut_normal(z, th);  // towards the axis
      CHECK(nn[0] == Approx(-std::cos(th)).margin(1e-15));
      CHECK(nn[2] == 0.0);
    }
  thread_params bad = plain_bore(0.005);
  bad.allowance = 0;  // no clearance: nothing to tilt in
  CHECK_THROWS_WITH(thread_geometry(bad), Catch::Contains("allowance") && Catch::Contains("plain bore"));
  bad.allowance = 9e-3;  // peg diameter negative
  CHECK_THROWS_WITH(thread_geometry(bad), Catch::Contains("allowance"));
  // a threaded profile with the same clearance is still refused: the threads must overlap
  bad = plain_bore(0.3);
  bad.plain_bore = false;
  CHECK_THROWS_WITH(thread_geometry(bad), Catch::Contains("allowance"));
}

TEST_CASE("Whitney peg-in-hole: two-point contact depth l = (D - d cos theta)/sin theta (Whitney 1982, notes §7)") {
  const double c = GENERATE(0.002, 0.005);
  const double psi = GENERATE(0.4, 2.0);  // azimuth of the tilt plane
  const double spin = 1.1;                // the peg's own turn: the probe grid is not aligned
  const thread_geometry g(plain_bore(c));
  const double D = g.params().major_diameter, d = 2 * g.bolt_minor_radius();
  const double mu = 0.3;
  const double theta_0 = c / mu, theta_m = std::acos(d / D);
  for (double theta : {0.5 * theta_0, theta_0, 2 * theta_0, 0.5 * theta_m, 0.9 * theta_m}) {
    INFO("c = " << c << ", psi = " << psi << ", theta = " << theta << " rad");
    const double l = two_point_depth(D, d, theta);
    // the tip corner is inside the bore, above its bottom
    REQUIRE(l * std::cos(theta) - d * std::sin(theta) > 0);
    REQUIRE(l * std::cos(theta) < g.params().nut_height);
    const auto m = measure_two_point(g, theta, psi, spin);
    CHECK(m.clusters.stray == 0);
    REQUIRE(m.clusters.tip.count > 0);
    REQUIRE(m.clusters.lip.count > 0);
    // the deepest quadrature node, not the peak between nodes: within 1 %
    CHECK(m.clusters.tip.deepest / 1e-10 == Approx(1).epsilon(0.01));
    CHECK(m.clusters.lip.deepest / 1e-10 == Approx(1).epsilon(0.01));
    CHECK(m.clusters.tip.deepest <= 1e-10 * (1 + 1e-6));
    CHECK(m.clusters.lip.deepest <= 1e-10 * (1 + 1e-6));
    // the wall pushes the corner straight back; the lip pushes square to the peg's side
    CHECK(m.tip.normal.x() == Approx(-1).margin(1e-9));
    CHECK(m.lip.normal.x() == Approx(std::cos(theta)).margin(1e-9));
    CHECK(m.lip.normal.y() == Approx(std::sin(theta)).margin(1e-9));
    // l measured along the peg from the tip plane, at the pose pushed 0.1 nm into wall and lip
    // (which moves the lip along the peg by -shift . axis, 0.06 um at theta = 3.3 mrad)
    CHECK(m.l_measured == Approx(m.l_pushed).margin(1e-9));  // 1 nm: the contacts spread along the lip
    CHECK(m.l_measured == Approx(l).epsilon(1e-4 * (theta_0 / theta)));
    // Whitney's small-angle form l ~ c D / theta: l theta / (c D) = 1 + theta^2/2c + O(c, theta^2),
    // so it holds for theta << theta_m = sqrt(2c) only (1.8 c D / theta at 0.9 theta_m)
    CHECK(m.l_measured * theta / (c * D) == Approx(1 + theta * theta / (2 * c)).margin(c + theta * theta));
    // clear of the wall and the lip by 0.1 nm: no contact; clear of one of them: one contact
    const double gap = 1e-10;
    for (const auto& [wall, lip] : {std::pair{-gap, -gap}, std::pair{gap, -gap}, std::pair{-gap, gap}}) {
      const two_point_pose pose(g, theta, psi, spin, wall, lip);
      const auto k = cluster(find_contacts(g, pose.x, pose.R, points_per_turn, spin), pose.tip_corner(),
                             pose.lip(), 0.2e-3);
      CHECK(k.stray == 0);
      CHECK((k.tip.count > 0) == (wall > 0));
      CHECK((k.lip.count > 0) == (lip > 0));
    }
  }
}

TEST_CASE("Whitney peg-in-hole: a tilted peg enters the bore only below theta_m = acos(d/D) ~ sqrt(2c) (notes §7)") {
  // A peg at fixed tilt whose tip face is wholly below the top face (its highest tip corner 0.1 um
  // down) fills a width d / cos(theta) + 0.1 um tan(theta) at the top face: centred in the bore
  // it touches nothing below theta_m, and both the wall and the lip above it.
  const double c = GENERATE(0.002, 0.005);
  const thread_geometry g(plain_bore(c));
  const double D = g.params().major_diameter, d = 2 * g.bolt_minor_radius(), r = 0.5 * d;
  const double theta_m = std::acos(d / D);
  CHECK(theta_m == Approx(std::sqrt(2 * c)).epsilon(c));  // acos(1 - c) = sqrt(2c) (1 + c/12 + ...)
  const double below = 1e-7;
  for (double f : {0.98, 1.02}) {
    const double theta = f * theta_m;
    const Vector3d e1(1, 0, 0), e3(0, 0, 1);
    const Matrix3d R = Eigen::AngleAxisd(-theta, Vector3d::UnitY()).toRotationMatrix();
    const double width = d / std::cos(theta) + below * std::tan(theta);
    const double corner_x = 0.5 * D - 0.5 * (D - width);  // margins (D - width)/2 each side
    for (double shift : {0.0, 0.3 * std::abs(D - width), -0.3 * std::abs(D - width)}) {
      INFO("theta = " << f << " theta_m, lateral shift " << shift << " m");
      const Vector3d corner = (corner_x + shift) * e1 - below * e3;
      const Vector3d x = corner - r * (std::cos(theta) * e1 + std::sin(theta) * e3);
      const auto cps = find_contacts(g, x, R, points_per_turn, 0.0);
      if (f < 1) {
        CHECK(cps.empty());
      } else {
        bool wall = false, lip = false;  // the corner's side, the opposite side
        for (const auto& cp : cps) (cp.point.x() > 0 ? wall : lip) = true;
        CHECK(wall);
        CHECK(lip);
      }
    }
  }
}

TEST_CASE("Whitney peg-in-hole: jamming diagram edges from the statics of the model's contacts (Whitney 1982, notes §7)") {
  // Two-point contact with the tip corner on the +e1 wall (pose A) and its mirror image (pose B,
  // tilted the other way), loads in pose A's frame. Whitney's parallelogram in
  // (F_x/F_z, M/(r F_z)), lambda = l / (2 r mu): the peg moves inside, jams outside, with edges
  //   two-point:  M/(r F_z) = +lambda - mu (1 + lambda) F_x/F_z   (A: held above it)
  //               M/(r F_z) = -lambda - mu (1 + lambda) F_x/F_z   (B: held below it)
  //   one-point:  F_x/F_z = +-1/mu                               (held beyond it)
  // Held = the contact forces, inside their friction cones, balance the load (the peg cannot
  // move); the small-angle edges hold to O(theta/mu) (exact planar statics below). The diagram
  // is for a peg that cannot wedge, theta < theta_w ~ c/mu, i.e. lambda > 1: above it the contact
  // forces can squeeze the peg without bound and hold it under any load (next test).
  const auto [c, mu, theta_over_theta_0] =
      GENERATE(table<double, double, double>({{0.002, 0.3, 0.5}, {0.002, 0.3, 0.9}, {0.005, 0.3, 0.6},
                                              {0.005, 0.3, 0.95}}));
  const double theta = theta_over_theta_0 * c / mu;
  const thread_geometry g(plain_bore(c));
  const double D = g.params().major_diameter, r = g.bolt_minor_radius(), d = 2 * r;
  const auto a = measure_two_point(g, theta, 0.4, 1.1);
  const auto b = measure_two_point(g, theta, 0.4 + pi, 1.1);
  // pose B in pose A's frame: e1 and the moment change sign
  auto mirrored = [](planar_contact pc) {
    pc.point.x() = -pc.point.x();
    pc.normal.x() = -pc.normal.x();
    return pc;
  };
  const auto edges_a = cone_edges({a.tip, a.lip}, mu, r);
  const auto edges_b = cone_edges({mirrored(b.tip), mirrored(b.lip)}, mu, r);
  const double l = a.l_measured;
  REQUIRE(b.l_measured == Approx(l).epsilon(1e-6));
  const double lambda = l / (2 * r * mu);
  REQUIRE(lambda > 1);
  INFO("theta = " << theta << " rad = " << theta * mu / c << " c/mu, lambda = " << lambda);

  // the moment at which a pose starts to hold the peg, by bisection: pose A holds above it,
  // pose B below it
  auto threshold = [&](const std::vector<Vector3d>& edges, double x, bool held_above) {
    double lo = -10 - lambda, hi = 10 + lambda;
    REQUIRE(held(edges, x, held_above ? hi : lo));
    REQUIRE_FALSE(held(edges, x, held_above ? lo : hi));
    for (int i = 0; i < 60; ++i) {
      const double m = 0.5 * (lo + hi);
      (held(edges, x, m) == held_above ? hi : lo) = m;
    }
    return 0.5 * (lo + hi);
  };
  // exact planar statics of pose A, both contacts sliding into the bore (friction at the limit):
  //   F_x = f1 - f2 (cos - mu sin),  F_z = mu f1 + f2 (sin + mu cos),
  //   M = f2 (r mu + l) - f1 r (mu cos + sin)
  const double ct = std::cos(theta), st = std::sin(theta), l0 = two_point_depth(D, d, theta);
  auto exact_forces = [&](double x) {
    Eigen::Matrix2d A;
    A << 1, -(ct - mu * st), mu, st + mu * ct;
    return Eigen::Vector2d(A.lu().solve(Eigen::Vector2d(x, 1)));
  };
  auto exact_edge = [&](double x) {
    const Eigen::Vector2d f = exact_forces(x);
    return (f[1] * (r * mu + l0) - f[0] * r * (mu * ct + st)) / r;
  };
  // Whitney's edges against the exact ones: within O(theta/mu) + O(c/mu) (measured: 0.02-0.06)
  const double whitney_tolerance = 1.2 * theta / mu + 2 * c / mu;
  double worst_whitney = 0;
  for (double xf : {-0.9, -0.5, 0.0, 0.5, 0.9}) {
    const double x = xf / mu;
    INFO("F_x/F_z = " << xf << "/mu");
    const double edge_a = threshold(edges_a, x, true), edge_b = threshold(edges_b, x, false);
    CHECK(edge_a == Approx(exact_edge(x)).margin(1e-5 * (2 * lambda + 1)));
    CHECK(edge_b == Approx(-exact_edge(-x)).margin(1e-5 * (2 * lambda + 1)));  // the mirror image
    // the normal forces at pose A's edge, from the model's contacts: the exact statics, and the
    // notes' independent check (their F_x of the other sign) f1 = (F_z/mu + F_x)/2 at the tip
    // corner, f2 = (F_z/mu - F_x)/2 at the lip, to O(theta/mu^2)
    const auto coef = cone_combination(edges_a, Vector3d(-x, 1.0, -(edge_a + 1e-9)));
    REQUIRE(coef.has_value());
    const double f1 = (*coef)[0] + (*coef)[1], f2 = (*coef)[2] + (*coef)[3];
    CHECK(f1 == Approx(exact_forces(x)[0]).margin(1e-4 / mu));
    CHECK(f2 == Approx(exact_forces(x)[1]).margin(1e-4 / mu));
    CHECK(f1 == Approx(0.5 * (1 / mu + x)).margin(theta / (mu * mu)));
    CHECK(f2 == Approx(0.5 * (1 / mu - x)).margin(theta / (mu * mu)));
    // Whitney's small-angle edges
    const double upper = lambda - mu * (1 + lambda) * x, lower = -lambda - mu * (1 + lambda) * x;
    worst_whitney = std::max({worst_whitney, std::abs(edge_a - upper), std::abs(edge_b - lower)});
    CHECK(edge_a == Approx(upper).margin(whitney_tolerance));
    CHECK(edge_b == Approx(lower).margin(whitney_tolerance));
    // classification just inside and outside Whitney's edges (by 1.25 x that tolerance, in
    // M / r F_z): held by neither pose inside, by pose A above the upper edge, by pose B below
    // the lower one
    const double margin = 1.25 * whitney_tolerance;
    for (double m : {upper - margin, lower + margin, 0.5 * (upper + lower)}) {
      CHECK_FALSE(held(edges_a, x, m));
      CHECK_FALSE(held(edges_b, x, m));
    }
    CHECK(held(edges_a, x, upper + margin));
    CHECK(held(edges_b, x, lower - margin));
  }
  INFO("largest |exact two-point edge - Whitney's| = " << worst_whitney << " (in M / r F_z)");
  CHECK(worst_whitney < whitney_tolerance);

  // one-point contact, a tip corner alone on its wall (0.1 nm clear of the lip), pose A's on the
  // +e1 wall and pose B's on the -e1 wall: forces only, the peg free to turn about the corner;
  // held iff the load (F_x, -F_z) lies in the corner's friction cone, i.e. beyond F_x/F_z = 1/mu
  // (pose A) or -1/mu (pose B)
  for (const double psi : {0.4, 0.4 + pi}) {
    const two_point_pose one(g, theta, psi, 1.1, 1e-10, -1e-10);
    const auto k = cluster(find_contacts(g, one.x, one.R, points_per_turn, 1.1), one.tip_corner(),
                           one.lip(), 0.2e-3);
    REQUIRE(k.tip.count > 0);
    REQUIRE(k.lip.count == 0);
    const planar_contact own = in_plane(k.tip, one);
    const planar_contact corner = psi == 0.4 ? own : mirrored(own);  // in pose A's frame
    const double side = psi == 0.4 ? 1.0 : -1.0;
    for (double xf : {0.95, 1.05}) {
      const Vector2d load(side * xf / mu, -1.0);
      const Vector2d t(-corner.normal.y(), corner.normal.x());
      const double fn = -load.dot(corner.normal), ft = -load.dot(t);
      CHECK((fn > 0 && std::abs(ft) <= mu * fn) == (xf > 1));
    }
  }
}

TEST_CASE("Whitney peg-in-hole: wedging possible only above theta_0 = c/mu (Whitney 1982, notes §7)") {
  // Wedged: the two contact forces hold each other with no load at all, i.e. each lies inside
  // its friction cone along the line joining the contacts (a two-force body). On the model's
  // contacts: the line from the tip corner to the lip within atan(mu) of both normals. The
  // notes' equivalent: l/d < mu. Exact threshold: (D - d cos theta) / (d sin theta) = mu,
  // theta_w = (c/mu) (1 + c + c/(2 mu^2) + ...).
  const double c = GENERATE(0.002, 0.005);
  const double mu = GENERATE(0.2, 0.3);
  const thread_geometry g(plain_bore(c));
  const double D = g.params().major_diameter, d = 2 * g.bolt_minor_radius();
  const double r = 0.5 * d;
  auto wedged = [&](double theta, bool check) {
    const auto m = measure_two_point(g, theta, 0.4, 1.1);
    const Vector2d line = (m.lip.point - m.tip.point).normalized();
    const double cone = std::atan(mu);
    const bool w = std::acos(std::clamp(m.tip.normal.dot(line), -1.0, 1.0)) <= cone &&
                   std::acos(std::clamp(m.lip.normal.dot(-line), -1.0, 1.0)) <= cone;
    if (check) {
      CHECK(w == (m.l_measured / d < mu));  // the notes' form of the same statement
      // wedged, the squeeze holds the peg under every load, the middle of Whitney's
      // parallelogram included; otherwise the peg moves there
      const auto edges = cone_edges({m.tip, m.lip}, mu, r);
      CHECK(held(edges, 0.0, 0.0) == w);
      if (w)
        for (double x : {-0.9 / mu, 0.9 / mu})
          for (double moment : {-5.0, 5.0}) CHECK(held(edges, x, moment));
    }
    return w;
  };
  const double theta_0 = c / mu, theta_m = std::acos(d / D);
  REQUIRE(theta_0 < 0.5 * theta_m);
  CHECK_FALSE(wedged(0.5 * theta_0, true));
  CHECK_FALSE(wedged(0.97 * theta_0, true));
  CHECK(wedged(1.1 * theta_0, true));
  CHECK(wedged(2 * theta_0, true));
  CHECK(wedged(0.9 * theta_m, true));
  // the threshold by bisection on the model
  double lo = 0.5 * theta_0, hi = 2 * theta_0;
  for (int i = 0; i < 30; ++i) {
    const double mid = 0.5 * (lo + hi);
    (wedged(mid, false) ? hi : lo) = mid;
  }
  const double theta_w = 0.5 * (lo + hi);
  double exact_lo = 0.5 * theta_0, exact_hi = 2 * theta_0;  // root of l(theta)/d = mu
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (exact_lo + exact_hi);
    (two_point_depth(D, d, mid) / d < mu ? exact_hi : exact_lo) = mid;
  }
  const double exact = 0.5 * (exact_lo + exact_hi);
  INFO("c = " << c << ", mu = " << mu << ": wedging from theta = " << theta_w / theta_0 << " c/mu");
  CHECK(theta_w == Approx(exact).epsilon(1e-4));  // the 0.1 nm push changes l by 1e-5 here
  CHECK(theta_w / theta_0 == Approx(1 + c + c / (2 * mu * mu)).margin(0.2 * c / (mu * mu)));
}

TEST_CASE("Whitney peg-in-hole: a coaxial peg is pushed into the plain bore without touching it") {
  insertion_params p;
  p.thread = plain_bore(0.005);
  p.phase = 0.7;  // only turns the peg: a plain peg has no phase to meet
  const auto r = simulate_insertion(p);
  CHECK(r.outcome == insertion_outcome::engaged);
  CHECK(r.success);
  CHECK(r.max_contacts == 0);
  CHECK(r.max_contact_force == 0.0);
  CHECK(r.max_torque_z < 1e-9);  // fed, not screwed: the gripper does not spin
  CHECK(std::isnan(r.phase_error));
  CHECK_FALSE(r.cross_threaded);
  // the tip's depth below the top face reached the engage depth at the feed rate
  CHECK(r.time_to_engage == Approx((p.z0 + p.engage_depth) / p.feed).epsilon(0.02));
}
