#include "contactuq/contact/hysteresis_damping.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("hysteresis: (H) limits", "[contact][hysteresis]") {
  CHECK(hysteresis_restitution(0.0) == 1.0);
  // Small damping: e_out = 1 - 2/3 x + O(x^2) (the Hunt-Crossley linearisation).
  for (double x : {1e-3, 1e-4})
    CHECK((1 - hysteresis_restitution(x)) / x == Approx(2.0 / 3.0).epsilon(2 * x));
  // Heavy damping: e_out x -> 1 (the outgoing speed approaches 1/chi').
  CHECK(hysteresis_restitution(1e3) * 1e3 == Approx(1.0).epsilon(1e-2));
  // The root satisfies (H).
  for (double x : {0.01, 0.3, 1.0, 3.0}) {
    const double y = hysteresis_restitution(x) * x;
    CHECK(-y - std::log1p(-y) == Approx(x - std::log1p(x)).epsilon(1e-12));
  }
}

TEST_CASE("hysteresis: force clips at zero and records the impact velocity at first touch",
          "[contact][hysteresis]") {
  const hysteresis_damping_params p{1e10, 1.5, 0.5};
  CHECK(hysteresis_damping_force(p, 2.0, 1e-5, -0.6) == 0.0);
  CHECK(hysteresis_damping_force(p, 2.0, 1e-5, -0.4) == Approx(1e10 * std::pow(1e-5, 1.5) * 0.2));
  CHECK(hysteresis_damping_force(p, 2.0, 0.0, 5.0) == 0.0);
  hysteresis_damping_state s;
  CHECK(record_impact_velocity(s, -1e-6, 0.7) == 0.0);  // approaching, not yet touching
  CHECK(record_impact_velocity(s, 0.0, 0.7) == 0.7);    // first touch
  CHECK(record_impact_velocity(s, 1e-6, 0.2) == 0.7);   // kept through the contact
  CHECK(record_impact_velocity(s, 1e-6, -0.5) == 0.7);
  CHECK(record_impact_velocity(s, -1e-9, -0.5) == 0.0);  // separated: forgotten
  hysteresis_damping_state fresh;
  CHECK_THROWS_AS(record_impact_velocity(fresh, 1e-6, -0.5), contactuq::model_error);
}

TEST_CASE("hysteresis: bad parameters are named", "[contact][hysteresis]") {
  CHECK_THROWS_WITH((hysteresis_damping_params{1e9, 1.5, 0.0}.validate()),
                    Contains("restitution = 0"));
  CHECK_THROWS_WITH((hysteresis_damping_params{1e9, 1.5, 1.2}.validate()),
                    Contains("restitution = 1.2"));
  CHECK_THROWS_WITH((hysteresis_damping_params{0, 1.5, 0.5}.validate()), Contains("stiffness = 0"));
  CHECK_THROWS_WITH((hysteresis_damping_params{1e9, 0.9, 0.5}.validate()),
                    Contains("exponent = 0.9"));
}
