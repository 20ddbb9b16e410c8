#include "contactuq/contact/brake.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

namespace {

// Sphere of radius 10 mm on a flat of the same material.
brake_params material(double e, double nu, double sigma_y, double brinell) {
  return {effective_modulus(e, nu, e, nu), 0.01, sigma_y, nu,
          brinell_to_pascal(combined_hardness(brinell, brinell))};
}

double hertz(const brake_params& p, double d) {
  return 4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * std::pow(d, 1.5);
}

}  // namespace

TEST_CASE("brake: f(nu) of eq. (14) gives first yield at p_max = 1.61 sigma_y for nu = 0.3",
          "[contact][brake]") {
  // Johnson, Contact Mechanics (1985) sec. 6.2: von Mises yield of the Hertz field first occurs
  // 0.48 a below the surface at p_max = 1.61 Y when nu = 0.3, and at 1.5 Y... 1.8 Y over nu.
  CHECK(1 / std::sqrt(brake_stress_factor(0.3)) == Approx(1.61).margin(0.005));
  // At z = 0 the combination is 1/2 - nu; for nu = 0 the interior peak still dominates.
  CHECK(brake_stress_factor(0.0) > 0.25);
  CHECK(brake_stress_factor(0.25) > brake_stress_factor(0.35));
}

TEST_CASE("brake: regime boundaries of eqs. (15)-(22)", "[contact][brake]") {
  const auto g = make_brake_regimes(material(210e9, 0.3, 500e6, 200));
  const auto& p = g.params;
  const double pi = std::numbers::pi;
  CHECK(g.yield_overlap ==
        Approx(p.radius / g.stress_factor * std::pow(pi * 500e6 / (2 * p.modulus), 2)));
  CHECK(g.plastic_overlap == Approx(std::pow(p.hardness / 500e6, 2) * g.yield_overlap));
  CHECK(g.plastic_radius ==
        Approx(3 * pi * p.radius * p.hardness / (4 * p.modulus)).epsilon(1e-12));
  CHECK(g.plastic_force == Approx(p.hardness * pi * g.plastic_radius * g.plastic_radius));
  CHECK(g.yield_force == Approx(hertz(p, g.yield_overlap)).epsilon(1e-14));
}

