#include "contactuq/contact/johnson_cylinder.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("johnson_cylinder: radius difference of eq. (30)", "[contact][johnson_cylinder]") {
  // Skrinjar Table 2: slot end radius 2.5 mm around a 2.45 mm pin.
  CHECK(johnson_radius_difference(2.5e-3, 2.45e-3, cylinder_contact::internal) == Approx(0.05e-3));
  CHECK(johnson_radius_difference(2.5e-3, 2.45e-3, cylinder_contact::external) == Approx(4.95e-3));
  CHECK_THROWS_WITH(johnson_radius_difference(2e-3, 3e-3, cylinder_contact::internal),
                    Contains("radius_i = 0.002 m") && Contains("pin"));
}

TEST_CASE("johnson_cylinder: the solve inverts eq. (28) over its whole range",
          "[contact][johnson_cylinder]") {
  const double modulus = GENERATE(39.3e9, 115e9);  // aluminium pair of Skrinjar Table 3, steel pair
  const double dr = GENERATE(0.05e-3, 5e-3, 0.1);
  const johnson_cylinder_params p{modulus, dr, 0.01};
  REQUIRE_NOTHROW(p.validate());
  const double max_overlap = johnson_cylinder_max_overlap(p);
  CHECK(max_overlap == Approx(4 * dr / (std::numbers::e * std::numbers::e)));
  CHECK(johnson_cylinder_force(p, 0.0) == 0.0);
  CHECK(johnson_cylinder_force(p, -1e-6) == 0.0);
  double last = 0.0;
  for (int i = 0; i <= 300; ++i) {
    const double s = std::pow(10.0, -14.0 + 14.0 * i / 300);  // delta / delta*
    const auto sol = johnson_cylinder_solve(p, s * max_overlap);
    REQUIRE(sol.status == johnson_status::converged);
    CHECK(sol.iterations <= 60);
    CHECK(sol.force > last);  // monotone loading
    CHECK(johnson_cylinder_overlap(p, sol.force) == Approx(s * max_overlap).epsilon(1e-10));
    last = sol.force;
  }
  // Continuous from zero: the force per unit length at delta* is f* = 4 pi E dR / e^2.
  CHECK(last ==
        Approx(4 * std::numbers::pi * modulus * dr / (std::numbers::e * std::numbers::e) * 0.01)
            .epsilon(1e-10));
  CHECK(johnson_cylinder_force(p, 1e-15 * max_overlap) < 1e-12 * last);
}

TEST_CASE("johnson_cylinder: overlap beyond delta* is reported, not guessed",
          "[contact][johnson_cylinder]") {
  const johnson_cylinder_params p{115e9, 1e-3, 0.01};
  const double too_far = 1.01 * johnson_cylinder_max_overlap(p);
  CHECK(johnson_cylinder_solve(p, too_far).status == johnson_status::overlap_too_large);
  CHECK_THROWS_AS(johnson_cylinder_force(p, too_far), contactuq::model_error);
  CHECK_THROWS_WITH(johnson_cylinder_force(p, too_far), Contains("exceeds") && Contains("delta*"));
}

TEST_CASE("johnson_cylinder rejects bad parameters by name", "[contact][johnson_cylinder]") {
  CHECK_THROWS_WITH((johnson_cylinder_params{0, 1e-3, 0.01}.validate()),
                    Contains("modulus = 0 Pa"));
  CHECK_THROWS_WITH((johnson_cylinder_params{1e11, -1e-3, 0.01}.validate()),
                    Contains("radius_difference = -0.001 m"));
  CHECK_THROWS_WITH((johnson_cylinder_params{1e11, 1e-3, 0}.validate()), Contains("length = 0 m"));
}
