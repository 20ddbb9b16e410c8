#include "contactuq/error.hpp"

#include <fmt/format.h>

namespace contactuq {

std::string format_value(double value) { return fmt::format("{}", value); }

void require(bool ok, const std::string& field, double value, const char* unit,
             const char* requirement) {
  if (ok) return;
  const std::string with_unit = *unit ? fmt::format("{} {}", value, unit) : format_value(value);
  throw parameter_error(field, fmt::format("{} = {}: must be {}", field, with_unit, requirement));
}

}  // namespace contactuq
