#include "contactuq/contact/thornton.hpp"

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/roots.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

namespace {

double integrate(auto f, double a, double b) {
  return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, a, b, 15, 1e-13);
}

}  // namespace

TEST_CASE("thornton: yield overlap and force of eqs. (37)-(38)", "[contact][thornton]") {
  const thornton_params p{115e9, 0.01, 500e6};
  const double pi = std::numbers::pi;
  CHECK(thornton_yield_overlap(p) == Approx(std::pow(pi * 500e6 / (2 * 115e9), 2) * 0.01));
  // The two forms of eq. (38) agree.
  CHECK(thornton_yield_force(p) ==
        Approx(std::pow(pi, 3) * 0.01 * 0.01 * std::pow(500e6, 3) / (6 * 115e9 * 115e9))
            .epsilon(1e-13));
}

TEST_CASE("thornton invariants over a parameter grid", "[contact][thornton]") {
  const double modulus = GENERATE(40e9, 115e9);
  const double yield_strength = GENERATE(150e6, 500e6, 1500e6);
  const double radius = GENERATE(1e-3, 2e-2);
  const thornton_params p{modulus, radius, yield_strength};
  REQUIRE_NOTHROW(p.validate());
  const double dy = thornton_yield_overlap(p);
  CHECK(thornton_loading_force(p, 0.0) == 0.0);
  // C0 at yield, and the plastic slope is pi sigma_y r (eq. 39).
  CHECK(thornton_loading_force(p, dy * (1 + 1e-12)) ==
        Approx(thornton_loading_force(p, dy)).epsilon(1e-10));
  const double h = 1e-4 * dy;
  CHECK((thornton_loading_force(p, 3 * dy + h) - thornton_loading_force(p, 3 * dy)) / h ==
        Approx(std::numbers::pi * yield_strength * radius).epsilon(1e-8));
  double last = 0.0;
  for (int i = 1; i <= 400; ++i) {  // monotone loading to 100 delta_y
    const double f = thornton_loading_force(p, i * 0.25 * dy);
    CHECK(f > last);
    last = f;
  }
  for (double wm : {0.3, 1.0, 1.5, 10.0, 100.0}) {
    thornton_state s;
    const double fm = thornton_force(p, wm * dy, 1.0, s);
    CHECK(thornton_unloading_force(p, wm * dy * (1 - 1e-12), s) == Approx(fm).epsilon(1e-9));
    CHECK(s.residual_overlap >= 0.0);
    if (wm <= 1) CHECK(s.residual_overlap == 0.0);
    if (wm > 1) CHECK(s.residual_overlap > 0.0);
    CHECK(thornton_force(p, s.residual_overlap, -1.0, s) == 0.0);
    CHECK(thornton_force(p, 0.0, -1.0, s) == 0.0);
    for (int i = 0; i <= 100; ++i) {  // unloading never above loading, never pulls
      const double d = wm * dy * i / 100.0;
      const double fu = thornton_unloading_force(p, d, s);
      CHECK(fu >= 0.0);
      CHECK(fu <= thornton_loading_force(p, d) * (1 + 1e-12));
      if (wm <= 1) CHECK(fu == Approx(thornton_loading_force(p, d)).epsilon(1e-12));
    }
  }
}

TEST_CASE("thornton: the closed-form restitution matches the energy of the force loop",
          "[contact][thornton]") {
  // Independent of any ODE: find delta_m where the loading work equals 1/2 m v_i^2, then the
  // elastic energy the unloading curve returns gives e = sqrt(W_out / W_in). Thornton (1997).
  const thornton_params p{115e9, 0.01, 500e6};
  const double mass = 0.0329;
  const double vy = thornton_yield_velocity(p, mass);
  const double dy = thornton_yield_overlap(p);
  CHECK(0.5 * mass * vy * vy ==
        Approx(integrate([&](double d) { return thornton_loading_force(p, d); }, 0, dy))
            .epsilon(1e-10));
  CHECK(thornton_restitution(vy, vy) == Approx(1.0).epsilon(1e-14));
  CHECK(thornton_restitution(vy, 0.5 * vy) == 1.0);
  for (double ratio : {1.2, 2.0, 5.0, 30.0, 300.0}) {
    const double w_in = 0.5 * mass * ratio * ratio * vy * vy;
    auto work = [&](double dm) {
      return integrate([&](double d) { return thornton_loading_force(p, d); }, 0, dm) - w_in;
    };
    boost::math::tools::eps_tolerance<double> tol(50);
    std::uintmax_t iterations = 200;
    const auto [lo, hi] = boost::math::tools::toms748_solve(work, dy, 1e6 * dy, tol, iterations);
    thornton_state s;
    thornton_force(p, 0.5 * (lo + hi), 1.0, s);
    const double w_out = integrate([&](double d) { return thornton_unloading_force(p, d, s); },
                                   s.residual_overlap, s.max_overlap);
    CHECK(std::sqrt(w_out / w_in) == Approx(thornton_restitution(vy, ratio * vy)).epsilon(1e-9));
  }
}

TEST_CASE("thornton rejects bad parameters by name", "[contact][thornton]") {
  CHECK_THROWS_WITH((thornton_params{0, 0.01, 5e8}.validate()), Contains("modulus = 0 Pa"));
  CHECK_THROWS_WITH((thornton_params{1e11, -1, 5e8}.validate()), Contains("radius = -1 m"));
  CHECK_THROWS_WITH((thornton_params{1e11, 0.01, 0}.validate()), Contains("yield_strength = 0 Pa"));
}
