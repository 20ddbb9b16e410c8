#pragma once
// SUNDIALS CVODE and what it works on, created together and freed together: the context, the
// state y, the absolute tolerances, a vector for the dense output, the integrator's memory and,
// as a method needs them, a fixed-point nonlinear solver (functional iteration, for Adams) or a
// dense matrix with its linear solver (Newton, for BDF). Private to the library: SUNDIALS is not
// a dependency of the public headers.

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>

#include <string>

namespace contactuq::ode {

class cvode_handle {
 public:
  // CVODE with multistep method lmm (CV_ADAMS or CV_BDF) on a state of n components. Throws
  // std::runtime_error when SUNDIALS cannot allocate them.
  cvode_handle(int lmm, sunindextype n);
  ~cvode_handle();
  cvode_handle(const cvode_handle&) = delete;
  cvode_handle& operator=(const cvode_handle&) = delete;

  void* memory() const { return mem_; }
  SUNContext context() const { return ctx_; }
  N_Vector y() const { return y_; }            ///< the state CVode() returns into
  N_Vector abstol() const { return abstol_; }  ///< for CVodeSVtolerances()
  double* state() const { return N_VGetArrayPointer(y_); }
  double* abstol_values() const { return N_VGetArrayPointer(abstol_); }

  // The state at t inside the last step, on CVODE's dense output (CVodeGetDky, order 0); valid
  // until the next call.
  const double* dense_state(double t) const;

  // Functional iteration with Anderson acceleration of depth m (0: none). Call after CVodeInit.
  // Returns CVODE's flag.
  int use_fixed_point(int m = 0);
  // Newton with a dense n x n matrix and direct solver. Call after CVodeInit. Returns CVODE's flag.
  int use_dense_newton();

  // CVODE's error messages: the first one kept in `into` (left as it is when already set), or
  // none at all. `into` must outlive the handle's use. Return CVODE's flag.
  int keep_first_error(std::string& into);
  int silence_errors();

 private:
  void release();

  SUNContext ctx_ = nullptr;
  N_Vector y_ = nullptr;
  N_Vector abstol_ = nullptr;
  N_Vector dky_ = nullptr;
  void* mem_ = nullptr;
  SUNNonlinearSolver nls_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver ls_ = nullptr;
  sunindextype n_;
};

}  // namespace contactuq::ode
