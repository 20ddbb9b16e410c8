#include "contactuq/threaded/thread_geometry.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

using namespace contactuq;
using namespace contactuq::threaded;

namespace {

constexpr double pi = std::numbers::pi;
constexpr double deg = pi / 180;

// The thesis's normalised thread (notes §1), in millimetres as SI metres: p = 1 mm, d = 6 mm,
// r = 0.1 mm, allowance ratio a = 0.05 (diametral allowance a d).
thread_params thesis_thread() {
  thread_params t;
  t.major_diameter = 6e-3;
  t.pitch = 1e-3;
  t.root_radius = 0.1e-3;
  t.allowance = 0.05 * 6e-3;
  t.nut_height = 8e-3;
  t.bolt_length = 12e-3;
  return t;
}

// Largest penetration of the bolt surface into the nut for a coaxial bolt whose tip is at
// z = tip_z with helical phase delta = tip_z - p theta_z / 2 pi, sampled over the overlap of full
// threads (bolt body points mapped into the nut frame).
double coaxial_penetration(const thread_geometry& g, double tip_z, double delta) {
  const double p = g.params().pitch;
  const double theta_z = 2 * pi * (tip_z - delta) / p;
  double worst = -1e9;
  for (int i = 0; i < 96; ++i) {
    const double th_b = 2 * pi * i / 96;
    for (int j = 0; j < 1000; ++j) {
      const double z_b = -tip_z - 3.0 * p + 2.0 * p * j / 1000;  // nut z in [-3p, -p]
      const double rb = g.bolt_surface(z_b, th_b).radius;
      const double th = th_b + theta_z;
      const vec3 P = {rb * std::cos(th), rb * std::sin(th), z_b + tip_z};
      worst = std::max(worst, g.nut_penetration(P));
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("thread profile: continuous value and slope at the breakpoints (Nicolson §3.2.1)") {
  const double alpha = GENERATE(27.5 * deg, 30 * deg, 40 * deg);
  const double r_frac = GENERATE(0.0, 0.05, 0.1, 0.14);
  thread_params t;
  t.pitch = 1e-3;
  t.flank_angle = alpha;
  t.root_radius = r_frac * 1e-3;
  t.allowance = 0;
  const thread_geometry g(t);
  const double p = t.pitch;
  const double t1 = t.root_radius * std::cos(alpha);
  const double eps = 1e-12;
  for (double b : {t1, 0.5 * p - t1, 0.5 * p + t1, p - t1}) {
    CHECK(g.profile(b - eps) == Approx(g.profile(b + eps)).margin(1e-14));
    // a sharp V thread (r = 0) has corners; a rounded one a continuous slope
    if (r_frac > 0) CHECK(g.profile_slope(b - eps) == Approx(g.profile_slope(b + eps)).margin(1e-5));
    // slope against a central difference away from the breakpoint
    const double hstep = 1e-9;
    const double x = b + 3e-7;
    CHECK(g.profile_slope(x) ==
          Approx((g.profile(x + hstep) - g.profile(x - hstep)) / (2 * hstep)).margin(1e-5));
  }
  // height h = (p/2) cot(alpha) - 2 r (1/sin(alpha) - 1), the maximum at t = p/2
  const double h = 0.5 * p / std::tan(alpha) - 2 * t.root_radius * (1 / std::sin(alpha) - 1);
  CHECK(g.height() == Approx(h).epsilon(1e-14));
  CHECK(g.profile(0.5 * p) == Approx(h).epsilon(1e-12));
  CHECK(g.profile(0.0) == Approx(0.0).margin(1e-18));
  // half-period identity and evenness (notes §1)
  for (int i = 0; i < 200; ++i) {
    const double x = -2 * p + 4 * p * i / 199.0;
    CHECK(g.profile(x) + g.profile(x + 0.5 * p) == Approx(h).margin(1e-15));
    CHECK(g.profile(x) == Approx(g.profile(-x)).margin(1e-15));
    CHECK(g.profile(x) >= -1e-18);
    CHECK(g.profile(x) <= h + 1e-15);
  }
}

TEST_CASE("thread profile: 30 deg flank reproduces the thesis height sqrt(3) p/2 - 2r") {
  const thread_geometry g(thesis_thread());
  CHECK(g.height() == Approx(std::sqrt(3.0) / 2 * 1e-3 - 2 * 0.1e-3).epsilon(1e-14));
  CHECK(g.height() / 1e-3 == Approx(0.6660).margin(1e-4));  // notes §1
  CHECK(g.bolt_minor_radius() == Approx(2.184e-3).margin(1e-6));
  CHECK(g.nut_minor_radius() == Approx(2.334e-3).margin(1e-6));
  CHECK(g.capture_radius() / 1e-3 == Approx(0.816).margin(1e-3));
  CHECK(g.mesh_tolerance() / 1e-3 == Approx(0.0866).margin(1e-4));
  CHECK(g.crest_interference() / 1e-3 == Approx(0.516).margin(1e-3));
}

TEST_CASE("thread surfaces: normals unit, orthogonal to the tangents, pointing out of the material") {
  thread_params t = thesis_thread();
  t.chamfer = GENERATE(0.0, 0.2e-3);
  const thread_geometry g(t);
  const double hs = 1e-8;
  for (int i = 0; i < 60; ++i) {
    const double theta = 0.1 + 2 * pi * i / 60.0;
    for (double z : {-0.03e-3, -0.37e-3, -1.1e-3, -2.45e-3, -4.9e-3}) {
      for (int part = 0; part < 2; ++part) {
        const double zz = part == 0 ? z : -z;  // bolt body z is positive
        auto X = [&](double zq, double tq) {
          const double r = part == 0 ? g.nut_surface(zq, tq).radius : g.bolt_surface(zq, tq).radius;
          return vec3{r * std::cos(tq), r * std::sin(tq), zq};
        };
        const vec3 n = part == 0 ? g.nut_normal(zz, theta) : g.bolt_normal(zz, theta);
        const vec3 a = X(zz, theta + hs), b = X(zz, theta - hs), c = X(zz + hs, theta),
                   e = X(zz - hs, theta);
        double dot_t = 0, dot_z = 0, norm_t = 0, norm_z = 0;
        for (int k = 0; k < 3; ++k) {
          const double xt = (a[k] - b[k]) / (2 * hs), xz = (c[k] - e[k]) / (2 * hs);
          dot_t += n[k] * xt;
          dot_z += n[k] * xz;
          norm_t += xt * xt;
          norm_z += xz * xz;
        }
        CHECK(std::hypot(n[0], n[1], n[2]) == Approx(1.0).epsilon(1e-12));
        CHECK(dot_t / std::sqrt(norm_t) == Approx(0.0).margin(1e-5));
        CHECK(dot_z / std::sqrt(norm_z) == Approx(0.0).margin(1e-5));
        // out of the material: towards the axis for the nut, away from it for the bolt
        const double radial = n[0] * std::cos(theta) + n[1] * std::sin(theta);
        CHECK((part == 0 ? radial < 0 : radial > 0));
        // the penetration gradient is the inward normal at the surface
        const vec3 P = X(zz, theta);
        vec3 grad;
        const double pen = part == 0 ? g.nut_penetration(P, &grad) : g.bolt_penetration(P, &grad);
        if (std::abs(pen) < 1e-12 && std::abs(zz) > 1e-6) {
          CHECK(grad[0] == Approx(-n[0]).margin(1e-9));
          CHECK(grad[1] == Approx(-n[1]).margin(1e-9));
          CHECK(grad[2] == Approx(-n[2]).margin(1e-9));
        }
      }
    }
  }
}

TEST_CASE("penetration: the gradient is exact away from the surface, the force field of a potential") {
  // Contact forces are Phi'(depth) grad(depth): with the exact gradient they derive from the
  // potential Phi(depth), so frictionless contacts conserve energy. The depth (rho - r) kappa has
  // a kappa that varies with the point; the gradient includes it. Checked against central
  // differences at points up to 20 um inside and outside both parts, on the root and crest arcs,
  // the flanks, the run-up, the chamfer, for three flank angles.
  thread_params t = thesis_thread();
  t.flank_angle = GENERATE(20 * deg, 30 * deg, 40 * deg);
  t.chamfer = GENERATE(0.0, 0.3e-3);
  const thread_geometry g(t);
  const double h = 1e-9;
  int checked = 0;
  for (int i = 0; i < 97; ++i) {
    const double theta = -pi + 2 * pi * (i + 0.37) / 97;
    for (int j = 0; j < 41; ++j) {
      const double z = -0.01e-3 - 3e-3 * j / 41;  // the run-up and the chamfer lie in the top 1.5 mm
      for (double off : {-20e-6, -3e-6, 2e-6, 15e-6}) {
        for (int part = 0; part < 2; ++part) {
          const double zz = part == 0 ? z : -z;
          const double r = part == 0 ? g.nut_surface(zz, theta).radius : g.bolt_surface(zz, theta).radius;
          const vec3 P = {(r + off) * std::cos(theta), (r + off) * std::sin(theta), zz};
          auto pen = [&](const vec3& Q, vec3* grad, int* id) {
            return part == 0 ? g.nut_penetration(Q, grad, id) : g.bolt_penetration(Q, grad, id);
          };
          vec3 grad;
          int id = -1;
          pen(P, &grad, &id);
          if (id != 0) continue;  // an end face: its gradient is a constant
          bool smooth = true;     // no kink (surface switch, profile breakpoint) within the stencil
          vec3 fd;
          for (int k = 0; k < 3; ++k) {
            vec3 a = P, b = P;
            a[k] += h;
            b[k] -= h;
            int ia = -1, ib = -1;
            vec3 ga, gb;
            fd[k] = (pen(a, &ga, &ia) - pen(b, &gb, &ib)) / (2 * h);
            smooth = smooth && ia == 0 && ib == 0 &&
                     std::hypot(ga[0] - gb[0], ga[1] - gb[1], ga[2] - gb[2]) < 1e-3;
          }
          if (!smooth) continue;
          ++checked;
          INFO("part " << part << " theta " << theta << " z " << zz << " offset " << off);
          for (int k = 0; k < 3; ++k) CHECK(grad[k] == Approx(fd[k]).margin(2e-6));
        }
      }
    }
  }
  CHECK(checked > 20000);
}

TEST_CASE("thread run-up: continuous surfaces, plain tip and opening, full thread after the run-up") {
  thread_params t = thesis_thread();
  t.runup_angle = GENERATE(0.5 * pi, pi);
  const thread_geometry g(t);
  const double p = t.pitch;
  double jump_n = 0, jump_b = 0;
  for (int i = 0; i < 2000; ++i) {
    const double theta = 2 * pi * i / 2000.0;
    for (int j = 0; j < 200; ++j) {
      const double z = -3 * p * j / 200.0;
      const double dt = 1e-9, dz = 1e-12;
      jump_n = std::max({jump_n, std::abs(g.nut_surface(z, theta + dt).radius - g.nut_surface(z, theta).radius),
                         std::abs(g.nut_surface(z - dz, theta).radius - g.nut_surface(z, theta).radius)});
      jump_b = std::max({jump_b, std::abs(g.bolt_surface(-z, theta + dt).radius - g.bolt_surface(-z, theta).radius),
                         std::abs(g.bolt_surface(-z + dz, theta).radius - g.bolt_surface(-z, theta).radius)});
    }
    CHECK(g.nut_surface(0.0, theta).radius == Approx(3e-3).epsilon(1e-14));
    CHECK(g.bolt_surface(0.0, theta).radius == Approx(g.bolt_minor_radius()).epsilon(1e-14));
    // below the run-up the thread is full
    CHECK(g.nut_ramp(-p - p * t.runup_angle / (2 * pi) - 0.01 * p, theta) == 1.0);
    CHECK(g.bolt_ramp(p + p * t.runup_angle / (2 * pi) + 0.01 * p, theta) == 1.0);
  }
  CHECK(jump_n < 1e-9);  // no step anywhere (the printed run-up steps by 0.265 p)
  CHECK(jump_b < 1e-9);
}

TEST_CASE("mesh condition: a coaxial bolt is contact-free iff its phase error is within (e/2) tan(alpha)") {
  // notes §1: +/- a d/(2 sqrt 3) = 0.0866 p for the thesis thread (about +/- 31 deg of phase)
  auto t = GENERATE(thesis_thread(), thread_params{});  // thesis; M8x1.25 6g
  const thread_geometry g(t);
  const double p = t.pitch;
  const double tol = g.mesh_tolerance();
  const double tip_z = -4.3 * p;  // full threads overlap over nut z in [-3p, -1.7p]
  for (double sign : {-1.0, 1.0}) {
    CHECK(coaxial_penetration(g, tip_z, 0.5 * p + sign * 0.9 * tol) < 0);
    CHECK(coaxial_penetration(g, tip_z, 0.5 * p + sign * 1.1 * tol) > 0);
  }
  CHECK(coaxial_penetration(g, tip_z, 0.5 * p) < 0);
  // crest on crest: interference h - e/2 (0.516 p for the thesis thread)
  CHECK(coaxial_penetration(g, tip_z, 0.0) == Approx(g.crest_interference()).epsilon(1e-4));
}

TEST_CASE("capture: a coaxial tip overhangs the nut's top face iff the offset exceeds d/2 + c - R_b") {
  thread_params t = thesis_thread();
  t.chamfer = GENERATE(0.0, 0.1e-3);
  const thread_geometry g(t);
  for (double factor : {0.98, 1.02}) {
    const double e = factor * g.capture_radius();
    double worst = -1e9;
    for (int i = 0; i < 3600; ++i) {  // tip circle slightly below the top face
      const double th = 2 * pi * i / 3600.0;
      const vec3 P = {e + g.bolt_minor_radius() * std::cos(th), g.bolt_minor_radius() * std::sin(th),
                      -1e-6};
      worst = std::max(worst, g.nut_penetration(P));
    }
    if (factor < 1)
      CHECK(worst < 0);
    else
      CHECK(worst == Approx(1e-6).epsilon(1e-9));  // on the top face, 1 um deep
  }
}

TEST_CASE("thread standards by name") {
  const auto m8 = find_thread_standard("M8x1.25");
  CHECK(m8.major_diameter == 8e-3);
  CHECK(m8.pitch == 1.25e-3);
  CHECK(m8.allowance == Approx(28e-6));
  const auto unc = find_thread_standard("1/4-20 UNC");
  CHECK(unc.major_diameter == Approx(6.35e-3));
  CHECK(unc.pitch == Approx(1.27e-3));
  CHECK(unc.allowance == Approx(0.0011 * 0.0254));
  CHECK(find_thread_standard("M16x2").allowance == Approx(38e-6));
  CHECK_THROWS_AS(find_thread_standard("M7x1"), parameter_error);
  CHECK_THROWS_WITH(find_thread_standard("M7x1"), Catch::Contains("M8x1.25"));
  thread_params bad;
  bad.root_radius = 1e-3;
  CHECK_THROWS_WITH(thread_geometry(bad), Catch::Contains("root_radius"));
  bad = {};
  bad.allowance = -1e-6;
  CHECK_THROWS_WITH(thread_geometry(bad), Catch::Contains("allowance"));
}
