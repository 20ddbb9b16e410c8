#include "contactuq/model/material_inputs.hpp"

#include <fmt/format.h>

#include <cmath>

#include "contactuq/error.hpp"
#include "contactuq/model/physical_limit.hpp"

namespace contactuq::model {
namespace u = units;

// validate_body()'s bounds, with generous upper ones (physical_limit.hpp).
const std::array<material_input, 4>& material_inputs() {
  static const std::array<material_input, 4> table = {{
      {"modulus", u::pressure, [](const contact::material& m) { return m.modulus; },
       [](contact::material& m, double v) { m.modulus = v; }, positive_up_to(physical_limit::modulus)},
      {"poisson", u::dimensionless, [](const contact::material& m) { return m.poisson; },
       [](contact::material& m, double v) { m.poisson = v; }, {0.0, 0.5, false, true}},
      {"yield_strength", u::pressure, [](const contact::material& m) { return m.yield_strength; },
       [](contact::material& m, double v) { m.yield_strength = v; }, positive_up_to(physical_limit::strength)},
      // Pa in and out: the material holds it in Pa, so the law gets the input's double unchanged.
      {"hardness", u::pressure, [](const contact::material& m) { return m.hardness; },
       [](contact::material& m, double v) { m.hardness = v; },
       positive_up_to(physical_limit::strength)},
  }};
  return table;
}

void validate_body(const contact::material& m, const std::string& prefix) {
  auto finite_positive = [&](double v, const char* field, const char* unit) {
    require(std::isfinite(v) && v > 0, fmt::format("{}{}", prefix, field), v, unit, "positive and finite");
  };
  finite_positive(m.modulus, "modulus", "Pa");
  require(m.poisson >= 0 && m.poisson < 0.5, fmt::format("{}poisson", prefix), m.poisson, "", "in [0, 0.5)");
  finite_positive(m.yield_strength, "yield_strength", "Pa");
  finite_positive(m.hardness, "hardness", "Pa");
}

}  // namespace contactuq::model
