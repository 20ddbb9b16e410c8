#include "contactuq/contact/flores.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("flores: chi' of the published law", "[contact][flores]") {
  for (double e : {0.3, 0.5, 0.9, 1.0}) {
    for (double v0 : {0.01, 1.0, 10.0})
      CHECK(flores_chi(e, v0) == Approx(8 * (1 - e) / (5 * e * v0)).epsilon(1e-15));
  }
  CHECK(flores_chi(1.0, 2.0) == 0.0);
}

TEST_CASE("flores: delivered restitution against the exact relation (H)", "[contact][flores]") {
  // Within a few percent for e >= 0.7; the deviation grows to -15 % at e = 0.3.
  for (double e : {0.7, 0.8, 0.9, 0.95, 0.99})
    CHECK(hysteresis_restitution(flores_chi(e, 1.0)) == Approx(e).epsilon(0.025));
  CHECK(hysteresis_restitution(flores_chi(0.5, 1.0)) / 0.5 - 1 == Approx(-0.059).margin(0.001));
  CHECK(hysteresis_restitution(flores_chi(0.3, 1.0)) / 0.3 - 1 == Approx(-0.146).margin(0.001));
}

TEST_CASE("flores invariants over a parameter grid", "[contact][flores]") {
  const double k = GENERATE(1e8, 1e10);
  const double n = GENERATE(1.0, 1.5);
  const double e = GENERATE(0.3, 0.7, 1.0);
  const double v0 = GENERATE(0.01, 1.0);
  const flores_params p{k, n, e};
  REQUIRE_NOTHROW(p.validate());
  flores_state s;
  CHECK(flores_force(p, 0.0, v0, s) == 0.0);  // first touch: zero force, v0 recorded
  CHECK(s.impact_velocity == v0);
  for (double v : {-2 * v0, -v0, -0.1 * v0, 0.0, 0.5 * v0, v0})
    CHECK(flores_force(p, 0.0, v, v0) == 0.0);
  const double d_scale = std::pow(v0 * v0 * 1e-2 / k, 1 / (n + 1));
  double last = 0.0;
  for (int i = 1; i <= 100; ++i) {
    const double d = d_scale * i / 50.0;
    const double loading = flores_force(p, d, 0.5 * v0, v0);
    CHECK(loading > last);  // monotone
    last = loading;
    for (double v : {-v0, -0.5 * v0, -0.01 * v0}) {
      const double unloading = flores_force(p, d, v, v0);
      CHECK(unloading >= 0.0);                         // never pulls
      CHECK(unloading <= flores_force(p, d, -v, v0));  // unloading never above loading
    }
  }
  // Continuous at first touch: F -> 0 as delta -> 0 at any rate.
  CHECK(flores_force(p, 1e-12 * d_scale, v0, v0) <= 1e-9 * flores_force(p, d_scale, v0, v0));
}

TEST_CASE("flores: bad parameters are named", "[contact][flores]") {
  CHECK_THROWS_WITH(flores_chi(0.0, 1.0), Contains("restitution = 0"));
  CHECK_THROWS_WITH(flores_chi(0.5, -1.0), Contains("impact_velocity = -1 m/s"));
  CHECK_THROWS_WITH((flores_params{1e9, 1.5, 1.5}.validate()), Contains("restitution = 1.5"));
}
