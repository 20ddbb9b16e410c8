#pragma once
// x^n for x > 0, with the exponents the laws use most (3/2 for spheres, 1 for plates) spelled out:
// std::pow costs several times a square root, and the force laws sit in the integrator's loop.

#include <cmath>

namespace contactuq::contact::detail {

inline double power(double x, double n) {
  if (n == 1.5) return x * std::sqrt(x);
  if (n == 1.0) return x;
  return std::pow(x, n);
}

}  // namespace contactuq::contact::detail
