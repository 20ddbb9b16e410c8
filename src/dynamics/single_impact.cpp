#include "contactuq/dynamics/single_impact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/cor.hpp"
#include "contactuq/error.hpp"
#include "contactuq/ode/dense_output.hpp"
#include "ode/cvode_handle.hpp"

namespace contactuq::dynamics {

void impact_options::validate() const {
  contact::effective_mass(mass_1, mass_2);  // names mass_1 / mass_2
  require(approach_velocity > 0 && std::isfinite(approach_velocity), "approach_velocity",
          approach_velocity, "m/s", "positive and finite");
  require(relative_tolerance >= 1e-14 && relative_tolerance <= 1e-3, "relative_tolerance",
          relative_tolerance, "", "in [1e-14, 1e-3]");
  require(absolute_tolerance > 0 && absolute_tolerance <= 1e-3, "absolute_tolerance",
          absolute_tolerance, "", "in (0, 1e-3]");
  require(max_steps >= 10 && max_steps <= 100000000, "max_steps", static_cast<double>(max_steps), "", "in [10, 1e8]");
  require(samples_per_step >= 1 && samples_per_step <= 1000, "samples_per_step", samples_per_step,
          "", "in [1, 1000]");
}

namespace {

enum class phase { loading, unloading };

// Shared with the CVODE callbacks. Exceptions never cross CVODE: a callback that catches one
// returns -1 and leaves the message here.
struct callback_state {
  contact::contact_law* law = nullptr;
  double mass = 0.0;
  phase current = phase::loading;
  double rate_step = 0.0;        // time step [s] of the finite difference for dF/dt
  bool find_force_peak = false;  // a rate-dependent law while loading
  long evaluations = 0;
  int model_failures = 0;
  std::string error;
};

constexpr int max_model_failures = 20;

int rhs(sunrealtype, N_Vector y, N_Vector ydot, void* data) {
  auto& s = *static_cast<callback_state*>(data);
  const double* in = N_VGetArrayPointer(y);
  double* out = N_VGetArrayPointer(ydot);
  try {
    ++s.evaluations;
    out[0] = in[1];
    out[1] = -s.law->peek_force(in[0], in[1]) / s.mass;
    return 0;
  } catch (const std::exception& e) {
    s.error = e.what();
    ++s.model_failures;
    return -1;
  }
}

// g[0]: delta' while loading (the peak overlap), the law's release margin while unloading.
// g[1]: for a rate-dependent law while loading, dF/dt along the trajectory by a forward
// difference over a Taylor step (the force peak, which then comes before the peak overlap);
// otherwise a constant. A rate-independent law peaks with the overlap.
void root_values(const callback_state& s, double d, double v, double* g) {
  g[0] = s.current == phase::loading ? v : s.law->release_margin(d, v);
  g[1] = 1.0;
  if (s.find_force_peak) {
    const double f = s.law->peek_force(d, v);
    const double a = -f / s.mass;
    const double h = s.rate_step;
    g[1] = s.law->peek_force(d + h * v + 0.5 * h * h * a, v + h * a) - f;
  }
}

// A law that keeps failing (CVODE retries a failed right-hand side with smaller steps, e.g.
// johnson_cylinder creeping towards delta*) is stopped here, where a failure is final.
int root(sunrealtype, N_Vector y, sunrealtype* g, void* data) {
  auto& s = *static_cast<callback_state*>(data);
  if (s.model_failures >= max_model_failures) return -1;
  const double* in = N_VGetArrayPointer(y);
  try {
    root_values(s, in[0], in[1], g);
    return 0;
  } catch (const std::exception& e) {
    s.error = e.what();
    ++s.model_failures;
    return -1;
  }
}

// Overlap scale: where F(delta, 0) delta = m v0^2 (the energy of a linear spring, within a factor
// of order one of the peak overlap of any law). Bisection in log10(delta) over [1e-15, 1] m.
double overlap_scale(const contact::contact_law& law, double mass, double v0) {
  const double target = mass * v0 * v0;
  auto above = [&](double d) {
    try {
      return law.peek_force(d, 0.0) * d >= target;
    } catch (const std::exception&) {
      return true;  // beyond the law's range: treat as too far
    }
  };
  double lo = -15.0;
  double hi = 0.0;
  if (!above(1.0)) return 1.0;
  for (int i = 0; i < 10; ++i) {
    const double mid = 0.5 * (lo + hi);
    (above(std::pow(10.0, mid)) ? hi : lo) = mid;
  }
  return std::pow(10.0, hi);
}

// The state (delta, delta') at a phase's terminal root; empty when the phase failed (the
// callback state's error says why).
using phase_end = std::optional<std::pair<double, double>>;

std::string too_many_steps(const impact_options& o, phase p) {
  return fmt::format("more than max_steps = {} steps in the {} phase", o.max_steps,
                     p == phase::loading ? "loading" : "unloading");
}

// One impact with a force law: what its steps share.
struct impact_run {
  impact_run(const impact_options& options, const contact::contact_law& law_in, double mass)
      : o(options), law(law_in), m(mass), v0(options.approach_velocity) {
    r.law = std::string(law_in.name());
  }

