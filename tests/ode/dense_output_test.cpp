#include "contactuq/ode/dense_output.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

using namespace contactuq::ode;

namespace {

using state = std::array<double, 2>;

// x'' = -x from x = 1, x' = 0: x = cos t, x' = -sin t.
void oscillator(const state& x, state& dxdt, double) {
  dxdt[0] = x[1];
  dxdt[1] = -x[0];
}

}  // namespace

TEST_CASE("dopri5 and the locator find the zeros of cos t on the dense output", "[ode]") {
  auto stepper = make_dopri5<state>(1e-12, 1e-12);
  stepper.initialize(state{1.0, 0.0}, 0.0, 1e-3);
  // x falls through 0 at pi/2, x' rises through 0 at pi.
  double falling = NAN, rising = NAN;
  double x_prev = 1.0, v_prev = 0.0;
  while (stepper.current_time() < 4.0) {
    const auto [ta, tb] = stepper.do_step(oscillator);
    const state& now = stepper.current_state();
    auto at = [&](int i) {
      return [&stepper, i](double t) {
        state x;
        stepper.calc_state(t, x);
        return x[static_cast<std::size_t>(i)];
      };
    };
    if (std::isnan(falling) && x_prev > 0 && now[0] <= 0)
      falling = locate_crossing(ta, tb, x_prev, now[0], at(0));
    crossing_search up;
    up.direction = crossing::rising;
    if (std::isnan(rising) && v_prev <= 0 && now[1] > 0)
      rising = locate_crossing(ta, tb, v_prev, now[1], at(1), up);
    x_prev = now[0], v_prev = now[1];
  }
  CHECK(falling == Approx(std::numbers::pi / 2).epsilon(1e-10));
  CHECK(rising == Approx(std::numbers::pi).epsilon(1e-10));
}

TEST_CASE("dopri5 keeps its steps at most max_dt", "[ode]") {
  for (const double max_dt : {0.01, 0.1}) {
    auto stepper = make_dopri5<state>(1e-6, 1e-6, max_dt);
    stepper.initialize(state{1.0, 0.0}, 0.0, 1e-3);
    double largest = 0;
    while (stepper.current_time() < 3.0) {
      const auto [ta, tb] = stepper.do_step(oscillator);
      largest = std::max(largest, tb - ta);
    }
    CHECK(largest <= max_dt * (1 + 1e-12));
    CHECK(largest > 0.5 * max_dt);  // a loose tolerance: the bound is what limits the steps
  }
}

TEST_CASE("locate_crossing returns the first point across, to rounding", "[ode]") {
  SECTION("falling: zero counts as across") {
    auto g = [](double t) { return std::max(0.0, 0.4 - t); };  // 0 from t = 0.4 on
    const double t = locate_crossing(0.0, 1.0, g(0.0), g(1.0), g);
    CHECK(g(t) <= 0);
    CHECK(t == Approx(0.4).margin(1e-15));
  }
  SECTION("rising: zero counts as before") {
    auto g = [](double t) { return std::max(0.0, t - 0.4); };  // 0 up to t = 0.4
    crossing_search s;
    s.direction = crossing::rising;
    const double t = locate_crossing(0.0, 1.0, g(0.0), g(1.0), g, s);
    CHECK(g(t) > 0);
    CHECK(t == Approx(0.4).margin(1e-15));
  }
  SECTION("a NaN is across") {
    auto g = [](double t) { return t < 0.25 ? 1.0 : NAN; };
    const double t = locate_crossing(0.0, 1.0, 1.0, NAN, g);
    CHECK(std::isnan(g(t)));
    CHECK(t == Approx(0.25).margin(1e-15));
  }
}

TEST_CASE("locate_crossing stops at accept and at max_iterations", "[ode]") {
  int calls = 0;
  auto g = [&calls](double t) {
    ++calls;
    return std::exp(t) - 2;  // rising through 0 at ln 2
  };
  crossing_search s;
  s.direction = crossing::rising;
  const double exact = locate_crossing(0.0, 1.0, g(0.0), g(1.0), g, s);
  CHECK(exact == Approx(std::log(2.0)).margin(1e-15));
  const int exact_calls = calls;

  calls = 0;
  s.accept = 1e-3;
  const double near = locate_crossing(0.0, 1.0, g(0.0), g(1.0), g, s);
  CHECK(calls < exact_calls);
  CHECK(g(near) > 0);
  CHECK(g(near) <= 1e-3);

  calls = 0;
  s.accept = -1;
  s.max_iterations = 3;
  const double rough = locate_crossing(0.0, 1.0, g(0.0), g(1.0), g, s);
  CHECK(calls == 2 + 3);  // the ends and three iterations
  CHECK(g(rough) > 0);
}
