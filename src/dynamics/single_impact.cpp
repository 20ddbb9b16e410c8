#include "contactuq/dynamics/single_impact.hpp"

#include <cvode/cvode.h>
#include <fmt/format.h>
#include <nvector/nvector_serial.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/cor.hpp"
#include "contactuq/error.hpp"

namespace contactuq::dynamics {

void impact_options::validate() const {
  contact::effective_mass(mass_1, mass_2);  // names mass_1 / mass_2
  require(approach_velocity > 0 && std::isfinite(approach_velocity), "approach_velocity",
          approach_velocity, "m/s", "positive and finite");
  require(relative_tolerance >= 1e-14 && relative_tolerance <= 1e-3, "relative_tolerance",
          relative_tolerance, "", "in [1e-14, 1e-3]");
  require(absolute_tolerance > 0 && absolute_tolerance <= 1e-3, "absolute_tolerance",
          absolute_tolerance, "", "in (0, 1e-3]");
  require(max_steps >= 10, "max_steps", static_cast<double>(max_steps), "", ">= 10");
  require(samples_per_step >= 1 && samples_per_step <= 1000, "samples_per_step",
          samples_per_step, "", "in [1, 1000]");
}

namespace {

enum class phase { loading, unloading };

// Shared with the CVODE callbacks. Exceptions never cross CVODE: a callback that catches one
// returns -1 and leaves the message here.
struct callback_state {
  contact::contact_law* law = nullptr;
  double mass = 0.0;
  phase current = phase::loading;
  long evaluations = 0;
  std::string error;
  bool model_failure = false;
};

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
    s.model_failure = true;
    return -1;  // CVODE retries with a smaller step; see the loop in run()
  }
}

int root(sunrealtype, N_Vector y, sunrealtype* g, void* data) {
  auto& s = *static_cast<callback_state*>(data);
  const double* in = N_VGetArrayPointer(y);
  try {
    g[0] = s.current == phase::loading ? in[1] : s.law->release_margin(in[0], in[1]);
    return 0;
  } catch (const std::exception& e) {
    s.error = e.what();
    s.model_failure = true;
    return -1;
  }
}

void error_handler(int, const char*, const char*, char* message, void* data) {
  auto& s = *static_cast<callback_state*>(data);
  if (s.error.empty()) s.error = message;
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

}  // namespace

struct impact_simulator::impl {
  SUNContext context = nullptr;
  N_Vector y = nullptr;
  N_Vector abstol = nullptr;
  N_Vector dky = nullptr;
  void* cvode = nullptr;
  SUNNonlinearSolver solver = nullptr;
  bool initialised = false;
  callback_state state;

  impl() {
    if (SUNContext_Create(nullptr, &context) != 0) throw std::runtime_error("SUNContext_Create failed");
    y = N_VNew_Serial(2, context);
    abstol = N_VNew_Serial(2, context);
    dky = N_VNew_Serial(2, context);
    cvode = CVodeCreate(CV_ADAMS, context);
    if (!y || !abstol || !dky || !cvode) {
      release();
      throw std::runtime_error("CVODE allocation failed");
    }
  }
  ~impl() { release(); }
  void release() {
    if (cvode) CVodeFree(&cvode);
    if (solver) SUNNonlinSolFree(solver);
    if (y) N_VDestroy(y);
    if (abstol) N_VDestroy(abstol);
    if (dky) N_VDestroy(dky);
    if (context) SUNContext_Free(&context);
  }

  // (Re)starts CVODE at (t, delta, rate). Returns false with state.error set on failure.
  bool start(double t, double delta, double rate, const impact_options& o) {
    double* v = N_VGetArrayPointer(y);
    v[0] = delta;
    v[1] = rate;
    int flag = 0;
    if (!initialised) {
      flag = CVodeInit(cvode, rhs, t, y);
      if (flag == CV_SUCCESS) {
        solver = SUNNonlinSol_FixedPoint(y, 0, context);
        flag = CVodeSetNonlinearSolver(cvode, solver);
      }
      if (flag == CV_SUCCESS) flag = CVodeRootInit(cvode, 1, root);
      if (flag == CV_SUCCESS) flag = CVodeSetUserData(cvode, &state);
      if (flag == CV_SUCCESS) flag = CVodeSetErrHandlerFn(cvode, error_handler, &state);
      if (flag == CV_SUCCESS) flag = CVodeSetNoInactiveRootWarn(cvode);
      initialised = flag == CV_SUCCESS;
    } else {
      flag = CVodeReInit(cvode, t, y);
    }
    if (flag == CV_SUCCESS) flag = CVodeSVtolerances(cvode, o.relative_tolerance, abstol);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(cvode, o.max_steps);
    int direction = -1;  // both roots are sought falling: delta' to 0, margin to 0
    if (flag == CV_SUCCESS) flag = CVodeSetRootDirection(cvode, &direction);
    if (flag != CV_SUCCESS && state.error.empty())
      state.error = fmt::format("CVODE setup failed (flag {})", flag);
    return flag == CV_SUCCESS;
  }