  const impact_options& o;
  contact::contact_law law;  // the caller's, copied: its history advances at peak and release
  impact_result r;
  double m;                     // effective mass [kg]
  double v0;                    // approach velocity [m/s]
  double scale = 0.0;           // overlap scale [m], see overlap_scale()
  bool rate_dependent = false;  // the force at a loading state depends on delta'
};

// An impact map has no force to integrate: its velocity jump (Brake 2014 eq. (11)) is the impact.
impact_result impact_map_result(const contact::contact_law& law, const impact_options& o,
                                double m) {
  const double v0 = o.approach_velocity;
  impact_result r;
  r.law = std::string(law.name());
  const auto out =
      contact::cor_impact(contact::cor_params{law.restitution()}, o.mass_1, o.mass_2, v0, 0.0);
  r.restitution = law.restitution();
  r.peak_force = std::numeric_limits<double>::quiet_NaN();
  r.energy_dissipated = 0.5 * m * v0 * v0 * (1 - r.restitution * r.restitution);
  r.impulse = m * v0 * (1 + r.restitution);
  r.velocity_1 = out.velocity_1;
  r.velocity_2 = out.velocity_2;
  return r;
}

// The law just after first touch (run.scale set): whether it depends on delta', and the force
// the peak search starts from.
void probe_law(impact_run& run) {
  const double scale = run.scale;
  const double v0 = run.v0;
  run.rate_dependent =
      run.law.peek_force(1e-2 * scale, v0) != run.law.peek_force(1e-2 * scale, -v0);
  // The force just after first touch starts the peak search. A rate-dependent law's force
  // peaks before the overlap does, as a root of dF/dt (g[1]); if dF/dt is negative from first
  // touch on, the peak is the damper's jump at first touch.
  run.r.peak_force = run.law.peek_force(1e-12 * scale, v0);
  if (run.o.record_history) run.r.history.push_back({0.0, 0.0, v0, run.law.peek_force(0.0, v0)});
}

// The outputs that follow from the relative velocity at release, rate_out = delta'.
void record_rebound(impact_run& run, double rate_out) {
  const impact_options& o = run.o;
  const double m = run.m;
  const double v0 = run.v0;
  impact_result& r = run.r;
  // Body masses as fractions of the total, so that an infinite mass is the limit.
  const double mu_1 = std::isinf(o.mass_1)   ? 1.0
                      : std::isinf(o.mass_2) ? 0.0
                                             : o.mass_1 / (o.mass_1 + o.mass_2);
  r.restitution = -rate_out / v0;
  r.energy_dissipated = 0.5 * m * (v0 * v0 - rate_out * rate_out);
  r.impulse = m * (v0 - rate_out);
  // delta' = v1 - v2: before, v1 = v0 and v2 = 0; after, v1 - v2 = rate_out and
  // m1 v1 + m2 v2 = m1 v0.
  r.velocity_2 = mu_1 * (v0 - rate_out);
  r.velocity_1 = r.velocity_2 + rate_out;
}

using state2 = std::array<double, 2>;
using roots2 = std::array<double, 2>;  // g[0], g[1] of root_values()

// One phase with Boost.Odeint's Dormand-Prince 5(4) and its dense output, on the state scaled
// to order one (x = delta / scale, u = delta' / v0, tau = t v0 / scale) so that its scalar
// tolerances act on both components as CVODE's vector ones do. Roots are located on the dense
// output by the Illinois method. A law that throws ends the impact (model_error). A fresh
// stepper per phase: the unloading phase restarts at the peak.
class dopri5_phase {
 public:
  dopri5_phase(impact_run& run, callback_state& s)
      : run_(run),
        s_(s),
        time_scale_(run.scale / run.v0),
        accel_scale_(run.scale / (run.m * run.v0 * run.v0)),
        stepper_(ode::make_dopri5<state2>(run.o.absolute_tolerance, run.o.relative_tolerance)) {}

