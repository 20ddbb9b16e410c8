#include "contactuq/contact/kelvin_voigt.hpp"

#include <catch2/catch.hpp>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("kelvin_voigt defaults are Brake 2014's K_P = 10 kN/mm and C_P = 280 N*s/m",
          "[contact]") {
  const kelvin_voigt_params p;
  CHECK(p.stiffness == 10e3 / 1e-3);
  CHECK(p.damping == 280.0);
  // Eq. (12) in contact: K_P delta + C_P delta_dot.
  CHECK(kelvin_voigt_force(p, 2e-5, 0.5) == Approx(1e7 * 2e-5 + 280 * 0.5).epsilon(1e-15));
  CHECK(kelvin_voigt_force(p, 2e-5, -0.5) == Approx(1e7 * 2e-5 - 280 * 0.5).epsilon(1e-15));
}

TEST_CASE("kelvin_voigt invariants over a parameter grid", "[contact]") {
  const double k = GENERATE(1e5, 1e7, 1e9);
  const double c = GENERATE(0.0, 28.0, 280.0, 2800.0);
  const kelvin_voigt_params p{k, c};
  REQUIRE_NOTHROW(p.validate());
  for (double v : {-10.0, -0.1, 0.0, 0.1, 10.0}) {
    CHECK(kelvin_voigt_force(p, 0.0, v) == 0.0);  // zero force at zero overlap
    CHECK(kelvin_voigt_force(p, -1e-6, v) == 0.0);
    double last = -1.0;
    for (int i = 1; i <= 100; ++i) {
      const double d = i * 1e-6;
      const double f = kelvin_voigt_force(p, d, v);
      CHECK(f >= 0.0);  // never pulls
      if (v >= 0) {
        CHECK(f > last);  // loading monotone in delta
        // unloading at the same speed never above loading
        CHECK(kelvin_voigt_force(p, d, -v) <= f);
      }
      last = f;
    }
  }
}

TEST_CASE("kelvin_voigt clips where eq. (12) would pull", "[contact]") {
  const kelvin_voigt_params p;
  CHECK(kelvin_voigt_force(p, 1e-5, -1e7 * 1e-5 / 280 * 1.01) == 0.0);
  CHECK(kelvin_voigt_force(p, 1e-5, -1e7 * 1e-5 / 280 * 0.99) > 0.0);
}

TEST_CASE("kelvin_voigt rejects bad parameters by name", "[contact]") {
  CHECK_THROWS_WITH((kelvin_voigt_params{0.0, 280}.validate()), Contains("stiffness = 0 N/m"));
  CHECK_THROWS_WITH((kelvin_voigt_params{1e7, -1}.validate()), Contains("damping = -1 N*s/m"));
}
