#pragma once
// A spring-driven electrical switch closing: three rigid bodies on one axis (x positive in the
// closing direction, every body at rest at x = 0 when released), docs/switch-mechanism.md.
//   m1 x1'' = F0 - k_d x1 - F12 - F_c                  slider, preloaded drive spring
//   m2 x2'' = F12 + n Fx(x2, x2' / v_t)                 receptacle carrier on the fixed pin
//   m3 x3'' = -k3 x3 - c3 x3' + F_c                     stop, mounted to ground
//   F12 = k12 (x1 - x2) + c12 (x1' - x2')               linkage spring and damper
//   delta = x1 - x3 - g0,  F_c = F(delta, delta')        slider on the stop through a contact law
// Fx is the insertion force of one receptacle arm on the pin (Williams, 000_..., eqs. (1.5),
// (1.82), with the velocity-dependent friction mu = mu_nom tanh(2.5 v / v_t) of eq. (1.84)); the
// n arms of one engaging group move with the carrier. F(delta, delta') is any contact law of the
// law registry (contact/law_registry.hpp), or an impact map (`cor`), which is applied as the
// velocity jump of Brake 2014 (001_...) eq. (11) between m1 and m3.
//
// Integration: Boost.Odeint Dormand-Prince 5(4) with error control on every state (positions
// scaled by g0, velocities by the free-fall speed sqrt(2 F0 g0 / (m1 + m2)), energies by F0 g0),
// steps of at most t_end / 100, restarted at every event located on its dense output (Illinois
// method):
//   contact start   free flight ends: min(delta, release_margin(delta, delta')) rises through 0
//                   (after a plastic impact the slider touches the dent, at delta = delta_bar);
//                   searched on four sub-intervals of each step, which may hold a whole bounce
//   peak overlap    delta' falls through 0 above the largest overlap so far: the law's loading
//                   history is committed there (elastic-plastic laws switch to unloading)
//   contact end     the law's release_margin falls through 0: the force is back at zero
//   impact map      delta rises through 0: v1, v3 jump by eq. (11); below a sticking speed the
//                   bodies stay together (e = 0) until the force between them would pull
// and, without a restart, the carrier crossing x_cr,4 (closure; falling back is chatter), its
// turning points after closure (the closure margin) and the slider's turning point after the
// first impact (the first rebound amplitude). A slider found more than 1 % of g0 inside the stop
// in free flight (a contact the search missed) ends the simulation with solver_error.
// SI throughout: kg, m, s, N, J.

#include <limits>
#include <string>
#include <vector>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/contact/receptacle_pin.hpp"

namespace contactuq::dynamics {

// The mechanism; names as in the equations above.
struct switch_params {
  double m1 = 0.0;   ///< slider mass [kg], > 0
  double m2 = 0.0;   ///< receptacle carrier mass [kg], > 0
  double m3 = 0.0;   ///< stop mass [kg], > 0
  double k_d = 0.0;  ///< drive spring stiffness [N/m], >= 0
  double F0 = 0.0;   ///< drive spring preload at x1 = 0 [N], > 0
  double k12 = 0.0;  ///< linkage stiffness, slider to carrier [N/m], >= 0
  double c12 = 0.0;  ///< linkage damping [N*s/m], >= 0
  double k3 = 0.0;   ///< stop mount stiffness [N/m], >= 0
  double c3 = 0.0;   ///< stop mount damping [N*s/m], >= 0
  double g0 = 0.0;   ///< gap between slider and stop at release [m], > 0
  // Receptacle: Williams Table 1 parameters (mu is mu_nom of (1.84)) and one group of engaging
  // arms at initial separation d0 from the pin tip.
  contact::receptacle_pin_params receptacle;
  double d0 = 0.0;   ///< initial separation, arm pivot to pin tip [m], finite
  int arms = 2;      ///< n, identical engaging arms [-], >= 1
  double v_t = 0.0;  ///< transition velocity of the friction law (1.84) [m/s], > 0

  // Throws parameter_error naming the first field out of range (receptacle fields by their
  // Williams names, e.g. "mu").
  void validate() const;
};

struct switch_options {
  double t_end = 0.04;               ///< simulated time after release [s], > 0
  double relative_tolerance = 1e-6;  ///< rtol of the error control [-], in [1e-13, 1e-3]
  // atol on the scaled states (positions / g0, velocities / V, energies / (F0 g0)) [-], (0, 1e-3]
  double absolute_tolerance = 1e-7;
  long max_steps = 200000;  ///< accepted steps per simulation [-], in [10, 1e8]
  int curve_points = 201;   ///< points of the time grid of the curves [-], 0 or >= 2
  // Full resolution instead of the grid: the curves hold every accepted step's end, the largest
  // contact force located inside each step (so their maximum is peak_contact_force) and the
  // located events, which are also listed in switch_result::events. curve_points is unused.
  bool record_steps = false;
  // Settled: |x1 - x1(t_end)| stays below this band from the settling time on [m], > 0.
  double settle_band = 10e-6;
  // An impact counts when its approach speed is at least this fraction of the first one's [-],
  // in [0, 1). Smaller re-contacts are still resolved; they only are not counted.
  double impact_count_fraction = 0.01;
  // Impact map only: an approach slower than this fraction of the first impact's speed sticks
  // (e = 0) instead of bouncing, which ends the infinite sequence of ever smaller bounces a
  // constant e predicts in finite time [-], in (0, 0.1].
  double stick_fraction = 1e-4;
  bool stop_at_first_impact = false;  ///< end the simulation at the first contact start

