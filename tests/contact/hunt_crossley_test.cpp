#include "contactuq/contact/hunt_crossley.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("hunt_crossley: chi' of the published law", "[contact][hunt_crossley]") {
  for (double e : {0.3, 0.5, 0.9, 1.0}) {
    for (double v0 : {0.01, 1.0, 10.0})
      CHECK(hunt_crossley_chi(e, v0) == Approx(3 * (1 - e) / (2 * v0)).epsilon(1e-15));
  }
  CHECK(hunt_crossley_chi(1.0, 2.0) == 0.0);
}

TEST_CASE("hunt_crossley: delivered restitution against the exact relation (H)",
          "[contact][hunt_crossley]") {
  // Hunt and Crossley linearise for small damping: the error in e is second order in (1 - e).
  for (double e : {0.99, 0.999}) {
    const double delivered = hysteresis_restitution(hunt_crossley_chi(e, 1.0));
    CHECK(std::abs(delivered - e) < 0.5 * (1 - e) * (1 - e) * 10);
    CHECK(std::abs(delivered - e) > 0.0);
  }
  // ... and only there: at e = 0.5 the delivered restitution is 0.663.
  CHECK(hysteresis_restitution(hunt_crossley_chi(0.5, 1.0)) == Approx(0.663).margin(0.001));
}

TEST_CASE("hunt_crossley invariants over a parameter grid", "[contact][hunt_crossley]") {
  const double k = GENERATE(1e8, 1e10);
  const double n = GENERATE(1.0, 1.5);
  const double e = GENERATE(0.3, 0.7, 1.0);
  const double v0 = GENERATE(0.01, 1.0);
  const hunt_crossley_params p{k, n, e};
  REQUIRE_NOTHROW(p.validate());
  hunt_crossley_state s;
  CHECK(hunt_crossley_force(p, 0.0, v0, s) == 0.0);  // first touch: zero force, v0 recorded
  CHECK(s.impact_velocity == v0);
  for (double v : {-2 * v0, -v0, -0.1 * v0, 0.0, 0.5 * v0, v0})
    CHECK(hunt_crossley_force(p, 0.0, v, v0) == 0.0);
  const double d_scale = std::pow(v0 * v0 * 1e-2 / k, 1 / (n + 1));
  double last = 0.0;
  for (int i = 1; i <= 100; ++i) {
    const double d = d_scale * i / 50.0;
    const double loading = hunt_crossley_force(p, d, 0.5 * v0, v0);
    CHECK(loading > last);  // monotone
    last = loading;
    for (double v : {-v0, -0.5 * v0, -0.01 * v0}) {
      const double unloading = hunt_crossley_force(p, d, v, v0);
      CHECK(unloading >= 0.0);                                // never pulls
      CHECK(unloading <= hunt_crossley_force(p, d, -v, v0));  // unloading never above loading
    }
  }
  // Continuous at first touch: F -> 0 as delta -> 0 at any rate.
  CHECK(hunt_crossley_force(p, 1e-12 * d_scale, v0, v0) <=
        1e-9 * hunt_crossley_force(p, d_scale, v0, v0));
}

TEST_CASE("hunt_crossley: bad parameters are named", "[contact][hunt_crossley]") {
  CHECK_THROWS_WITH(hunt_crossley_chi(0.0, 1.0), Contains("restitution = 0"));
  CHECK_THROWS_WITH(hunt_crossley_chi(0.5, -1.0), Contains("impact_velocity = -1 m/s"));
  CHECK_THROWS_WITH((hunt_crossley_params{1e9, 1.5, 1.5}.validate()),
                    Contains("restitution = 1.5"));
}
