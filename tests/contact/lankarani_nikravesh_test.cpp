#include "contactuq/contact/lankarani_nikravesh.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("lankarani_nikravesh: chi' of the published law", "[contact][lankarani_nikravesh]") {
  for (double e : {0.3, 0.5, 0.9, 1.0}) {
    for (double v0 : {0.01, 1.0, 10.0})
      CHECK(lankarani_nikravesh_chi(e, v0) == Approx(3 * (1 - e * e) / (4 * v0)).epsilon(1e-15));
  }
  CHECK(lankarani_nikravesh_chi(1.0, 2.0) == 0.0);
}

TEST_CASE("lankarani_nikravesh: delivered restitution against the exact relation (H)",
          "[contact][lankarani_nikravesh]") {
  // Skrinjar eq. (27) is the same law written out.
  const lankarani_nikravesh_params p{2e9, 1.5, 0.6};
  CHECK(lankarani_nikravesh_force(p, 1e-5, 0.3, 0.8) ==
        Approx(2e9 * std::pow(1e-5, 1.5) * (1 + 0.75 * 0.3 / 0.8 * (1 - 0.36))).epsilon(1e-14));
  // Valid near e = 1 only, as derived: within 0.5 % for e >= 0.95, 1.5 % at 0.9, 45 % off at 0.5.
  for (double e : {0.95, 0.98, 0.995})
    CHECK(hysteresis_restitution(lankarani_nikravesh_chi(e, 1.0)) == Approx(e).epsilon(0.005));
  CHECK(hysteresis_restitution(lankarani_nikravesh_chi(0.9, 1.0)) == Approx(0.9132).margin(2e-4));
  CHECK(hysteresis_restitution(lankarani_nikravesh_chi(0.5, 1.0)) == Approx(0.7252).margin(2e-4));
}

TEST_CASE("lankarani_nikravesh invariants over a parameter grid",
          "[contact][lankarani_nikravesh]") {
  const double k = GENERATE(1e8, 1e10);
  const double n = GENERATE(1.0, 1.5);
  const double e = GENERATE(0.3, 0.7, 1.0);
  const double v0 = GENERATE(0.01, 1.0);
  const lankarani_nikravesh_params p{k, n, e};
  REQUIRE_NOTHROW(p.validate());
  lankarani_nikravesh_state s;
  CHECK(lankarani_nikravesh_force(p, 0.0, v0, s) == 0.0);  // first touch: zero force, v0 recorded
  CHECK(s.impact_velocity == v0);
  for (double v : {-2 * v0, -v0, -0.1 * v0, 0.0, 0.5 * v0, v0})
    CHECK(lankarani_nikravesh_force(p, 0.0, v, v0) == 0.0);
  const double d_scale = std::pow(v0 * v0 * 1e-2 / k, 1 / (n + 1));
  double last = 0.0;
  for (int i = 1; i <= 100; ++i) {
    const double d = d_scale * i / 50.0;
    const double loading = lankarani_nikravesh_force(p, d, 0.5 * v0, v0);
    CHECK(loading > last);  // monotone
    last = loading;
    for (double v : {-v0, -0.5 * v0, -0.01 * v0}) {
      const double unloading = lankarani_nikravesh_force(p, d, v, v0);
      CHECK(unloading >= 0.0);                                      // never pulls
      CHECK(unloading <= lankarani_nikravesh_force(p, d, -v, v0));  // unloading never above loading
    }
  }
  // Continuous at first touch: F -> 0 as delta -> 0 at any rate.
  CHECK(lankarani_nikravesh_force(p, 1e-12 * d_scale, v0, v0) <=
        1e-9 * lankarani_nikravesh_force(p, d_scale, v0, v0));
}

TEST_CASE("lankarani_nikravesh: bad parameters are named", "[contact][lankarani_nikravesh]") {
  CHECK_THROWS_WITH(lankarani_nikravesh_chi(0.0, 1.0), Contains("restitution = 0"));
  CHECK_THROWS_WITH(lankarani_nikravesh_chi(0.5, -1.0), Contains("impact_velocity = -1 m/s"));
  CHECK_THROWS_WITH((lankarani_nikravesh_params{1e9, 1.5, 1.5}.validate()),
                    Contains("restitution = 1.5"));
}
