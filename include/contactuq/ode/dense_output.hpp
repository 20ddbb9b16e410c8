#pragma once
// The explicit integrator the simulators share, and the event search on its dense output.
//
// dopri5_dense_output<State>: Boost.Odeint's Dormand-Prince 5(4) with step-size control (the
// local error of every component within atol + rtol |x_i|) and dense output (a continuous
// extension over the last step, calc_state(t, x) for t in it), made by make_dopri5().
//
// locate_crossing(): the first crossing of a function g(t) in [a, b] by the Illinois method, a
// regula falsi that halves the value kept at the stale end when the same end moves twice
// (Dowell & Jarratt 1971). g is evaluated on the dense output of the step [a, b], so an event
// costs no right-hand side. Units are the caller's: t and g in whatever the simulator steps in.

#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>

namespace contactuq::ode {

template <class State>
using dopri5_dense_output = typename boost::numeric::odeint::result_of::make_dense_output<
    boost::numeric::odeint::runge_kutta_dopri5<State>>::type;

// A Dormand-Prince 5(4) dense-output stepper with absolute and relative tolerances atol, rtol
// [-, in the units of the state] and steps of at most max_dt (0: unbounded). Call initialize()
// before the first do_step().
template <class State>
dopri5_dense_output<State> make_dopri5(double atol, double rtol, double max_dt = 0.0) {
  namespace odeint = boost::numeric::odeint;
  return odeint::make_dense_output(atol, rtol, max_dt, odeint::runge_kutta_dopri5<State>());
}

// Which side of the crossing a value is on.
enum class crossing {
  falling,  ///< before: g > 0; across: g <= 0 (or NaN)
  rising,   ///< before: g <= 0; across: g > 0 (or NaN)
};

// The options keep the arithmetic of the three locators this one replaced: the single impact and
// the switch search falling crossings with the defaults; the pin-slot contacts search up to 200
// iterations, a release as a falling crossing of the overlap and an onset as a rising one that
// accepts any overlap up to 1e-3 of the penetration tolerance.
struct crossing_search {
  crossing direction = crossing::falling;
  int max_iterations = 100;  ///< function evaluations at most
  // Stop as soon as the far end is within this of zero (g(b) <= accept rising, g(b) >= -accept
  // falling): a crossing that need not be exact. Negative: only the bracket's width stops.
  double accept = -1.0;
};

// The first crossing of g in [a, b], with ga = g(a) before and gb = g(b) across it: returns the
// far end of the final bracket, a time where g is across (b itself when the bracket is already
// at rounding width). The bracket stops shrinking at a width of 4e-16 max(1, |b|).
template <class G>
double locate_crossing(double a, double b, double ga, double gb, G&& g,
                       const crossing_search& search = {}) {
  const bool rising = search.direction == crossing::rising;
  int side = 0;
  for (int it = 0; it < search.max_iterations; ++it) {
    if (search.accept >= 0 && (rising ? gb <= search.accept : gb >= -search.accept)) break;
    if (!(b - a > 4e-16 * std::max(1.0, std::abs(b)))) break;
    double c = b - gb * (b - a) / (gb - ga);
    if (!(c > a && c < b)) c = 0.5 * (a + b);
    const double gc = g(c);
    if (rising ? gc <= 0 : gc > 0) {
      a = c, ga = gc;
      if (side == -1) gb *= 0.5;  // Illinois: halve the stale end
      side = -1;
    } else {
      b = c, gb = gc;
      if (side == 1) ga *= 0.5;
      side = 1;
    }
  }
  return b;
}

}  // namespace contactuq::ode