  // Integrates the phase to its terminal root (g[0]); returns the state there.
  phase_end integrate(phase p, double t0, double d0, double rate0, double& t_root) {
    const impact_options& o = run_.o;
    auto system = [this](const state2& x, state2& dxdt, double) { derivative(x, dxdt); };
    stepper_.initialize(state2{d0 / run_.scale, rate0 / run_.v0}, t0 / time_scale_, 1e-3);
    roots2 g_prev = g_at(stepper_.current_state());
    for (long step = 0;; ++step) {
      if (step >= o.max_steps) {
        s_.error = too_many_steps(o, p);
        return std::nullopt;
      }
      const auto [ta, tb] = stepper_.do_step(system);
      ++run_.r.steps;
      if (o.record_history) sample_step(ta, tb);
      roots2 g_now = g_at(stepper_.current_state());
      if (const auto end = roots_in_step(ta, tb, g_prev, g_now, t_root)) return end;
      g_prev = g_now;
    }
  }

 private:
  void derivative(const state2& x, state2& dxdt) {
    ++s_.evaluations;
    dxdt[0] = x[1];
    dxdt[1] = -run_.law.peek_force(run_.scale * x[0], run_.v0 * x[1]) * accel_scale_;
  }

  roots2 g_at(const state2& x) const {
    roots2 g{};
    root_values(s_, run_.scale * x[0], run_.v0 * x[1], g.data());
    return g;
  }

  // History samples on the dense output of the step [ta, tb].
  void sample_step(double ta, double tb) {
    const int k = run_.o.samples_per_step;
    for (int i = 1; i <= k; ++i) {
      state2 x;
      const double tau = i == k ? tb : ta + (tb - ta) * i / k;
      stepper_.calc_state(tau, x);
      const double d = run_.scale * x[0], v = run_.v0 * x[1];
      run_.r.history.push_back({tau * time_scale_, d, v, run_.law.peek_force(d, v)});
    }
  }

  // Falling crossings of g[0] (terminal) and g[1] (the force peak) inside [ta, tb]: takes the
  // force peak if it comes first (and stops searching for it: g_now[1] = 1), and returns the
  // state at the terminal root if there is one.
  phase_end roots_in_step(double ta, double tb, const roots2& g_prev, roots2& g_now,
                          double& t_root) {
    const bool overlap_root = g_prev[0] > 0 && g_now[0] <= 0;
    const bool force_root = s_.find_force_peak && g_prev[1] > 0 && g_now[1] <= 0;
    const double tau_overlap = overlap_root ? locate(0, ta, tb, g_prev[0], g_now[0]) : tb;
    if (force_root) {
      const double tau_force = locate(1, ta, tb, g_prev[1], g_now[1]);
      if (tau_force <= tau_overlap) {
        state2 x;
        stepper_.calc_state(tau_force, x);
        run_.r.peak_force =
            std::max(run_.r.peak_force, run_.law.peek_force(run_.scale * x[0], run_.v0 * x[1]));
        s_.find_force_peak = false;
        g_now[1] = 1.0;
      }
    }
    if (!overlap_root) return std::nullopt;
    state2 x;
    stepper_.calc_state(tau_overlap, x);
    const double d = run_.scale * x[0], v = run_.v0 * x[1];
    run_.r.peak_force = std::max(run_.r.peak_force, run_.law.peek_force(d, v));
    t_root = tau_overlap * time_scale_;
    return std::make_pair(d, v);
  }

  // The falling crossing of g[i] in [a, b] (g[i] = ga > 0 at a, gb <= 0 at b) on the dense
  // output.
  double locate(int i, double a, double b, double ga, double gb) {
    return ode::locate_crossing(a, b, ga, gb, [&](double c) {
      state2 x;
      stepper_.calc_state(c, x);
      return g_at(x)[static_cast<std::size_t>(i)];
    });
  }

  impact_run& run_;
  callback_state& s_;
  const double time_scale_;
  const double accel_scale_;
  ode::dopri5_dense_output<state2> stepper_;
};

}  // namespace

struct impact_simulator::impl {
  ode::cvode_handle cvode{CV_ADAMS, 2};
  bool initialised = false;
  callback_state state;

