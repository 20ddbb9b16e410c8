#include "contactuq/contact/gonthier.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("gonthier: chi' of the published law", "[contact][gonthier]") {
  for (double e : {0.3, 0.5, 0.9, 1.0}) {
    for (double v0 : {0.01, 1.0, 10.0})
      CHECK(gonthier_chi(e, v0) == Approx((1 - e * e) / (e * v0)).epsilon(1e-15));
  }
  CHECK(gonthier_chi(1.0, 2.0) == 0.0);
}

TEST_CASE("gonthier: delivered restitution against the exact relation (H)", "[contact][gonthier]") {
  // Right limit as e -> 0 (chi' v0 -> 1/e), within 5 % over e in [0.3, 0.95].
  CHECK(hysteresis_restitution(gonthier_chi(0.01, 1.0)) == Approx(0.01).epsilon(0.01));
  for (double e : {0.3, 0.5, 0.7, 0.9, 0.95})
    CHECK(hysteresis_restitution(gonthier_chi(e, 1.0)) == Approx(e).epsilon(0.05));
  CHECK(hysteresis_restitution(gonthier_chi(0.9, 1.0)) == Approx(0.8764).margin(2e-4));
}

TEST_CASE("gonthier invariants over a parameter grid", "[contact][gonthier]") {
  const double k = GENERATE(1e8, 1e10);
  const double n = GENERATE(1.0, 1.5);
  const double e = GENERATE(0.3, 0.7, 1.0);
  const double v0 = GENERATE(0.01, 1.0);
  const gonthier_params p{k, n, e};
  REQUIRE_NOTHROW(p.validate());
  gonthier_state s;
  CHECK(gonthier_force(p, 0.0, v0, s) == 0.0);  // first touch: zero force, v0 recorded
  CHECK(s.impact_velocity == v0);
  for (double v : {-2 * v0, -v0, -0.1 * v0, 0.0, 0.5 * v0, v0})
    CHECK(gonthier_force(p, 0.0, v, v0) == 0.0);
  const double d_scale = std::pow(v0 * v0 * 1e-2 / k, 1 / (n + 1));
  double last = 0.0;
  for (int i = 1; i <= 100; ++i) {
    const double d = d_scale * i / 50.0;
    const double loading = gonthier_force(p, d, 0.5 * v0, v0);
    CHECK(loading > last);  // monotone
    last = loading;
    for (double v : {-v0, -0.5 * v0, -0.01 * v0}) {
      const double unloading = gonthier_force(p, d, v, v0);
      CHECK(unloading >= 0.0);                           // never pulls
      CHECK(unloading <= gonthier_force(p, d, -v, v0));  // unloading never above loading
    }
  }
  // Continuous at first touch: F -> 0 as delta -> 0 at any rate.
  CHECK(gonthier_force(p, 1e-12 * d_scale, v0, v0) <= 1e-9 * gonthier_force(p, d_scale, v0, v0));
}

TEST_CASE("gonthier: bad parameters are named", "[contact][gonthier]") {
  CHECK_THROWS_WITH(gonthier_chi(0.0, 1.0), Contains("restitution = 0"));
  CHECK_THROWS_WITH(gonthier_chi(0.5, -1.0), Contains("impact_velocity = -1 m/s"));
  CHECK_THROWS_WITH((gonthier_params{1e9, 1.5, 1.5}.validate()), Contains("restitution = 1.5"));
}