  // Throws parameter_error naming the first field out of range.
  void validate() const;
};

enum class switch_status {
  ok,              ///< simulated to t_end (whether or not the switch closed)
  too_many_steps,  ///< more than max_steps accepted steps
  model_error,     ///< the receptacle model or the contact law had no answer (e.g. friction lock)
  solver_error,    ///< the step size control failed (step size underflow)
};

struct switch_energy {
  double drive_work = 0.0;  ///< F0 x1 - k_d x1^2 / 2 at t_end [J]
  double kinetic = 0.0;     ///< sum of m v^2 / 2 at t_end [J]
  // Elastic energy at t_end: linkage and mount springs, receptacle arms (n K theta^2 / 2) and
  // the contact (integral of the law's unloading force from where it is zero) [J].
  double stored = 0.0;
  double dissipated_contact = 0.0;     ///< work into the contact law minus what it still stores [J]
  double dissipated_dampers = 0.0;     ///< integral of c12 (x1' - x2')^2 + c3 x3'^2 dt [J]
  double dissipated_receptacle = 0.0;  ///< friction: -integral of n Fx x2' dt - arm energy [J]
  double dissipated() const {
    return dissipated_contact + dissipated_dampers + dissipated_receptacle;
  }
};

// An event the integrator located (record_steps only).
struct switch_event {
  std::string name;  ///< "contact start", "peak overlap", "contact end", "bodies part", "closure", "chatter"
  double time = 0.0;  ///< [s]
};

struct switch_result {
  switch_status status = switch_status::ok;
  std::string message;  ///< empty when ok
  std::string law;      ///< the contact law's registry name

  bool closed = false;   ///< carrier on the pin barrel (x2 >= x_cr,4) at t_end
  bool chatter = false;  ///< carrier fell back below x_cr,4 after having reached it
  double closure_time = std::numeric_limits<double>::quiet_NaN();  ///< first x2 = x_cr,4 [s]
  double chatter_time = std::numeric_limits<double>::quiet_NaN();  ///< first fall back [s]
  double closure_position = 0.0;                                   ///< x_cr,4 of the arms [m]
  // Smallest x2 - x_cr,4 from the carrier's first turning point after closure to t_end (or at
  // t_end, if it never turned back) [m]: how far onto the barrel the carrier stayed; negative
  // when it chattered. NaN if it never closed.
  double closure_margin = std::numeric_limits<double>::quiet_NaN();
  double impact_time = std::numeric_limits<double>::quiet_NaN();      ///< first contact start [s]
  double impact_velocity = std::numeric_limits<double>::quiet_NaN();  ///< delta' there [m/s]
  // -delta' after / delta' before the first impact (at its contact end) [-]
  double first_restitution = std::numeric_limits<double>::quiet_NaN();
  int impacts = 0;   ///< contact starts at >= impact_count_fraction of the first approach speed
  int contacts = 0;  ///< every contact start, however slow
  // Largest distance the slider moved back from where the first impact released it, before it
  // touched again [m]; 0 if it never separated.
  double rebound_amplitude = std::numeric_limits<double>::quiet_NaN();
  // From here on |x1 - x1(t_end)| <= settle_band [s]; NaN when that holds only in the last
  // tenth of the run (not settled by t_end).
  double settling_time = std::numeric_limits<double>::quiet_NaN();
  double peak_contact_force = 0.0;  ///< largest F_c [N]; NaN for an impact map
  double residual_indentation =
      0.0;  ///< overlap where the final unloading curve is 0 [m]; NaN for a map
  switch_energy energy;
  // Why an output is NaN, e.g. "peak_contact_force: an impact map has no force (impulsive)".
  std::vector<std::string> notes;

  // State at t_end: x1, v1, x2, v2, x3, v3 [m, m/s]; contact force there [N].
  double x1 = 0.0, v1 = 0.0, x2 = 0.0, v2 = 0.0, x3 = 0.0, v3 = 0.0;
  double contact_force = 0.0;

  // Curves on the fixed grid time[k] = k t_end / (curve_points - 1), or at every step with
  // record_steps. For an impact map the contact force is the force between stuck bodies and 0
  // elsewhere (impulses are not forces).
  std::vector<double> time, slider, carrier, stop, force;
  std::vector<switch_event> events;  ///< in time order (record_steps only)

  long steps = 0;            ///< accepted integrator steps
  long rhs_evaluations = 0;  ///< right-hand side evaluations
  int restarts = 0;          ///< integrator restarts at events

  bool ok() const { return status == switch_status::ok; }
};

// Simulates the switch from release (all bodies at rest at x = 0) to t_end with a copy of `law`
// (a virgin contact as from make_law). Throws parameter_error for invalid parameters or options
// (and for receptacle geometry the model cannot represent); failures during the integration are
// reported in the status and message.
switch_result simulate_switch(const switch_params& params, const contact::contact_law& law,
                              const switch_options& options = {});

}  // namespace contactuq::dynamics
