#include "contactuq/multibody/constraint.hpp"

namespace contactuq::multibody {

std::size_t constraint_rows(const constraint& c) {
  return std::holds_alternative<fixed_body>(c) ? 3 : 2;
}

}  // namespace contactuq::multibody
