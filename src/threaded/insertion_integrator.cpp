#include "insertion_integrator.hpp"

#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>

namespace contactuq::threaded::detail {

int rhs(sunrealtype t, N_Vector y, N_Vector yd, void* data) {
  auto* d = static_cast<cvode_data*>(data);
  ++d->sys->rhs_count;
  try {
    d->sys->derivative(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yd), nullptr, &d->last);
  } catch (const std::exception& e) {
    d->error = e.what();
    return -1;
  }
  for (int i = 0; i < n_state; ++i)
    if (!std::isfinite(NV_Ith_S(yd, i))) return 1;  // recoverable: CVODE cuts the step
  return 0;
}

// Jacobian by forward differences, as CVODE's own, except that
// - the columns of the states the contacts do not depend on (velocities, spin, slip) reuse the
//   contact search at y: 8 of the 16 columns cost a force evaluation instead of a search;
// - the dissipated energy's column is zero (no derivative depends on it);
// - a pose column's increment is at least 1e-2 of its error scale 1/ewt (about 10 nm and
//   1e-6 rad), not sqrt(eps) |y| (1e-10 m): the adaptive quadrature makes the contact force
//   continuous only to its tolerance (1e-6 of the peak depth), and a difference over 1e-10 m
//   sees that noise. Measured on 24 starts of the success study: 44 % fewer force evaluations,
//   Newton convergence failures 21 275 -> 8 567, the same outcomes (increments of 1e-4, 1e-3,
//   3e-2 and 1e-1 of the scale: 15, 40, 40 and 24 % fewer).
constexpr int n_pose = 7;       // x_cm, q: the states the contact search depends on
constexpr double pose_increment = 1e-2;  // of the error scale 1/ewt
int jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* data, N_Vector ewt_v,
             N_Vector y_shift, N_Vector f_shift) {
  auto* d = static_cast<cvode_data*>(data);
  try {
    CVodeGetErrWeights(d->mem, ewt_v);
    const double* ewt = N_VGetArrayPointer(ewt_v);
    double* yv = N_VGetArrayPointer(y);
    double* ys = N_VGetArrayPointer(y_shift);
    const double* f0 = N_VGetArrayPointer(fy);
    double* f1 = N_VGetArrayPointer(f_shift);
    const double uround = std::numeric_limits<double>::epsilon();
    const double srur = std::sqrt(uround);
    double h = 0;
    CVodeGetCurrentStep(d->mem, &h);
    const double fnorm = N_VWrmsNorm(fy, ewt_v);
    const double min_inc = fnorm != 0 ? 1000 * std::abs(h) * uround * n_state * fnorm : 1.0;
    // velocity columns reuse the contacts of the unshifted pose; pose columns search anew (reusing
    // the quadrature nodes there took 8 % more steps: the node set is not the pose's)
    const auto contacts = d->sys->contacts_at(unpack(yv), false);
    for (int j = 0; j < n_state; ++j) {
      double* col = SUNDenseMatrix_Column(J, j);
      if (j == i_dissipated) {
        std::fill(col, col + n_state, 0.0);
        continue;
      }
      std::copy(yv, yv + n_state, ys);
      const double inc = std::max({srur * std::abs(yv[j]), min_inc / ewt[j],
                                   j < n_pose ? pose_increment / ewt[j] : 0.0});
      ys[j] += inc;
      const double step = ys[j] - yv[j];
      if (j < n_pose) {
        ++d->sys->rhs_count;
        d->sys->derivative(t, ys, f1);
      } else {
        d->sys->derivative(t, ys, f1, &contacts);
      }
      for (int i = 0; i < n_state; ++i) {
        col[i] = (f1[i] - f0[i]) / step;
        if (!std::isfinite(col[i])) return 1;  // recoverable: CVODE cuts the step
      }
    }
  } catch (const std::exception& e) {
    d->error = e.what();
    return -1;
  }
  return 0;
}

// Newton with a dense linear solver, from the bolt moving with the gripper at t = 0; a step is
// at most half the time between two probe points of a turn (points_per_turn).
void setup_cvode(ode::cvode_handle& h, cvode_data& data, const insertion_system& sys,
                 const insertion_params& params, double t_end) {
  const double pitch = params.thread.pitch;
  sys.initial_state(h.state());
  const double rtol = params.relative_tolerance;
  const double pos_tol = rtol * pitch;
  const double speed = params.feed > 0 ? params.feed : pitch / t_end;
  double* at = h.abstol_values();
  for (int i = 0; i < 3; ++i) at[i] = pos_tol;
  for (int i = 3; i < 7; ++i) at[i] = 1e-7;
  for (int i = 7; i < 10; ++i) at[i] = 1e3 * rtol * speed;
  for (int i = 10; i < 13; ++i) at[i] = 1e3 * rtol * speed / pitch;
  // The dissipated energy is an output no derivative depends on: integrated on the steps the
  // motion needs, never limiting them (it set a third of the steps at rtol; without it 14 %
  // fewer force evaluations). The energy-balance test bounds its error.
  at[i_dissipated] = 1.0;  // [J]: a start dissipates mJ, a slipping clutch a few J
  at[14] = 1e-6;
  at[15] = 1e-6;
  void* mem = h.memory();
  int flag = CVodeInit(mem, rhs, 0.0, h.y());
  if (flag == CV_SUCCESS) flag = CVodeSetUserData(mem, &data);
  if (flag == CV_SUCCESS) flag = CVodeSVtolerances(mem, rtol, h.abstol());
  if (flag == CV_SUCCESS) flag = h.use_dense_newton();
  if (flag == CV_SUCCESS) flag = CVodeSetJacFn(mem, jacobian);
  // BDF orders 3-5 are not A-stable: at rtol 1e-4 they let the lightly damped tilt mode of an
  // engaged bolt grow (steady screw motion broke into oscillation after three turns); BDF2 is
  // A-stable and costs no more steps here.
  if (flag == CV_SUCCESS) flag = CVodeSetMaxOrd(mem, 2);
  // The Newton matrix is formed at every step and the Jacobian is at most 20 steps old (CVODE:
  // every 20 steps and 51). A Jacobian kept from a contact that has since opened makes the
  // Newton matrix stiff where the motion is free: the updates shrink, the convergence test
  // (which also carries the last rate across steps) passes with the residual unsolved, and the
  // accepted steps no longer follow the equations. Seen as bolts thrown out of the nut without
  // any contact (axial grasp force 4-63 N, contact forces to 16 kN, tilts to 15 deg: three false
  // tip-outs in the 2000-start study). On 24 such starts the bound removes every one; on 24
  // starts of the success study it costs 4-6 % more time (stricter Newton tests did not remove
  // them: convergence coefficients 0.05, 0.02 and 0.01 left 1-2 of 8, 0.01 tipped two).
  if (flag == CV_SUCCESS) flag = CVodeSetLSetupFrequency(mem, 1);
  if (flag == CV_SUCCESS) flag = CVodeSetJacEvalFrequency(mem, 20);
  data.mem = mem;
  if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(mem, params.max_steps);
  if (flag == CV_SUCCESS)
    flag = CVodeSetMaxStep(mem, (pitch / speed) / (2.0 * params.points_per_turn));
  if (flag == CV_SUCCESS) flag = CVodeSetStopTime(mem, t_end);
  if (flag == CV_SUCCESS) flag = h.silence_errors();
  if (flag != CV_SUCCESS) throw std::runtime_error("CVODE setup failed");
}

}  // namespace contactuq::threaded::detail