TEST_CASE("brake invariants over materials", "[contact][brake]") {
  // Steel, aluminium 6061-T6, brass, hardened steel: E [Pa], nu, sigma_y [Pa], Brinell.
  const auto [e, nu, sigma_y, brinell] = GENERATE(table<double, double, double, double>({
      {210e9, 0.30, 500e6, 200},
      {69e9, 0.33, 276e6, 95},
      {100e9, 0.34, 200e6, 100},
      {210e9, 0.30, 1500e6, 500},
  }));
  const auto g = make_brake_regimes(material(e, nu, sigma_y, brinell));
  const double dy = g.yield_overlap;
  const double dp = g.plastic_overlap;
  REQUIRE(dp > dy);
  CHECK(brake_loading_force(g, 0.0) == 0.0);
  CHECK(brake_loading_force(g, -dy) == 0.0);

  SECTION("Hertz below yield") {
    for (double w : {0.01, 0.3, 0.9, 1.0})
      CHECK(brake_loading_force(g, w * dy) == Approx(hertz(g.params, w * dy)).epsilon(1e-13));
  }
  SECTION("C1 continuity of F and a at delta_y and delta_p (the Hermite blend)") {
    for (double d : {dy, dp}) {
      const double h = 1e-7 * d;
      const double f = brake_loading_force(g, d);
      CHECK(brake_loading_force(g, d - h) == Approx(f).epsilon(1e-6));
      CHECK(brake_loading_force(g, d + h) == Approx(f).epsilon(1e-6));
      const double left = (f - brake_loading_force(g, d - h)) / h;
      const double right = (brake_loading_force(g, d + h) - f) / h;
      CHECK(left == Approx(right).epsilon(1e-5));
      const double a = brake_contact_radius(g, d);
      const double a_left = (a - brake_contact_radius(g, d - h)) / h;
      const double a_right = (brake_contact_radius(g, d + h) - a) / h;
      CHECK(a_left == Approx(a_right).epsilon(1e-5));
    }
    // The analytic end slopes the blend is built from: Hertz at delta_y, eq. (18) at delta_p.
    const double h = 1e-7 * dy;
    CHECK((brake_loading_force(g, dy) - brake_loading_force(g, dy - h)) / h ==
          Approx(1.5 * g.yield_force / dy).epsilon(1e-5));
    CHECK((brake_loading_force(g, 2 * dp) - brake_loading_force(g, dp)) / dp ==
          Approx(2 * std::numbers::pi * g.params.hardness * g.params.radius).epsilon(1e-12));
  }
  SECTION("loading monotone to 1000 delta_y") {
    double last = 0.0;
    double last_a = 0.0;
    for (int i = 1; i <= 4000; ++i) {
      const double d = dy * std::pow(10.0, -1 + 4.0 * i / 4000);
      const double f = brake_loading_force(g, d);
      const double a = brake_contact_radius(g, d);
      CHECK(f > last);
      CHECK(a > last_a);
      last = f;
      last_a = a;
    }
  }
  SECTION("unloading: continuous at delta_m, zero at delta_bar >= 0, never above loading") {
    // A log grid of delta_m from 0.5 to 1000 delta_y (dense through the mixed regime and just
    // past delta_p, where eqs. (26)-(27) as printed unload above loading) plus the boundaries.
    std::vector<double> grid{1.0, dp / dy, dp / dy * (1 + 1e-9), dp / dy * (1 - 1e-9)};
    for (int i = 0; i <= 160; ++i) grid.push_back(0.5 * std::pow(2000.0, i / 160.0));
    for (double wm : grid) {
      INFO("delta_m / delta_y = " << wm);
      brake_state s;
      const double dm = wm * dy;
      const double fm = brake_force(g, dm, 1.0, s);
      CHECK(brake_unloading_force(g, dm * (1 - 1e-12), s) == Approx(fm).epsilon(1e-9));
      CHECK(s.residual_overlap >= 0.0);
      CHECK(s.residual_overlap < dm);
      CHECK(s.unloading_radius >= g.params.radius * (1 - 1e-12));  // elastic recovery: r_bar >= r
      CHECK(brake_force(g, s.residual_overlap, -1.0, s) == 0.0);
      CHECK(brake_force(g, 0.0, -1.0, s) == 0.0);
      if (wm <= 1) {
        CHECK(s.residual_overlap == 0.0);
        CHECK(s.unloading_radius == g.params.radius);
      }
      double worst = -1.0;
      for (int i = 0; i <= 400; ++i) {
        const double d = dm * i / 400.0;
        const double fu = brake_unloading_force(g, d, s);
        CHECK(fu >= 0.0);
        worst = std::max(worst, (fu - brake_loading_force(g, d)) / fm);
      }
      CHECK(worst <= 1e-9);
    }
  }
  SECTION("the admissibility bounds change nothing where eq. (26) already satisfies them") {
    // Eq. (27) reads r_bar = r + delta_m/2 + xi/(2 delta_m) >= r once delta_m^2 >= -xi: deep in
    // the plastic regime the printed r_bar and delta_bar stand.
    REQUIRE(g.xi < 0);
    for (double factor : {3.0, 10.0}) {
      brake_state s;
      const double dm = factor * std::sqrt(-g.xi);
      REQUIRE(dm > dp);
      const double fm = brake_force(g, dm, 1.0, s);
      const double a2 = std::pow(brake_contact_radius(g, dm), 2);
      const double rb = 0.5 * (dm + a2 / dm);  // eq. (27)
      const double eq26 = dm - std::pow(3 * fm / (4 * g.params.modulus * std::sqrt(rb)), 2.0 / 3);
      REQUIRE(rb >= g.params.radius);
      REQUIRE(eq26 > 0);
      CHECK(s.unloading_radius == Approx(rb).epsilon(1e-12));
      CHECK(s.residual_overlap == Approx(eq26).epsilon(1e-12));
    }
  }
  SECTION("the unloading history is continuous in delta_m across delta_y and delta_p") {
    brake_state a;
    brake_force(g, dy * (1 + 1e-9), 1.0, a);
    CHECK(a.unloading_radius == Approx(g.params.radius).epsilon(1e-6));
    CHECK(a.residual_overlap < 1e-6 * dy);
    brake_state b, c;
    brake_force(g, dp * (1 - 1e-9), 1.0, b);
    brake_force(g, dp * (1 + 1e-9), 1.0, c);
    CHECK(b.residual_overlap == Approx(c.residual_overlap).margin(1e-6 * dp));
    CHECK(b.unloading_radius == Approx(c.unloading_radius).epsilon(1e-5));
  }
}

