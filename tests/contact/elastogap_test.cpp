#include "contactuq/contact/elastogap.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("elastogap: bounded damper never pulls and never jumps", "[contact][elastogap]") {
  const double c = GENERATE(1e6, 1e10);
  const double d = GENERATE(0.0, 50.0, 5000.0);
  const double n = GENERATE(1.0, 1.5);
  const elastogap_params p{c, d, n};
  REQUIRE_NOTHROW(p.validate());
  for (double v : {-100.0, -1.0, -0.01, 0.0, 0.01, 1.0, 100.0}) {
    CHECK(elastogap_force(p, 0.0, v) == 0.0);
    CHECK(elastogap_force(p, 1e-14, v) <= 2 * c * std::pow(1e-14, n));  // no jump at touch
    double last = -1.0;
    for (int i = 1; i <= 100; ++i) {
      const double delta = i * 1e-7;
      const double f = elastogap_force(p, delta, v);
      const double f_c = c * std::pow(delta, n);
      CHECK(f >= 0.0);
      CHECK(f <= 2 * f_c * (1 + 1e-15));
      CHECK(f == Approx(f_c + std::clamp(d * v, -f_c, f_c)));
      if (v >= 0) {
        CHECK(f > last);
        CHECK(elastogap_force(p, delta, -v) <= f);
      }
      last = f;
    }
  }
}

TEST_CASE("elastogap: the naive variants show the two defects the bound removes",
          "[contact][elastogap]") {
  const elastogap_params p{1e8, 500.0, 1.0};
  // Unbounded: pulls late in restitution, and jumps to d v at first touch.
  CHECK(elastogap_unbounded_force(p, 1e-6, -1.0) == Approx(100 - 500));
  CHECK(elastogap_unbounded_force(p, 1e-15, 1.0) == Approx(500).epsilon(1e-6));
  // Clipped: no pull, but the jump at touch remains.
  CHECK(elastogap_clipped_force(p, 1e-6, -1.0) == 0.0);
  CHECK(elastogap_clipped_force(p, 1e-15, 1.0) == Approx(500).epsilon(1e-6));
  CHECK(elastogap_force(p, 1e-15, 1.0) < 1e-6);
  // Where |d v| <= c delta^n all three agree.
  CHECK(elastogap_force(p, 1e-5, 0.5) == Approx(elastogap_unbounded_force(p, 1e-5, 0.5)));
  CHECK(elastogap_force(p, 1e-5, -0.5) == Approx(elastogap_clipped_force(p, 1e-5, -0.5)));
}

TEST_CASE("elastogap rejects bad parameters by name", "[contact][elastogap]") {
  CHECK_THROWS_WITH((elastogap_params{0, 1, 1}.validate()), Contains("stiffness = 0"));
  CHECK_THROWS_WITH((elastogap_params{1e6, -1, 1}.validate()), Contains("damping = -1 N*s/m"));
  CHECK_THROWS_WITH((elastogap_params{1e6, 1, 0.5}.validate()), Contains("exponent = 0.5"));
}
