#include "contactuq/contact/friction.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("friction: Coulomb eq. (31) opposes sliding", "[contact][friction]") {
  const coulomb_params p{0.51};  // Skrinjar Table 3
  CHECK(coulomb_friction_force(p, 10.0, 0.2) == Approx(-5.1));
  CHECK(coulomb_friction_force(p, 10.0, -1e-9) == Approx(5.1));
  CHECK(coulomb_friction_force(p, 10.0, 0.0) == 0.0);
}

TEST_CASE("friction: Williams eq. (1.84) is smooth and tends to Coulomb", "[contact][friction]") {
  const regularized_coulomb_params p{0.21, 1e-3};
  CHECK(regularized_friction_coefficient(p, 0.0) == 0.0);
  // 98.7 % of mu at v = v_t ("98 %" in the listing's comment), antisymmetric.
  CHECK(regularized_friction_coefficient(p, 1e-3) == Approx(0.21 * std::tanh(2.5)));
  CHECK(regularized_friction_coefficient(p, 1e-3) / 0.21 > 0.98);
  CHECK(regularized_friction_coefficient(p, -3e-4) ==
        Approx(-regularized_friction_coefficient(p, 3e-4)));
  const coulomb_params c{0.21};
  for (double v : {-1.0, -0.1, 0.05, 2.0})
    CHECK(regularized_friction_force(p, 3.0, v) ==
          Approx(coulomb_friction_force(c, 3.0, v)).epsilon(1e-12));
  // Slope at zero 2.5 mu / v_t: no jump.
  CHECK(regularized_friction_coefficient(p, 1e-9) / 1e-9 ==
        Approx(2.5 * 0.21 / 1e-3).epsilon(1e-6));
}

TEST_CASE("friction rejects bad parameters by name", "[contact][friction]") {
  CHECK_THROWS_WITH((coulomb_params{-0.1}.validate()), Contains("friction_coefficient = -0.1"));
  CHECK_THROWS_WITH((regularized_coulomb_params{0.2, 0.0}.validate()),
                    Contains("transition_velocity = 0 m/s"));
}
