#include "contactuq/contact/contact_geometry.hpp"

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::contact {

double effective_modulus(double modulus_1, double poisson_1, double modulus_2, double poisson_2) {
  require(modulus_1 > 0 && std::isfinite(modulus_1), "modulus_1", modulus_1, "Pa",
          "positive and finite");
  require(modulus_2 > 0 && std::isfinite(modulus_2), "modulus_2", modulus_2, "Pa",
          "positive and finite");
  require(poisson_1 >= 0 && poisson_1 < 0.5, "poisson_1", poisson_1, "", "in [0, 0.5)");
  require(poisson_2 >= 0 && poisson_2 < 0.5, "poisson_2", poisson_2, "", "in [0, 0.5)");
  return 1.0 / ((1 - poisson_1 * poisson_1) / modulus_1 + (1 - poisson_2 * poisson_2) / modulus_2);
}

double effective_radius(double radius_1, double radius_2) {
  require(radius_1 > 0, "radius_1", radius_1, "m", "positive (inf for a flat)");
  require(radius_2 > 0, "radius_2", radius_2, "m", "positive (inf for a flat)");
  require(std::isfinite(radius_1) || std::isfinite(radius_2), "radius_2", radius_2, "m",
          "finite when radius_1 is a flat too");
  return 1.0 / (1.0 / radius_1 + 1.0 / radius_2);
}

double effective_mass(double mass_1, double mass_2) {
  require(mass_1 > 0, "mass_1", mass_1, "kg", "positive (inf for a fixed body)");
  require(mass_2 > 0, "mass_2", mass_2, "kg", "positive (inf for a fixed body)");
  require(std::isfinite(mass_1) || std::isfinite(mass_2), "mass_2", mass_2, "kg",
          "finite when mass_1 is infinite too");
  return 1.0 / (1.0 / mass_1 + 1.0 / mass_2);
}

double hertz_stiffness(double modulus, double radius) {
  require(modulus > 0 && std::isfinite(modulus), "modulus", modulus, "Pa", "positive and finite");
  require(radius > 0 && std::isfinite(radius), "radius", radius, "m", "positive and finite");
  return 4.0 / 3.0 * modulus * std::sqrt(radius);
}

double brinell_to_pascal(double brinell) {
  require(brinell > 0 && std::isfinite(brinell), "brinell_hardness", brinell, "kgf/mm^2",
          "positive and finite");
  return brinell * standard_gravity * 1e6;
}

double combined_hardness(double hardness_1, double hardness_2) {
  require(hardness_1 > 0 && std::isfinite(hardness_1), "hardness_1", hardness_1, "",
          "positive and finite");
  require(hardness_2 > 0 && std::isfinite(hardness_2), "hardness_2", hardness_2, "",
          "positive and finite");
  return std::min(hardness_1, hardness_2);
}

}  // namespace contactuq::contact
