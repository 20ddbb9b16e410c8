#include "contactuq/contact/contact_geometry.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

TEST_CASE("effective modulus and radius follow Brake 2014 appendix", "[contact]") {
  // Two steel bodies, E = 210 GPa, nu = 0.3: E = E1 / (2 (1 - nu^2)).
  CHECK(effective_modulus(210e9, 0.3, 210e9, 0.3) == Approx(210e9 / (2 * 0.91)).epsilon(1e-14));
  // Steel on aluminium: (0.91/210e9 + (1 - 0.33^2)/69e9)^-1.
  CHECK(effective_modulus(210e9, 0.3, 69e9, 0.33) ==
        Approx(1 / (0.91 / 210e9 + 0.8911 / 69e9)).epsilon(1e-14));
  CHECK(effective_radius(0.01, 0.01) == Approx(0.005).epsilon(1e-15));
  CHECK(effective_radius(0.01, flat_radius) == 0.01);
  CHECK(effective_radius(flat_radius, 0.004) == 0.004);
  CHECK(effective_mass(2.0, 2.0) == Approx(1.0).epsilon(1e-15));
  CHECK(effective_mass(0.3, std::numeric_limits<double>::infinity()) == 0.3);
}

TEST_CASE("Hertz stiffness equals Skrinjar eq. (22) for two spheres", "[contact]") {
  const auto [e_i, nu_i, e_j, nu_j, r_i, r_j] =
      GENERATE(table<double, double, double, double, double, double>({
          {210e9, 0.30, 210e9, 0.30, 0.010, 0.010},
          {69e9, 0.33, 210e9, 0.29, 0.0025, 0.050},
          {110e9, 0.34, 128e9, 0.30, 0.001, 0.002},
      }));
  const double h_i = (1 - nu_i * nu_i) / e_i;  // eq. (23)
  const double h_j = (1 - nu_j * nu_j) / e_j;
  const double k_22 = 4.0 / (3 * (h_i + h_j)) * std::sqrt(r_i * r_j / (r_i + r_j));  // eq. (22)
  CHECK(hertz_stiffness(effective_modulus(e_i, nu_i, e_j, nu_j), effective_radius(r_i, r_j)) ==
        Approx(k_22).epsilon(1e-13));
}

TEST_CASE("hardness of the pair and Brinell conversion", "[contact]") {
  CHECK(brinell_to_pascal(200) == Approx(200 * 9.80665e6).epsilon(1e-15));
  CHECK(combined_hardness(200, 200) == Approx(200).epsilon(1e-15));  // equal bodies: H
  // Unlike bodies: the softer one flows, so the pair is never harder than it.
  CHECK(combined_hardness(100, 300) == 100);
  CHECK(combined_hardness(300, 100) == 100);
  for (double ratio : {1.0, 1.5, 3.0, 10.0}) CHECK(combined_hardness(150, 150 * ratio) <= 150);
}

TEST_CASE("bad geometry names the parameter", "[contact]") {
  CHECK_THROWS_AS(effective_modulus(-1, 0.3, 210e9, 0.3), contactuq::parameter_error);
  CHECK_THROWS_WITH(effective_modulus(-1, 0.3, 210e9, 0.3), Contains("modulus_1 = -1 Pa"));
  CHECK_THROWS_WITH(effective_modulus(210e9, 0.5, 210e9, 0.3), Contains("poisson_1 = 0.5"));
  CHECK_THROWS_WITH(effective_modulus(210e9, 0.3, 210e9, -0.1), Contains("poisson_2 = -0.1"));
  CHECK_THROWS_WITH(effective_radius(0.0, 0.01), Contains("radius_1 = 0 m"));
  CHECK_THROWS_WITH(effective_radius(flat_radius, flat_radius), Contains("radius_2"));
  CHECK_THROWS_WITH(effective_mass(0.1, -2), Contains("mass_2 = -2 kg"));
  CHECK_THROWS_WITH(brinell_to_pascal(0), Contains("brinell_hardness"));
}
