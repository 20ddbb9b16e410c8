#include "contactuq/contact/cor.hpp"

#include <catch2/catch.hpp>
#include <limits>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("cor: eq. (11) conserves momentum and reverses the relative velocity by e", "[contact]") {
  const double e = GENERATE(0.1, 0.5, 0.9, 1.0);
  const auto [m1, m2, v1, v2] = GENERATE(table<double, double, double, double>({
      {1.0, 1.0, 2.0, 0.0},
      {0.2, 3.0, 1.5, -0.5},
      {5.0, 0.01, 0.3, 0.0},
  }));
  const auto out = cor_impact(cor_params{e}, m1, m2, v1, v2);
  CHECK(m1 * out.velocity_1 + m2 * out.velocity_2 == Approx(m1 * v1 + m2 * v2).epsilon(1e-14));
  CHECK(out.velocity_1 - out.velocity_2 == Approx(-e * (v1 - v2)).epsilon(1e-14));
  // Energy lost: 1/2 m (1 - e^2) (v1 - v2)^2 with the effective mass.
  const double before = 0.5 * (m1 * v1 * v1 + m2 * v2 * v2);
  const double after =
      0.5 * (m1 * out.velocity_1 * out.velocity_1 + m2 * out.velocity_2 * out.velocity_2);
  const double m = m1 * m2 / (m1 + m2);
  CHECK(before - after == Approx(0.5 * m * (1 - e * e) * (v1 - v2) * (v1 - v2)).margin(1e-12));
}

TEST_CASE("cor: equal masses with e = 1 exchange velocities and a fixed flat keeps still",
          "[contact]") {
  const auto swap = cor_impact(cor_params{1.0}, 1.0, 1.0, 3.0, -1.0);
  CHECK(swap.velocity_1 == Approx(-1.0));
  CHECK(swap.velocity_2 == Approx(3.0));
  const auto wall =
      cor_impact(cor_params{0.6}, 0.5, std::numeric_limits<double>::infinity(), 2.0, 0.0);
  CHECK(wall.velocity_1 == Approx(-1.2));
  CHECK(wall.velocity_2 == 0.0);
}

TEST_CASE("cor rejects e outside 0 < e <= 1 and bad masses by name", "[contact]") {
  for (double e : {0.0, -0.2, 1.01}) {
    CHECK_THROWS_AS(cor_params{e}.validate(), contactuq::parameter_error);
    CHECK_THROWS_WITH(cor_params{e}.validate(), Contains("restitution") && Contains("(0, 1]"));
  }
  CHECK_THROWS_WITH(cor_impact(cor_params{0.5}, 0.0, 1.0, 1.0, 0.0), Contains("mass_1 = 0 kg"));
  CHECK_THROWS_WITH(cor_impact(cor_params{0.5}, 1.0, -1.0, 1.0, 0.0), Contains("mass_2 = -1 kg"));
}
