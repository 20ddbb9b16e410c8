#include "contactuq/contact/hertz.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("hertz: F = K delta^n of eq. (21)", "[contact][hertz]") {
  const hertz_params p{1.5e10, 1.5};
  CHECK(hertz_force(p, 1e-6) == Approx(1.5e10 * 1e-9).epsilon(1e-14));
  CHECK(hertz_force(p, 4e-6) == Approx(8 * 1.5e10 * 1e-9).epsilon(1e-14));
  const hertz_params plates{2e8, 1.0};
  CHECK(hertz_force(plates, 3e-6) == Approx(600).epsilon(1e-14));
}

TEST_CASE("hertz invariants over a parameter grid", "[contact][hertz]") {
  const double k = GENERATE(1e6, 1e9, 1.5e10);
  const double n = GENERATE(1.0, 1.5, 2.2);
  const hertz_params p{k, n};
  REQUIRE_NOTHROW(p.validate());
  CHECK(hertz_force(p, 0.0) == 0.0);
  CHECK(hertz_force(p, -1e-6) == 0.0);
  double last = 0.0;
  for (int i = 1; i <= 200; ++i) {  // monotone loading, continuous from zero
    const double f = hertz_force(p, i * 1e-7);
    CHECK(f > last);
    last = f;
  }
  CHECK(hertz_force(p, 1e-15) <= 1e-9 * hertz_force(p, 1e-5));  // continuous from zero
}

TEST_CASE("hertz rejects bad parameters by name", "[contact][hertz]") {
  CHECK_THROWS_WITH((hertz_params{0.0, 1.5}.validate()), Contains("stiffness = 0"));
  CHECK_THROWS_WITH((hertz_params{1e9, 0.5}.validate()), Contains("exponent = 0.5"));
  CHECK_THROWS_AS((hertz_params{-1.0, 1.5}.validate()), contactuq::parameter_error);
}
