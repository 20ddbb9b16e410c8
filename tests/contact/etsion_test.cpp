#include "contactuq/contact/etsion.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "contactuq/contact/brake.hpp"
#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/material.hpp"
#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

namespace {

constexpr double hertz_to_subsurface = 1.4831;    // 1.03 w^1.425 = w^1.5
constexpr double subsurface_to_surface = 6.6490;  // 1.03 w^1.425 = 1.40 w^1.263

}  // namespace

TEST_CASE("etsion: yield onset of eq. (29) is the von Mises onset p_max = K 2.8 sigma_y",
          "[contact][etsion]") {
  const double sigma_y = 500e6;
  const etsion_params p{115e9, 0.01, 0.3, etsion_tabor_hardness(sigma_y)};
  CHECK(p.hardness == Approx(2.8 * sigma_y).epsilon(1e-15));
  const double dy = etsion_yield_overlap(p);
  const double k = 0.454 + 0.41 * 0.3;
  // Hertz peak pressure 2 E sqrt(delta / r) / pi at delta_y: K H = 1.61 sigma_y for nu = 0.3,
  // the von Mises onset of the Hertz field (Johnson 1985, sec. 6.2).
  const double p_max = 2 * p.modulus * std::sqrt(dy / p.radius) / std::numbers::pi;
  CHECK(p_max == Approx(k * p.hardness).epsilon(1e-13));
  CHECK(p_max / sigma_y == Approx(1.61).margin(0.01));
  CHECK(etsion_yield_force(p) ==
        Approx(4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * std::pow(dy, 1.5)));
}

TEST_CASE("etsion and brake agree on the yield onset for every built-in material",
          "[contact][etsion]") {
  // Kogut-Etsion's critical interference with H = 2.8 sigma_y against Brake's von Mises onset
  // (eq. 15): two routes to the same physics, within 1 % (at most 0.41 %, at nu = 0.29).
  const auto table = material_table::load(CONTACTUQ_SOURCE_DIR "/data/materials.toml");
  for (const auto& name : table.names()) {
    INFO(name);
    const auto& m = table.at(name);
    const double e = effective_modulus(m.modulus, m.poisson, m.modulus, m.poisson);
    const etsion_params p{e, 0.01, m.poisson, etsion_tabor_hardness(m.yield_strength)};
    const auto g = make_brake_regimes({e, 0.01, m.yield_strength, m.poisson, m.hardness});
    CHECK(etsion_yield_overlap(p) == Approx(g.yield_overlap).epsilon(0.01));
  }
}

TEST_CASE("etsion invariants over a parameter grid", "[contact][etsion]") {
  const double modulus = GENERATE(40e9, 115e9);
  const double nu = GENERATE(0.0, 0.3, 0.45);
  const double sigma_y = GENERATE(150e6, 1000e6);
  const etsion_params p{modulus, 0.005, nu, etsion_tabor_hardness(sigma_y)};
  REQUIRE_NOTHROW(p.validate());
  const double dy = etsion_yield_overlap(p);
  const double fy = etsion_yield_force(p);
  CHECK(etsion_loading_force(p, 0.0) == 0.0);
  CHECK(etsion_loading_force(p, 0.5 * dy) == Approx(fy * std::pow(0.5, 1.5)).epsilon(1e-13));

  SECTION("loading is continuous where the fits cross, and follows eqs. (30), (32) past them") {
    for (double w : {hertz_to_subsurface, subsurface_to_surface}) {
      const double below = etsion_loading_force(p, w * dy * (1 - 1e-9));
      const double above = etsion_loading_force(p, w * dy * (1 + 1e-9));
      CHECK(above == Approx(below).epsilon(1e-7));
    }
    CHECK(etsion_loading_force(p, 1.2 * dy) == Approx(fy * std::pow(1.2, 1.5)).epsilon(1e-13));
    CHECK(etsion_loading_force(p, 3 * dy) == Approx(1.03 * fy * std::pow(3.0, 1.425)).epsilon(1e-13));
    CHECK(etsion_loading_force(p, 30 * dy) == Approx(1.40 * fy * std::pow(30.0, 1.263)).epsilon(1e-13));
    double last = 0.0;
    for (int i = 1; i <= 2000; ++i) {  // loading monotone to 1000 delta_y
      const double f = etsion_loading_force(p, dy * std::pow(10.0, -1 + 4.0 * i / 2000));
      CHECK(f > last);
      last = f;
    }
  }

  SECTION("unloading: continuous at delta_m, zero at delta_r, never above loading") {
    // Dense just past yield and around both switches, where eq. (35) with the residual of
    // eq. (34) would run above loading.
    std::vector<double> grid{0.5, 1.0, hertz_to_subsurface, subsurface_to_surface, 6.0};
    for (int i = 0; i <= 160; ++i) grid.push_back(0.5 * std::pow(2000.0, i / 160.0));
    for (int i = 1; i <= 40; ++i) grid.push_back(1 + 0.5 * i / 40.0);
    for (double wm : grid) {
      INFO("delta_m / delta_y = " << wm);
      etsion_state s;
      const double dm = wm * dy;
      const double fm = etsion_force(p, dm, 1.0, s);
      CHECK(etsion_unloading_force(p, dm * (1 - 1e-12), s) == Approx(fm).epsilon(1e-9));
      if (wm <= 1) {
        CHECK(s.residual_overlap == 0.0);
      } else {  // eq. (34) or above it
        CHECK(s.residual_overlap / dm >=
              (1 - std::pow(wm, -0.28)) * (1 - std::pow(wm, -0.69)) * (1 - 1e-13));
        CHECK(s.residual_overlap > 0.0);
      }
      CHECK(s.residual_overlap < dm);
      CHECK(etsion_force(p, s.residual_overlap, -1.0, s) == 0.0);
      CHECK(etsion_force(p, 0.0, -1.0, s) == 0.0);
      double worst = -1.0;
      for (int i = 0; i <= 400; ++i) {
        const double d = dm * i / 400.0;
        const double fu = etsion_unloading_force(p, d, s);
        CHECK(fu >= 0.0);
        if (wm <= 1) CHECK(fu == Approx(etsion_loading_force(p, d)).epsilon(1e-12));
        worst = std::max(worst, (fu - etsion_loading_force(p, d)) / fm);
      }
      CHECK(worst <= 1e-9);
    }
  }

  SECTION("eq. (34) stands where the fits already unload below loading") {
    for (double wm : {20.0, 100.0}) {
      etsion_state s;
      etsion_force(p, wm * dy, 1.0, s);
      CHECK(s.residual_overlap / (wm * dy) ==
            Approx((1 - std::pow(wm, -0.28)) * (1 - std::pow(wm, -0.69))).epsilon(1e-13));
    }
  }
}

TEST_CASE("etsion rejects bad parameters by name", "[contact][etsion]") {
  CHECK_THROWS_WITH((etsion_params{1e11, 0.01, 0.6, 2e9}.validate()), Contains("poisson = 0.6"));
  CHECK_THROWS_WITH((etsion_params{1e11, 0.01, 0.3, 0}.validate()),
                    Contains("hardness = 0 Pa") && Contains("2.8 sigma_y"));
  CHECK_THROWS_WITH((etsion_params{-1, 0.01, 0.3, 2e9}.validate()), Contains("modulus = -1 Pa"));
}
