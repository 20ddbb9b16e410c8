#pragma once
// The smallest residual overlap that keeps a power-law unloading curve through (delta_m, F_m) at or
// below the loading curve, for the elastic-plastic laws (brake.hpp, etsion.hpp):
//   F_u(delta) = F_m ((delta - delta_r) / (delta_m - delta_r))^n  <=  F_l(delta),  delta_r..delta_m
// With q(delta) = (F_l(delta) / F_m)^(1/n) < 1 below delta_m the condition at one delta is linear
// in delta_r,
//   delta_r >= g(delta) = (delta - q delta_m) / (1 - q),
// so the admissible residual is the supremum of g over (0, delta_m). As delta -> delta_m,
// g -> delta_m - n F_m / F_l'(delta_m): the unloading curve must leave delta_m at least as steeply
// as the loading curve arrived. Raising delta_r lowers F_u at every delta < delta_m, so any
// delta_r >= the supremum is admissible, and unloading below loading makes every load-unload-
// reload cycle dissipate (the loop work is the area between the two curves).
// Units: those of delta and F, any.

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>

namespace contactuq::contact::detail {

// slope_m: F_l'(delta_m), the loading slope arriving at delta_m (left derivative) [F/delta].
template <class Loading>
double admissible_residual(const Loading& loading, double delta_m, double force_m, double slope_m,
                           double n) {
  if (!(delta_m > 0) || !(force_m > 0)) return 0.0;
  auto g = [&](double s) {  // s = delta / delta_m in (0, 1)
    const double q = std::pow(loading(s * delta_m) / force_m, 1.0 / n);
    // q >= 1 only at delta_m itself (rising loading), where any delta_r passes: no bound.
    if (!(q < 1)) return -std::numeric_limits<double>::infinity();
    return (s - q) / (1 - q) * delta_m;
  };
  // A grid finds the peak of g (it may sit anywhere a regime of the loading curve is less convex
  // than the unloading power), points crowding delta_m resolve the slope condition, and Brent's
  // method polishes the best interior point between its neighbours.
  constexpr int grid = 128;
  double best_s = 0.0;
  double best = 0.0;
  double lo = 0.0;
  double hi = 1.0;
  double prev_s = 0.0;
  if (slope_m > 0) {  // the limit s -> 1, exact
    best = delta_m - n * force_m / slope_m;
    best_s = 1.0;
  }
  for (int i = 1; i < grid; ++i) {
    const double s = static_cast<double>(i) / grid;
    const double v = g(s);
    if (v > best) {
      best = v;
      best_s = s;
      lo = prev_s;
      hi = static_cast<double>(i + 1) / grid;
    }
    prev_s = s;
  }
  for (double tail : {1e-3, 1e-4, 1e-5, 1e-6}) {
    const double s = 1 - tail;
    const double v = g(s);
    if (v > best) {
      best = v;
      best_s = s;
      lo = 1 - 10 * tail;
      hi = 1 - 0.1 * tail;
    }
  }
  if (best_s > 0 && best_s < 1) {
    const auto [s, v] = boost::math::tools::brent_find_minima([&](double x) { return -g(x); }, lo,
                                                              hi, 48);
    (void)s;
    best = std::max(best, -v);
  }
  return std::max(best, 0.0);
}

}  // namespace contactuq::contact::detail
