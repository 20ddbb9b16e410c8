#pragma once
// The CVODE glue of the threaded insertion (threaded_insertion.hpp): the right-hand side and
// Jacobian callbacks over insertion_system, and the set-up of the solver (ode::cvode_handle).

#include <string>

#include "contactuq/threaded/threaded_insertion.hpp"
#include "insertion_system.hpp"
#include "ode/cvode_handle.hpp"

namespace contactuq::threaded::detail {

struct cvode_data {
  const insertion_system* sys;
  std::string error;
  void* mem = nullptr;  // CVODE's memory, for the error weights in the Jacobian
  contact_measures last;  // of the latest right-hand side: the converged Newton iterate of a step
};

// The state no derivative depends on: its Jacobian column is zero, its tolerance loose.
inline constexpr int i_dissipated = 13;

int rhs(sunrealtype t, N_Vector y, N_Vector yd, void* data);
int jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* data, N_Vector ewt_v,
             N_Vector y_shift, N_Vector f_shift);

// The integrator of a start: BDF (its order capped in setup_cvode()) on the n_state states.
inline constexpr int cvode_method = CV_BDF;

// Newton with a dense linear solver, from the bolt moving with the gripper at t = 0; a step is
// at most half the time between two probe points of a turn (points_per_turn). h: a fresh handle
// of cvode_method on n_state states; `data` must outlive the solver (CVODE holds its address);
// t_end: the end of the run [s].
void setup_cvode(ode::cvode_handle& h, cvode_data& data, const insertion_system& sys,
                 const insertion_params& params, double t_end);

}  // namespace contactuq::threaded::detail
