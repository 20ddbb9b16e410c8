#pragma once
// Forward dynamics of a planar_system: eq. (3) of Skrinjar et al. (003_...) written as the first-
// order system y' = (q', q''), eqs. (4)-(5), integrated by Boost.Odeint's Dormand-Prince 5(4)
// with error control and dense output (the paper uses RKF45), with
//   - a maximum step H_max, and H_contact while any clearance contact is closed (Table 3);
//   - contact-event location after Flores and Ambrosio (ref. [12]): a clearance contact carries
//     force only once its onset is detected. A step that ends with the pin inside the wall was
//     integrated in free flight; the onset is located on the step's dense output as the root of
//     delta(t), to a point where 0 <= delta <= delta_0, and the integration restarts there with
//     the contact closed (the impact velocity delta'_0 of eq. (26) is recorded there). The
//     release is located the same way, where delta falls back below 0;
//   - restarts at the kinks of applied forces (the end t_F of eq. (34)).
// Results are sampled on a uniform time grid from the dense output; peak forces are tracked at
// every step end and sample; impulses integrate the reported forces by Simpson's rule per step.

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "contactuq/multibody/system.hpp"

namespace contactuq::multibody {

struct simulation_options {
  double end_time = 0.06;             ///< t_n [s], > 0, <= 1e7 sample_interval (Table 3: 60 ms)
  double max_step = 1e-4;             ///< H_max [s], > 0 (Table 3)
  double contact_step = 1e-5;         ///< H_contact [s], in (0, max_step] (Table 3)
  double penetration_tolerance = 1e-6;  ///< delta_0 [m], > 0 (Table 3)
  double relative_tolerance = 1e-7;   ///< Dormand-Prince rtol [-], in [1e-13, 1e-2]
  // Dormand-Prince atol [m, rad, m/s, rad/s], > 0. The state is integrated as the displacement
  // from the initial pose, so that rtol acts on motion and not on the distance to the origin.
  double absolute_tolerance = 1e-10;
  double baumgarte_alpha = 5.0;       ///< alpha of eq. (3) [1/s], >= 0 (Table 3: 5)
  double baumgarte_beta = 5.0;        ///< beta of eq. (3) [1/s], >= 0 (Table 3: 5)
  double sample_interval = 1.0 / 51200;  ///< output grid [s], > 0 (the 51.2 kS/s of Section 5.1)
  long max_steps = 5'000'000;         ///< accepted steps [-], in [1, 1e8]

  void validate() const;  ///< throws parameter_error naming the field
};

enum class simulation_status {
  ok,
  too_many_steps,  ///< more than max_steps
  step_underflow,  ///< the step size fell below 1e-15 of the time (e.g. a law with no answer)
  model_error,     ///< a contact law had no answer (e.g. johnson_cylinder beyond delta*)
};

// A detected contact onset (an impact).
struct contact_event {
  double time = 0.0;            ///< t [s]
  std::size_t joint = 0;        ///< index among the system's clearance joints
  clearance_feature feature = clearance_feature::arc_p;
  double overlap = 0.0;         ///< delta at the located onset [m], in [0, delta_0]
  double approach_velocity = 0.0;  ///< delta' there [m/s]
};

struct simulation_result {
  simulation_status status = simulation_status::ok;
  std::string message;  ///< empty when ok

  std::vector<std::string> joints;   ///< planar_system::reported_joints()
  std::vector<double> time;          ///< sample times [s], N
  std::vector<double> positions;     ///< q per sample, N x 3 n_b row-major [m, m, rad]
  std::vector<double> velocities;    ///< q' per sample, N x 3 n_b [m/s, m/s, rad/s]
  std::vector<double> force_x;       ///< force of each reported joint on its body j, N x joints [N]
  std::vector<double> force_y;       ///< [N]
  std::vector<double> overlap;       ///< delta per clearance joint, N x clearance joints [m]
  std::vector<int> feature;          ///< clearance_feature per clearance joint, N x clearance
  std::vector<int> in_contact;       ///< 1 while the contact carries force, N x clearance
  std::vector<double> constraint_violation;  ///< |C(q)| (Euclidean) per sample [m, rad]
  std::vector<double> energy;        ///< planar_system::mechanical_energy per sample [J]

  std::vector<contact_event> impacts;  ///< contact onsets, in time order
  std::vector<double> peak_force;      ///< max |F| per reported joint over the run [N]
  std::vector<double> impulse_x;       ///< integral of F_x dt per reported joint [N*s]
  std::vector<double> impulse_y;       ///< [N*s]
  std::vector<double> impulse;         ///< integral of |F| dt per reported joint [N*s]
  double max_overlap = 0.0;            ///< largest delta of any clearance joint [m]
  long steps = 0;                      ///< accepted steps
  long rhs_evaluations = 0;

  bool ok() const { return status == simulation_status::ok; }
  std::size_t samples() const { return time.size(); }
};

// Integrates the system from its bodies' initial state. A clearance contact already closed at
// t = 0 (a resting pin) starts closed, with delta'_0 = minimum_impact_velocity. Throws
// parameter_error for invalid options or inconsistent systems; integration failures are reported
// in the status.
simulation_result simulate(const planar_system& system, const simulation_options& options);

// Centred moving average over `window` points (odd, >= 1), the window shrinking symmetrically
// near the ends so that it stays centred (Section 5.2 uses 301 points at 51.2 kS/s).
std::vector<double> centred_moving_average(const std::vector<double>& values, std::size_t window);

}  // namespace contactuq::multibody
