#include "contactuq/contact/etsion.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("etsion: yield onset of eq. (29) is the von Mises onset p_max = K H",
          "[contact][etsion]") {
  const etsion_params p{115e9, 0.01, 0.3, brinell_to_pascal(200)};
  const double dy = etsion_yield_overlap(p);
  const double k = 0.454 + 0.41 * 0.3;
  // Hertz peak pressure 2 E sqrt(delta / r) / pi at delta_y.
  CHECK(2 * p.modulus * std::sqrt(dy / p.radius) / std::numbers::pi ==
        Approx(k * p.hardness).epsilon(1e-13));
  CHECK(etsion_yield_force(p) ==
        Approx(4.0 / 3.0 * p.modulus * std::sqrt(p.radius) * std::pow(dy, 1.5)));
}

TEST_CASE("etsion invariants over a parameter grid", "[contact][etsion]") {
  const double modulus = GENERATE(40e9, 115e9);
  const double nu = GENERATE(0.0, 0.3, 0.45);
  const double brinell = GENERATE(95.0, 500.0);
  const etsion_params p{modulus, 0.005, nu, brinell_to_pascal(brinell)};
  REQUIRE_NOTHROW(p.validate());
  const double dy = etsion_yield_overlap(p);
  const double fy = etsion_yield_force(p);
  CHECK(etsion_loading_force(p, 0.0) == 0.0);
  // Hertz below yield; the published fits jump by +3 % at w = 1 and by +1.6 % at w = 6.
  CHECK(etsion_loading_force(p, 0.5 * dy) == Approx(fy * std::pow(0.5, 1.5)).epsilon(1e-13));
  CHECK(etsion_loading_force(p, dy * (1 + 1e-12)) / etsion_loading_force(p, dy) ==
        Approx(1.03).epsilon(1e-9));
  CHECK(etsion_loading_force(p, 6 * dy * (1 + 1e-12)) / etsion_loading_force(p, 6 * dy) ==
        Approx(1.40 * std::pow(6.0, 1.263) / (1.03 * std::pow(6.0, 1.425))).epsilon(1e-9));
  double last = 0.0;
  for (int i = 1; i <= 2000; ++i) {  // loading monotone to 1000 delta_y
    const double f = etsion_loading_force(p, dy * std::pow(10.0, -1 + 4.0 * i / 2000));
    CHECK(f > last);
    last = f;
  }
  for (double wm : {0.5, 1.0, 1.05, 2.0, 6.0, 6.5, 30.0, 110.0, 1000.0}) {
    etsion_state s;
    const double dm = wm * dy;
    const double fm = etsion_force(p, dm, 1.0, s);
    CHECK(etsion_unloading_force(p, dm * (1 - 1e-12), s) == Approx(fm).epsilon(1e-9));
    if (wm <= 1) {
      CHECK(s.residual_overlap == 0.0);
    } else {  // eq. (34)
      CHECK(s.residual_overlap / dm ==
            Approx((1 - std::pow(wm, -0.28)) * (1 - std::pow(wm, -0.69))).epsilon(1e-13));
    }
    CHECK(etsion_force(p, s.residual_overlap, -1.0, s) == 0.0);
    CHECK(etsion_force(p, 0.0, -1.0, s) == 0.0);
    // Unloading never above loading, up to the jump of the fits just below w = 1 or 6.
    const double jump = 0.03 * fm;
    for (int i = 0; i <= 200; ++i) {
      const double d = dm * i / 200.0;
      const double fu = etsion_unloading_force(p, d, s);
      CHECK(fu >= 0.0);
      CHECK(fu <= etsion_loading_force(p, d) * (1 + 1e-9) + jump);
      if (wm <= 1) CHECK(fu == Approx(etsion_loading_force(p, d)).epsilon(1e-12));
      if (wm >= 1.5 && std::abs(wm - 6.5) > 1) CHECK(fu <= etsion_loading_force(p, d) * (1 + 1e-9));
    }
  }
}

TEST_CASE("etsion rejects bad parameters by name", "[contact][etsion]") {
  CHECK_THROWS_WITH((etsion_params{1e11, 0.01, 0.6, 2e9}.validate()), Contains("poisson = 0.6"));
  CHECK_THROWS_WITH((etsion_params{1e11, 0.01, 0.3, 0}.validate()), Contains("hardness = 0 Pa"));
  CHECK_THROWS_WITH((etsion_params{-1, 0.01, 0.3, 2e9}.validate()), Contains("modulus = -1 Pa"));
}
