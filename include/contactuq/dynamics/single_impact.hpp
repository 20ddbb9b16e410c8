#pragma once
// A single two-body impact: bodies of mass m1, m2 meet at relative speed v0 and interact through
// one contact law. The relative overlap delta obeys
//   m delta'' = -F(delta, delta'),   delta(0) = 0,   delta'(0) = v0,   m = (1/m1 + 1/m2)^-1
// integrated (impact_integrator: Boost.Odeint Dormand-Prince 5(4) by default, or SUNDIALS CVODE
// Adams; error control on both states) in two phases: loading
// until delta' = 0 (located as a root: the peak overlap), then unloading until the law's
// release_margin() crosses zero (located as a root: the contact lets go, F = 0 from there on).
// The peak force is located as a root of dF/dt. The integrator only ever calls peek_force(); the
// law's history is advanced at the peak and at the release (within a phase delta is monotone, so
// the history at the phase start selects the branch). An impact map (`cor`) is applied as the
// velocity jump of Brake 2014 eq. (11) instead.
// SI throughout: kg, m, s, N, J.

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "contactuq/contact/law_registry.hpp"

namespace contactuq::dynamics {

// The integrator of the relative motion. Both control the local error of delta and delta' with
// the tolerances below, locate the phase ends as roots on their dense output, and agree to the
// tolerance (the tests run every check with both). dopri5 is the default: on this two-state
// problem it is about 8x faster than CVODE as Debian ships it (built without optimisation,
// about 1 us of overhead per step) and CVODE's variable-order Adams restarts at order 1 on each
// phase (about 100 steps per phase at rtol 1e-10).
enum class impact_integrator {
  dopri5,       ///< Boost.Odeint Dormand-Prince 5(4), dense output, Illinois root location
  cvode_adams,  ///< SUNDIALS CVODE, variable-order Adams (1-12) with its root finding
};

struct impact_options {
  double mass_1 = 0.0;                                      ///< m1 [kg], > 0
  double mass_2 = std::numeric_limits<double>::infinity();  ///< m2 [kg], > 0; inf: fixed flat
  double approach_velocity = 0.0;     ///< v0 [m/s], > 0: relative speed at first touch
  double relative_tolerance = 1e-10;  ///< CVODE rtol [-], in [1e-14, 1e-3]
  // CVODE atol as a fraction of the state scales [-], in (0, 1e-3]: atol_delta = this times an
  // overlap scale (where F(delta, 0) delta = m v0^2), atol_velocity = this times v0.
  double absolute_tolerance = 1e-12;
  long max_steps = 100000;  ///< integrator steps per phase [-], in [10, 1e8]
  impact_integrator integrator = impact_integrator::dopri5;
  bool record_history = false;  ///< keep the (t, delta, delta', F) samples
  // Dense-output samples per integrator step [-], in [1, 1000], when recording the history.
  int samples_per_step = 4;

  // Throws parameter_error naming the first field out of range.
  void validate() const;
};

enum class impact_status {
  ok,
  too_many_steps,  ///< a phase needed more than max_steps (e.g. a law that never stops the bodies)
  solver_error,    ///< CVODE failed (message says why)
  model_error,     ///< the law had no answer at some state (e.g. johnson_cylinder beyond delta*)
};

struct impact_sample {
  double time = 0.0;          ///< t [s] since first touch
  double overlap = 0.0;       ///< delta [m]
  double overlap_rate = 0.0;  ///< delta' [m/s]
  double force = 0.0;         ///< F [N]
};

struct impact_result {
  impact_status status = impact_status::ok;
  std::string message;  ///< empty when ok
  std::string law;      ///< the law's registry name

  double restitution = 0.0;           ///< e = -delta'_out / v0 [-]
  double peak_force = 0.0;            ///< max F [N]; NaN for an impact map (impulsive)
  double peak_overlap = 0.0;          ///< max delta [m]
  double compression_duration = 0.0;  ///< first touch to peak overlap [s]
  double contact_duration = 0.0;      ///< first touch to release [s]
  // Overlap at release, where the force returned to zero: the permanent indentation for the
  // elastic-plastic laws, 0 for elastic ones; for rate-dependent laws the overlap at which the
  // damper unloaded the spring [m].
  double residual_overlap = 0.0;
  double energy_dissipated = 0.0;  ///< 1/2 m (v0^2 - delta'_out^2) [J]
  double impulse = 0.0;            ///< m (v0 - delta'_out) [N*s]
  // Body velocities after the impact, in the frame where body 2 was at rest and body 1 moved at
  // v0 towards it [m/s] (momentum conserved, Brake 2014 eq. (11) with the restitution above).
  double velocity_1 = 0.0;
  double velocity_2 = 0.0;

  long steps = 0;                      ///< accepted integrator steps, both phases
  long rhs_evaluations = 0;            ///< force-law evaluations by the integrator
  std::vector<impact_sample> history;  ///< when options.record_history

  bool ok() const { return status == impact_status::ok; }
};

// Holds the integrator's memory so that repeated impacts do not reallocate it. Not safe to share
// between threads; use one per thread.
class impact_simulator {
 public:
  impact_simulator();
  ~impact_simulator();
  impact_simulator(impact_simulator&&) noexcept;
  impact_simulator& operator=(impact_simulator&&) noexcept;
  impact_simulator(const impact_simulator&) = delete;
  impact_simulator& operator=(const impact_simulator&) = delete;

  // Simulates one impact with a copy of `law` (its history as given: a law fresh from make_law
  // is a virgin contact). Throws parameter_error for invalid options; integration failures are
  // reported in the result's status and message.
  impact_result run(const contact::contact_law& law, const impact_options& options);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// One-off convenience: builds a simulator, runs it once.
impact_result simulate_impact(const contact::contact_law& law, const impact_options& options);

}  // namespace contactuq::dynamics