  // (Re)starts CVODE at (t, delta, rate). Returns false with state.error set on failure.
  bool start(double t, double delta, double rate, const impact_options& o) {
    double* v = cvode.state();
    v[0] = delta;
    v[1] = rate;
    void* mem = cvode.memory();
    int flag = 0;
    if (!initialised) {
      flag = CVodeInit(mem, rhs, t, cvode.y());
      if (flag == CV_SUCCESS) flag = cvode.use_fixed_point();
      if (flag == CV_SUCCESS) flag = CVodeRootInit(mem, 2, root);
      if (flag == CV_SUCCESS) flag = CVodeSetUserData(mem, &state);
      if (flag == CV_SUCCESS) flag = cvode.keep_first_error(state.error);
      if (flag == CV_SUCCESS) flag = CVodeSetNoInactiveRootWarn(mem);
      initialised = flag == CV_SUCCESS;
    } else {
      flag = CVodeReInit(mem, t, cvode.y());
    }
    if (flag == CV_SUCCESS) flag = CVodeSVtolerances(mem, o.relative_tolerance, cvode.abstol());
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(mem, o.max_steps);
    int directions[2] = {-1, -1};  // delta' or the margin falling to 0; dF/dt turning negative
    if (flag == CV_SUCCESS) flag = CVodeSetRootDirection(mem, directions);
    if (flag != CV_SUCCESS && state.error.empty())
      state.error = fmt::format("CVODE setup failed (flag {})", flag);
    return flag == CV_SUCCESS;
  }

  // y(t) [delta, rate] inside the last step.
  std::pair<double, double> at(double t) const {
    const double* d = cvode.dense_state(t);
    return {d[0], d[1]};
  }

  // A fresh callback state for an impact with run.law.
  void begin(impact_run& run) {
    state = callback_state{};
    state.law = &run.law;
    state.mass = run.m;
  }

  // Ends the impact with a failure; the result keeps what was found before it.
  void fail(impact_run& run, impact_status status, const std::string& what) {
    run.r.status = status;
    run.r.message = what;
    run.r.rhs_evaluations = state.evaluations;
  }

  impact_status failure_status() const {
    if (state.model_failures > 0) return impact_status::model_error;
    if (state.error.rfind("more than max_steps", 0) == 0) return impact_status::too_many_steps;
    return impact_status::solver_error;
  }

  // First touch, and the scales of the integration from it. False (the result says why) when the
  // law fails there.
  bool prepare(impact_run& run) {
    try {
      run.law.force(0.0, run.v0);  // first touch: laws that record the impact velocity do it here
    } catch (const std::exception& e) {
      fail(run, impact_status::model_error, e.what());
      return false;
    }
    run.scale = overlap_scale(run.law, run.m, run.v0);
    double* atol = cvode.abstol_values();
    atol[0] = run.o.absolute_tolerance * run.scale;
    atol[1] = run.o.absolute_tolerance * run.v0;
    state.rate_step = 1e-7 * run.scale / run.v0;
    try {
      probe_law(run);
    } catch (const std::exception& e) {
      fail(run, impact_status::model_error, e.what());
      return false;
    }
    return true;
  }

  // History samples on CVODE's dense output of the last step, (t_prev, t_end].
  void sample_step(impact_run& run, double t_prev, double t_end) {
    const int k = run.o.samples_per_step;
    for (int i = 1; i <= k; ++i) {
      const double t = i == k ? t_end : t_prev + (t_end - t_prev) * i / k;
      const auto [d, v] = at(t);
      run.r.history.push_back({t, d, v, run.law.peek_force(d, v)});
    }
  }