  // y(t) [delta, rate] inside the last step.
  std::pair<double, double> at(double t) {
    CVodeGetDky(cvode, t, 0, dky);
    const double* d = N_VGetArrayPointer(dky);
    return {d[0], d[1]};
  }
};

impact_simulator::impact_simulator() : impl_(std::make_unique<impl>()) {}
impact_simulator::~impact_simulator() = default;
impact_simulator::impact_simulator(impact_simulator&&) noexcept = default;
impact_simulator& impact_simulator::operator=(impact_simulator&&) noexcept = default;

impact_result impact_simulator::run(const contact::contact_law& law_in, const impact_options& o) {
  o.validate();
  impact_result r;
  r.law = std::string(law_in.name());
  const double m = contact::effective_mass(o.mass_1, o.mass_2);
  const double v0 = o.approach_velocity;
  // Body masses as fractions of the total, so that an infinite mass is the limit.
  const double mu_1 = std::isinf(o.mass_1) ? 1.0
                      : std::isinf(o.mass_2) ? 0.0
                                             : o.mass_1 / (o.mass_1 + o.mass_2);
  auto finish = [&](double rate_out) {
    r.restitution = -rate_out / v0;
    r.energy_dissipated = 0.5 * m * (v0 * v0 - rate_out * rate_out);
    r.impulse = m * (v0 - rate_out);
    // delta' = v1 - v2: before, v1 = v0 and v2 = 0; after, v1 - v2 = rate_out and
    // m1 v1 + m2 v2 = m1 v0.
    r.velocity_1 = v0 - (1 - mu_1) * (v0 - rate_out);
    r.velocity_2 = mu_1 * (v0 - rate_out);
  };

  if (law_in.is_impact_map()) {  // Brake 2014 eq. (11)
    const auto out = contact::cor_impact(contact::cor_params{law_in.restitution()}, o.mass_1,
                                         o.mass_2, v0, 0.0);
    r.restitution = law_in.restitution();
    r.peak_force = std::numeric_limits<double>::quiet_NaN();
    r.energy_dissipated = 0.5 * m * v0 * v0 * (1 - r.restitution * r.restitution);
    r.impulse = m * v0 * (1 + r.restitution);
    r.velocity_1 = out.velocity_1;
    r.velocity_2 = out.velocity_2;
    return r;
  }

  contact::contact_law law = law_in;
  auto& s = impl_->state;
  s = callback_state{&law, m, phase::loading, 0, {}, false};

  auto fail = [&](impact_status status, const std::string& what) {
    r.status = status;
    r.message = what;
    r.rhs_evaluations = s.evaluations;
    return r;
  };

  try {
    law.force(0.0, v0);  // first touch: laws that record the impact velocity do it here
  } catch (const std::exception& e) {
    return fail(impact_status::model_error, e.what());
  }
  const double scale = overlap_scale(law, m, v0);
  double* atol = N_VGetArrayPointer(impl_->abstol);
  atol[0] = o.absolute_tolerance * scale;
  atol[1] = o.absolute_tolerance * v0;

  auto sample = [&](double t, double d, double v) {
    const double f = law.peek_force(d, v);
    if (f > r.peak_force) r.peak_force = f;
    if (o.record_history) r.history.push_back({t, d, v, f});
    return f;
  };
  sample(0.0, 0.0, v0);

  // Samples (t_prev, t_end] of the last step; refines an interior force peak by golden section.
  auto sample_step = [&](double t_prev, double t_end) {
    const int k = o.samples_per_step;
    double best = -std::numeric_limits<double>::infinity();
    int best_i = 0;
    for (int i = 1; i <= k; ++i) {
      const double t = i == k ? t_end : t_prev + (t_end - t_prev) * i / k;
      const auto [d, v] = impl_->at(t);
      const double f = sample(t, d, v);
      if (f > best) {
        best = f;
        best_i = i;
      }
    }
    if (best_i < k && best >= r.peak_force) {  // the peak is inside this step
      const double h = (t_end - t_prev) / k;
      double a = t_prev + (best_i - 1) * h;
      double b = t_prev + (best_i + 1) * h;
      const double g = 0.5 * (std::sqrt(5.0) - 1);
      auto force_at = [&](double t) {
        const auto [d, v] = impl_->at(t);
        return law.peek_force(d, v);
      };
      double c = b - g * (b - a), e = a + g * (b - a);
      double fc = force_at(c), fe = force_at(e);
      for (int i = 0; i < 40 && b - a > 1e-12 * t_end; ++i) {
        if (fc > fe) {
          b = e, e = c, fe = fc, c = b - g * (b - a), fc = force_at(c);
        } else {
          a = c, c = e, fc = fe, e = a + g * (b - a), fe = force_at(e);
        }
      }
      r.peak_force = std::max({r.peak_force, fc, fe});
    }
  };

  // Integrates one phase to its root. Returns the root state, or nothing on failure.
  auto integrate = [&](phase p, double t0, double d0, double v0_phase,
                       double& t_root) -> std::optional<std::pair<double, double>> {
    s.current = p;
    if (!impl_->start(t0, d0, v0_phase, o)) return std::nullopt;
    double t_prev = t0;
    int failing_steps = 0;
    for (long step = 0;; ++step) {
      double t = 0.0;
      s.model_failure = false;
      const int flag = CVode(impl_->cvode, t0 + 1e6, impl_->y, &t, CV_ONE_STEP);
      if (flag < 0) {
        if (s.error.empty()) s.error = CVodeGetReturnFlagName(flag);
        return std::nullopt;
      }
      // CVODE retries a failed right-hand side with a smaller step. A law that has no answer
      // beyond some state (johnson_cylinder past delta*) then makes it creep towards that state;
      // after some such steps we report the law's message instead.
      if (s.model_failure) ++failing_steps;
      if (failing_steps >= 20) {
        s.model_failure = true;
        s.error += " (the integrator cannot step past this state)";
        return std::nullopt;
      }
      const double* y = N_VGetArrayPointer(impl_->y);
      sample_step(t_prev, t);
      t_prev = t;
      law.force(y[0], y[1]);  // advance the history on the accepted state
      if (flag == CV_ROOT_RETURN) {
        t_root = t;
        return std::make_pair(y[0], y[1]);
      }
      if (step >= o.max_steps) {
        s.error = fmt::format("more than max_steps = {} steps in the {} phase", o.max_steps,
                              p == phase::loading ? "loading" : "unloading");
        return std::nullopt;
      }
    }
  };
  auto failure_status = [&] {
    if (s.model_failure) return impact_status::model_error;
    if (s.error.rfind("more than max_steps", 0) == 0 || s.error == "CV_TOO_MUCH_WORK")
      return impact_status::too_many_steps;
    return impact_status::solver_error;
  };

  try {
    double t_peak = 0.0;
    const auto peak = integrate(phase::loading, 0.0, 0.0, v0, t_peak);
    if (!peak) return fail(failure_status(), s.error);
    r.peak_overlap = peak->first;
    r.compression_duration = t_peak;
    long steps = 0;
    CVodeGetNumSteps(impl_->cvode, &steps);
    r.steps = steps;

    double t_release = 0.0;
    const auto release = integrate(phase::unloading, t_peak, peak->first, peak->second, t_release);
    if (!release) return fail(failure_status(), s.error);
    CVodeGetNumSteps(impl_->cvode, &steps);
    r.steps += steps;
    r.contact_duration = t_release;
    r.residual_overlap = std::max(0.0, release->first);
    r.rhs_evaluations = s.evaluations;
    finish(release->second);
  } catch (const std::exception& e) {  // from a law evaluated outside the callbacks
    return fail(impact_status::model_error, e.what());
  }
  return r;
}

impact_result simulate_impact(const contact::contact_law& law, const impact_options& options) {
  impact_simulator simulator;
  return simulator.run(law, options);
}

}  // namespace contactuq::dynamics