TEST_CASE("brake: just past delta_p the residual is raised until unloading lies below loading",
          "[contact][brake]") {
  // For this steel eq. (27) gives r_bar < r just past delta_p and eq. (26) a negative residual:
  // the printed curve would carry force at zero overlap and run above the plastic line (18).
  const auto g = make_brake_regimes(material(210e9, 0.3, 500e6, 200));
  brake_state s;
  const double dm = 1.2 * g.plastic_overlap;
  const double fm = brake_force(g, dm, 1.0, s);
  const double rb = 0.5 * (dm + std::pow(brake_contact_radius(g, dm), 2) / dm);  // eq. (27)
  const double eq26 = dm - std::pow(3 * fm / (4 * g.params.modulus * std::sqrt(rb)), 2.0 / 3.0);
  REQUIRE(rb < g.params.radius);
  REQUIRE(eq26 < 0);
  CHECK(s.residual_overlap > 0.0);
  CHECK(s.unloading_radius > g.params.radius);
  CHECK(brake_unloading_force(g, dm, s) == Approx(fm).epsilon(1e-12));
  // The bound is tight: the unloading curve touches loading somewhere below delta_m (or leaves
  // delta_m with the loading slope), so a smaller residual would cross it.
  double closest = 1.0;
  for (int i = 1; i < 4000; ++i) {
    const double d = dm * i / 4000.0;
    if (d <= s.residual_overlap) continue;
    closest = std::min(closest, (brake_loading_force(g, d) - brake_unloading_force(g, d, s)) / fm);
  }
  const double slope_gap = (brake_loading_slope(g, dm) - 1.5 * fm / (dm - s.residual_overlap)) /
                           brake_loading_slope(g, dm);
  CHECK(std::min(closest, std::abs(slope_gap)) < 1e-4);
}

TEST_CASE("brake: loading slope is the derivative of the loading force", "[contact][brake]") {
  const auto g = make_brake_regimes(material(210e9, 0.3, 500e6, 200));
  for (double w : {0.3, 1.0, 2.0, 5.0, 9.0, 20.0}) {
    const double d = w * g.yield_overlap;
    const double h = 1e-6 * d;
    CHECK(brake_loading_slope(g, d) ==
          Approx((brake_loading_force(g, d + h) - brake_loading_force(g, d - h)) / (2 * h))
              .epsilon(1e-5));
  }
}

TEST_CASE("brake rejects bad parameters by name", "[contact][brake]") {
  auto p = material(210e9, 0.3, 500e6, 200);
  p.yield_strength = 0;
  CHECK_THROWS_WITH(make_brake_regimes(p), Contains("yield_strength = 0 Pa"));
  p = material(210e9, 0.3, 500e6, 200);
  p.hardness = 400e6;
  CHECK_THROWS_WITH(make_brake_regimes(p),
                    Contains("hardness = 400000000 Pa") && Contains("yield_strength"));
  p = material(210e9, 0.3, 500e6, 200);
  p.poisson = 0.5;
  CHECK_THROWS_WITH(make_brake_regimes(p), Contains("poisson = 0.5"));
  p.poisson = 0.3;
  p.radius = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(make_brake_regimes(p), Contains("radius = inf m"));
}