  // Integrates one phase to its terminal root (g[0]) with CVODE; returns the state there.
  // With a history, every step is sampled on its dense output; without, CVODE runs from root
  // to root (the peak force, the peak overlap, the release) on its own.
  phase_end integrate_cvode(impact_run& run, phase p, double t0, double d0, double rate0,
                            double& t_root) {
    const impact_options& o = run.o;
    if (!start(t0, d0, rate0, o)) return std::nullopt;
    const int mode = o.record_history ? CV_ONE_STEP : CV_NORMAL;
    double t_prev = t0;
    for (long calls = 0;; ++calls) {
      double t = 0.0;
      const int flag = CVode(cvode.memory(), t0 + 1e6, cvode.y(), &t, mode);
      if (flag == CV_TOO_MUCH_WORK || (flag >= 0 && calls >= o.max_steps)) {
        state.error = too_many_steps(o, p);
        return std::nullopt;
      }
      if (flag < 0) {
        if (state.error.empty()) state.error = CVodeGetReturnFlagName(flag);
        return std::nullopt;
      }
      if (o.record_history) sample_step(run, t_prev, t);
      t_prev = t;
      if (flag == CV_ROOT_RETURN) {
        if (const auto end = cvode_root(run, t, t_root)) return end;
      }
    }
  }

  // At a root CVODE returned at t: the force there counts for the peak; the state is returned
  // if the root is the terminal one (g[0]).
  phase_end cvode_root(impact_run& run, double t, double& t_root) {
    const double* v = cvode.state();
    int found[2] = {0, 0};
    CVodeGetRootInfo(cvode.memory(), found);
    run.r.peak_force = std::max(run.r.peak_force, run.law.peek_force(v[0], v[1]));
    // One force peak per loading phase: searching on would restart CVODE on a root of a
    // finite difference that can be exactly zero on both sides (CV_CLOSE_ROOTS).
    if (found[1] != 0) state.find_force_peak = false;
    if (found[0] == 0) return std::nullopt;
    t_root = t;
    long steps = 0;
    CVodeGetNumSteps(cvode.memory(), &steps);
    run.r.steps += steps;
    return std::make_pair(v[0], v[1]);
  }

  // One phase with the chosen integrator; the force peak is searched while loading a
  // rate-dependent law only.
  phase_end integrate(impact_run& run, phase p, double t0, double d0, double rate0,
                      double& t_root) {
    state.current = p;
    state.find_force_peak = run.rate_dependent && p == phase::loading;
    return run.o.integrator == impact_integrator::cvode_adams
               ? integrate_cvode(run, p, t0, d0, rate0, t_root)
               : dopri5_phase(run, state).integrate(p, t0, d0, rate0, t_root);
  }

  // Loading to the peak overlap, then unloading to the release, into run.r.
  void run_phases(impact_run& run) {
    impact_result& r = run.r;
    try {
      // Loading. The history needs no update inside the phase: delta only grows, and at or
      // above the largest overlap every law is on its loading curve.
      double t_peak = 0.0;
      const auto peak = integrate(run, phase::loading, 0.0, 0.0, run.v0, t_peak);
      if (!peak) {
        fail(run, failure_status(), state.error);
        return;
      }
      r.peak_overlap = peak->first;
      r.compression_duration = t_peak;
      run.law.force(peak->first, peak->second);  // commit delta_m (and F_m, ...)

      // Unloading, restarted at the peak so that no step straddles the change of branch.
      double t_release = 0.0;
      const auto release =
          integrate(run, phase::unloading, t_peak, peak->first, peak->second, t_release);
      if (!release) {
        fail(run, failure_status(), state.error);
        return;
      }
      run.law.force(release->first, release->second);
      r.contact_duration = t_release;
      r.residual_overlap = std::max(0.0, release->first);
      r.rhs_evaluations = state.evaluations;
      record_rebound(run, release->second);
    } catch (const std::exception& e) {  // from a law evaluated outside the callbacks
      fail(run, impact_status::model_error, e.what());
    }
  }
};

impact_simulator::impact_simulator() : impl_(std::make_unique<impl>()) {}
impact_simulator::~impact_simulator() = default;
impact_simulator::impact_simulator(impact_simulator&&) noexcept = default;
impact_simulator& impact_simulator::operator=(impact_simulator&&) noexcept = default;

impact_result impact_simulator::run(const contact::contact_law& law_in, const impact_options& o) {
  o.validate();
  const double m = contact::effective_mass(o.mass_1, o.mass_2);
  if (law_in.is_impact_map()) return impact_map_result(law_in, o, m);  // Brake 2014 eq. (11)
  impact_run run(o, law_in, m);
  impl_->begin(run);
  if (impl_->prepare(run)) impl_->run_phases(run);
  return std::move(run.r);
}

impact_result simulate_impact(const contact::contact_law& law, const impact_options& options) {
  impact_simulator simulator;
  return simulator.run(law, options);
}

}  // namespace contactuq::dynamics
