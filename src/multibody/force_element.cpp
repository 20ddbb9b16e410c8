#include "contactuq/multibody/force_element.hpp"

#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

namespace contactuq::multibody {

void half_sine_pulse::validate() const {
  require(std::isfinite(amplitude), "force_amplitude", amplitude, "N", "finite");
  require(duration > 0 && std::isfinite(duration), "force_duration", duration, "s",
          "positive and finite");
}

double half_sine_pulse::operator()(double t) const {
  if (t < 0 || t > duration) return 0.0;
  return amplitude * std::sin(std::numbers::pi * t / duration);  // eq. (34)
}

void ground_spring::validate() const {
  require(stiffness >= 0 && std::isfinite(stiffness), "spring_stiffness", stiffness, "N/m",
          "non-negative and finite");
  require(free_length >= 0 && std::isfinite(free_length), "spring_free_length", free_length, "m",
          "non-negative and finite");
  require(damping >= 0 && std::isfinite(damping), "spring_damping", damping, "N*s/m",
          "non-negative and finite");
}

}  // namespace contactuq::multibody
