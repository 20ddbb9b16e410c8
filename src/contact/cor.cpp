#include "contactuq/contact/cor.hpp"

#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::contact {

void cor_params::validate() const {
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
}

cor_velocities cor_impact(const cor_params& params, double mass_1, double mass_2, double velocity_1,
                          double velocity_2) {
  params.validate();
  require(mass_1 > 0, "mass_1", mass_1, "kg", "positive (inf for a fixed body)");
  require(mass_2 > 0, "mass_2", mass_2, "kg", "positive (inf for a fixed body)");
  require(std::isfinite(mass_1) || std::isfinite(mass_2), "mass_2", mass_2, "kg",
          "finite when mass_1 is infinite too");
  const double e = params.restitution;
  // Eq. (11) divided through by the total mass, so that an infinite mass is the limit
  // mu_i = m_i/(m1 + m2) -> 1 or 0.
  const double mu_1 = std::isinf(mass_1)   ? 1.0
                      : std::isinf(mass_2) ? 0.0
                                           : mass_1 / (mass_1 + mass_2);
  const double mu_2 = 1.0 - mu_1;
  const double common = mu_1 * velocity_1 + mu_2 * velocity_2;
  return {common + mu_2 * e * (velocity_2 - velocity_1),
          common + mu_1 * e * (velocity_1 - velocity_2)};
}

}  // namespace contactuq::contact
