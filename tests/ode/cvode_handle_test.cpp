#include "ode/cvode_handle.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using contactuq::ode::cvode_handle;

namespace {

// y' = -y: y = exp(-t).
int decay(sunrealtype, N_Vector y, N_Vector ydot, void*) {
  N_VGetArrayPointer(ydot)[0] = -N_VGetArrayPointer(y)[0];
  return 0;
}

// Integrates y' = -y from y(0) = 1 to t = 1 with the handle's solver; returns y(1).
double run_decay(cvode_handle& h, bool newton) {
  h.state()[0] = 1.0;
  h.abstol_values()[0] = 1e-12;
  int flag = CVodeInit(h.memory(), decay, 0.0, h.y());
  if (flag == CV_SUCCESS) flag = CVodeSVtolerances(h.memory(), 1e-10, h.abstol());
  if (flag == CV_SUCCESS) flag = newton ? h.use_dense_newton() : h.use_fixed_point();
  REQUIRE(flag == CV_SUCCESS);
  double t = 0;
  REQUIRE(CVode(h.memory(), 1.0, h.y(), &t, CV_NORMAL) == CV_SUCCESS);
  return h.state()[0];
}

}  // namespace

TEST_CASE("cvode_handle integrates with Adams and fixed point, BDF and Newton", "[ode]") {
  for (const bool bdf : {false, true}) {
    cvode_handle h(bdf ? CV_BDF : CV_ADAMS, 1);
    const double y1 = run_decay(h, bdf);
    CHECK(y1 == Approx(std::exp(-1.0)).epsilon(1e-8));
    // the dense output of the last step ends at the state returned
    long steps = 0;
    CVodeGetNumSteps(h.memory(), &steps);
    CHECK(steps > 10);
    double t_last = 0, h_last = 0;
    CVodeGetCurrentTime(h.memory(), &t_last);
    CVodeGetLastStep(h.memory(), &h_last);
    const double t_mid = t_last - 0.5 * h_last;
    CHECK(h.dense_state(t_mid)[0] == Approx(std::exp(-t_mid)).epsilon(1e-8));
  }
}

TEST_CASE("cvode_handle keeps CVODE's first error message", "[ode]") {
  cvode_handle h(CV_ADAMS, 1);
  std::string error;
  REQUIRE(h.keep_first_error(error) == CV_SUCCESS);
  run_decay(h, false);
  double t = 0;
  // a stop time behind the current time is refused with a message
  CHECK(CVodeSetStopTime(h.memory(), 0.5) != CV_SUCCESS);
  CHECK_FALSE(error.empty());
  const std::string first = error;
  CHECK(CVode(h.memory(), 0.0, h.y(), &t, CV_NORMAL) < 0);
  CHECK(error == first);
}
