#include "contactuq/contact/kelvin_voigt_cr.hpp"

#include <catch2/catch.hpp>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("kelvin_voigt_cr: eq. (24) and its invariants", "[contact][kelvin_voigt_cr]") {
  const double k = GENERATE(1e5, 1e8);
  const double cr = GENERATE(0.2, 0.4, 1.0);
  const kelvin_voigt_cr_params p{k, cr};
  REQUIRE_NOTHROW(p.validate());
  CHECK(kelvin_voigt_cr_force(p, 2e-6, 0.1) == Approx(k * 2e-6));
  CHECK(kelvin_voigt_cr_force(p, 2e-6, 0.0) == Approx(k * 2e-6));  // v_n >= 0 is approach
  CHECK(kelvin_voigt_cr_force(p, 2e-6, -0.1) == Approx(k * 2e-6 * cr));
  double last = 0.0;
  for (int i = 0; i <= 100; ++i) {
    const double d = i * 1e-7;
    for (double v : {-1.0, 0.0, 1.0}) CHECK(kelvin_voigt_cr_force(p, d, v) >= 0.0);
    CHECK(kelvin_voigt_cr_force(p, d, -1.0) <= kelvin_voigt_cr_force(p, d, 1.0));
    if (i > 0) CHECK(kelvin_voigt_cr_force(p, d, 1.0) > last);
    last = kelvin_voigt_cr_force(p, d, 1.0);
  }
  CHECK(kelvin_voigt_cr_force(p, 0.0, 1.0) == 0.0);
  CHECK(kelvin_voigt_cr_force(p, -1e-6, -1.0) == 0.0);
}

TEST_CASE("kelvin_voigt_cr rejects bad parameters by name", "[contact][kelvin_voigt_cr]") {
  CHECK_THROWS_WITH((kelvin_voigt_cr_params{1e6, 0.0}.validate()), Contains("restitution = 0"));
  CHECK_THROWS_WITH((kelvin_voigt_cr_params{0.0, 0.4}.validate()), Contains("stiffness = 0 N/m"));
}
