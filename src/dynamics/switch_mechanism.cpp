#include "contactuq/dynamics/switch_mechanism.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <optional>

#include "contactuq/contact/cor.hpp"
#include "contactuq/error.hpp"
#include "contactuq/ode/dense_output.hpp"
#include "switch_equations.hpp"

namespace contactuq::dynamics {

void switch_params::validate() const {
  auto finite = [](double v) { return std::isfinite(v); };
  require(finite(m1) && m1 > 0, "m1", m1, "kg", "positive and finite");
  require(finite(m2) && m2 > 0, "m2", m2, "kg", "positive and finite");
  require(finite(m3) && m3 > 0, "m3", m3, "kg", "positive and finite");
  require(finite(k_d) && k_d >= 0, "k_d", k_d, "N/m", ">= 0 and finite");
  require(finite(F0) && F0 > 0, "F0", F0, "N", "positive and finite");
  require(finite(k12) && k12 >= 0, "k12", k12, "N/m", ">= 0 and finite");
  require(finite(c12) && c12 >= 0, "c12", c12, "N*s/m", ">= 0 and finite");
  require(finite(k3) && k3 >= 0, "k3", k3, "N/m", ">= 0 and finite");
  require(finite(c3) && c3 >= 0, "c3", c3, "N*s/m", ">= 0 and finite");
  require(finite(g0) && g0 > 0, "g0", g0, "m", "positive and finite");
  receptacle.validate();
  require(finite(d0), "d0", d0, "m", "finite");
  require(arms >= 1, "arms", arms, "", "an integer >= 1");
  require(finite(v_t) && v_t > 0, "v_t", v_t, "m/s", "positive and finite");
}

void switch_options::validate() const {
  require(std::isfinite(t_end) && t_end > 0, "t_end", t_end, "s", "positive and finite");
  require(relative_tolerance >= 1e-13 && relative_tolerance <= 1e-3, "relative_tolerance",
          relative_tolerance, "", "in [1e-13, 1e-3]");
  require(absolute_tolerance > 0 && absolute_tolerance <= 1e-3, "absolute_tolerance",
          absolute_tolerance, "", "in (0, 1e-3]");
  require(max_steps >= 10 && max_steps <= 100000000, "max_steps", static_cast<double>(max_steps), "", "in [10, 1e8]");
  require(curve_points == 0 || (curve_points >= 2 && curve_points <= 1000000), "curve_points",
          curve_points, "", "0 (no curves) or in [2, 1000000]");
  require(std::isfinite(settle_band) && settle_band > 0, "settle_band", settle_band, "m",
          "positive and finite");
  require(impact_count_fraction >= 0 && impact_count_fraction < 1, "impact_count_fraction",
          impact_count_fraction, "", "in [0, 1)");
  require(stick_fraction > 0 && stick_fraction <= 0.1, "stick_fraction", stick_fraction, "",
          "in (0, 0.1]");
}

namespace {

using namespace detail;

namespace odeint = boost::numeric::odeint;

// One simulation of the switch from release to t_end: the mechanism, the integrator on scaled
// states with its dense output, the event search, and the result filled step by step. run() is
// the loop; each step is a method named for what it does.
class switch_simulation {
 public:
  switch_simulation(const switch_params& p, const contact::contact_law& law_in,
                    const switch_options& o);
  switch_simulation(const switch_simulation&) = delete;
  switch_simulation& operator=(const switch_simulation&) = delete;

  switch_result run();

 private:
  enum class event { none, start, release, peak, part };

  // One integrator step: from (ta, y_a) to (tb, y_b), events at its end.
  struct step_span {
    state y_a;
    double ta;
    double tb;
    state y_b;
    event_values g_b;
  };
  // The earliest event that changes the equations inside a step, and where it happens.
  struct step_stop {
    event which = event::none;
    double t;
  };

  state to_physical(const state& z) const;
  state to_scaled(const state& y) const;
  // Inlined into the stepper, as the right-hand side is called at every stage of every step.
  [[gnu::always_inline]] inline void system(const state& z, state& dz, double);
  event_values events(const state& y);
  state at(double tau);
  template <class G>
  double locate(double a, double b, double ga, double gb, G&& g);

  void record_state(double tau_s, const state& s);
  void mark(const char* name, double tau_s);
  void start_curves();
  void record_points(double tau_to, const state* y_to);
  void fail(switch_status status, const std::string& what);
  void leave_stop(state& s);

  bool advance();
  step_stop find_event(const step_span& s);
  void watch_closure(double ta, double t_stop, const event_values& g_s);
  void watch_carrier(double ta, double t_stop, const state& y_s, const event_values& g_s);
  void watch_rebound(double ta, double t_stop, const state& y_s, const event_values& g_s);
  void watch_peak_force(double ta, double t_stop, const state& y_a, const state& y_s);
  double apply_event(event which, const state& y_a);
  double contact_start(const state& y_a, double d, double v, double dt);
  void restart(double dt);
  void finish();
  void energy_balance(double contact_energy, double arm_energy);
  void settling();

  const switch_params& p_;
  const switch_options& o_;
  switch_result r_;
  mechanism m_;
  const double x_closed_;  // round to barrel, (1.67) with (1.80)

  // Scales: the integrator sees states of order one.
  const double length_ = p_.g0;
  const double speed_ = std::sqrt(2 * p_.F0 * p_.g0 / (p_.m1 + p_.m2));
  const double energy_ = p_.F0 * p_.g0;
  const double time_ = length_ / speed_;
  const state scale_ = {length_, speed_, length_, speed_, length_, speed_, energy_, energy_, energy_};

  // Steps of at most t_end / 100, so that no step hides a whole bounce from the event search.
  const double tau_end_ = o_.t_end / time_;
  ode::dopri5_dense_output<state> stepper_ =
      ode::make_dopri5<state>(o_.absolute_tolerance, o_.relative_tolerance, tau_end_ / 100);

  // Curves on the fixed grid, or at every step (record_steps).
  const std::size_t points_ = o_.record_steps ? 0 : static_cast<std::size_t>(o_.curve_points);
  std::size_t next_point_ = 0;
  // Slider positions for the settling time.
  std::vector<std::pair<double, double>> track_;

  state y_{};  // released from rest
  double tau_ = 0.0;
  event_values g_prev_;
  bool failed_ = false;

  bool on_barrel_ = false;
  double first_speed_ = 0.0;       // delta' at the first contact start
  double contact_step_ = 0.0;      // first step after a contact start [scaled time]
  bool tracking_rebound_ = false;  // in the free flight after the first impact
  double release_overlap_ = 0.0;   // delta where the first impact let go
  double min_overlap_ = 0.0;       // smallest delta in that flight
  bool first_contact_done_ = false;
  bool carrier_turned_ = false;  // the carrier turned back after closing
  double lowest_carrier_ = std::numeric_limits<double>::infinity();  // x2 from then on
};

switch_simulation::switch_simulation(const switch_params& p, const contact::contact_law& law_in,
                                     const switch_options& o)
    : p_(p),
      o_(o),
      m_{p, law_in, contact::receptacle_arm(p.receptacle, p.d0, contact::arm_direction::engage),
         static_cast<double>(p.arms), law_in.is_impact_map()},
      x_closed_(m_.arm.critical().x[3]) {
  r_.law = std::string(law_in.name());
  r_.closure_position = x_closed_;
  start_curves();
  track_.reserve(2048);
  stepper_.initialize(to_scaled(y_), tau_, 1e-3);
  g_prev_ = events(y_);
  if (points_ > 0) {
    for (auto* curve : {&r_.slider, &r_.carrier, &r_.stop, &r_.force}) curve->push_back(0.0);
    next_point_ = 1;
  }
  if (o_.record_steps) record_state(0.0, y_);
  track_.emplace_back(0.0, 0.0);
}

inline state switch_simulation::to_physical(const state& z) const {
  state y;
  for (std::size_t i = 0; i < n_state; ++i) y[i] = z[i] * scale_[i];
  return y;
}

state switch_simulation::to_scaled(const state& y) const {
  state z;
  for (std::size_t i = 0; i < n_state; ++i) z[i] = y[i] / scale_[i];
  return z;
}

inline void switch_simulation::system(const state& z, state& dz, double) {
  state dy;
  m_.rhs(to_physical(z), dy);
  for (std::size_t i = 0; i < n_state; ++i) dz[i] = dy[i] * time_ / scale_[i];
}

event_values switch_simulation::events(const state& y) {
  event_values g;
  const double d = m_.overlap(y), v = mechanism::overlap_rate(y);
  g.closure = y[X2] - x_closed_;
  g.turn = v;
  g.carrier = y[V2];
  switch (m_.current) {
    case mode::free:
      g.start = m_.impact_map ? d : std::min(d, m_.law.release_margin(d, v));
      break;
    case mode::contact:
      g.release = m_.law.release_margin(d, v);
      g.peak = d > m_.max_overlap ? v : 1.0;
      break;
    case mode::stuck:
      g.part = m_.stuck_force(y);
      break;
  }
  return g;
}

state switch_simulation::at(double tau) {
  state z;
  stepper_.calc_state(tau, z);
  return to_physical(z);
}

// First crossing of a function of the state (positive before, <= 0 after) in [a, b] on the
// dense output; returns the time on the far side.
template <class G>
double switch_simulation::locate(double a, double b, double ga, double gb, G&& g) {
  return ode::locate_crossing(a, b, ga, gb, [&](double c) { return g(at(c)); });
}

void switch_simulation::record_state(double tau_s, const state& s) {
  r_.time.push_back(tau_s * time_);
  r_.slider.push_back(s[X1]);
  r_.carrier.push_back(s[X2]);
  r_.stop.push_back(s[X3]);
  r_.force.push_back(m_.contact_force(s));
}

void switch_simulation::mark(const char* name, double tau_s) {
  if (o_.record_steps) r_.events.push_back({name, tau_s * time_});
}

// The fixed time grid of the curves.
void switch_simulation::start_curves() {
  if (points_ > 0) {
    r_.time.resize(points_);
    for (std::size_t k = 0; k < points_; ++k)
      r_.time[k] = o_.t_end * static_cast<double>(k) / static_cast<double>(points_ - 1);
    for (auto* curve : {&r_.slider, &r_.carrier, &r_.stop, &r_.force}) curve->reserve(points_);
  }
}

void switch_simulation::record_points(double tau_to, const state* y_to) {
  while (next_point_ < points_) {
    const double tau = next_point_ + 1 == points_ ? tau_end_ : r_.time[next_point_] / time_;
    if (tau > tau_to) break;
    const state y = (y_to && tau == tau_to) ? *y_to : at(tau);
    r_.slider.push_back(y[X1]);
    r_.carrier.push_back(y[X2]);
    r_.stop.push_back(y[X3]);
    r_.force.push_back(m_.contact_force(y));
    ++next_point_;
  }
}

void switch_simulation::fail(switch_status status, const std::string& what) {
  r_.status = status;
  r_.message = what;
  r_.rhs_evaluations = m_.evaluations;
  failed_ = true;
}

// An impact map leaves the stop from just outside it (delta < 0 by a rounding error), so that
// the next approach is a crossing of delta = 0.
void switch_simulation::leave_stop(state& s) {
  while (m_.overlap(s) >= 0) s[X1] = std::nextafter(s[X1], -1.0);
}

switch_result switch_simulation::run() {
  try {
    while (advance()) {
    }
  } catch (const model_error& e) {
    fail(switch_status::model_error, e.what());
  } catch (const odeint::step_adjustment_error& e) {
    fail(switch_status::solver_error,
         fmt::format("step size control failed at t = {} s: {}", tau_ * time_, e.what()));
  }
  if (!failed_) finish();
  return std::move(r_);
}

// One integrator step, cut at the earliest event, its book-keeping and the restart after the
// event; false when the run is over (t_end, the first impact with stop_at_first_impact, or a
// failure).
bool switch_simulation::advance() {
  if (r_.steps >= o_.max_steps) {
    fail(switch_status::too_many_steps,
         fmt::format("more than max_steps = {} steps before t = {} s", o_.max_steps, tau_ * time_));
    return false;
  }
  step_span s;
  s.y_a = y_;
  const auto step = stepper_.do_step(
      [this](const state& z, state& dz, double t) { system(z, dz, t); });
  s.ta = step.first;
  const double tb_step = step.second;
  ++r_.steps;
  const bool last = tb_step >= tau_end_;
  s.tb = last ? tau_end_ : tb_step;
  s.y_b = last ? at(s.tb) : to_physical(stepper_.current_state());
  s.g_b = events(s.y_b);

  const step_stop stop = find_event(s);
  const double ta = s.ta, t_stop = stop.t;
  const state y_s = stop.which == event::none ? s.y_b : at(t_stop);
  const event_values g_s = stop.which == event::none ? s.g_b : events(y_s);

  // Book-keeping inside (ta, t_stop]: closure and chatter, the rebound, the peak force.
  watch_closure(ta, t_stop, g_s);
  watch_carrier(ta, t_stop, y_s, g_s);
  watch_rebound(ta, t_stop, y_s, g_s);
  if (m_.current == mode::contact && !m_.impact_map) watch_peak_force(ta, t_stop, s.y_a, y_s);
  // A contact the event search missed would let the slider pass through the stop.
  if (m_.current == mode::free && m_.overlap(y_s) > m_.max_overlap + 0.01 * p_.g0) {
    fail(switch_status::solver_error,
         fmt::format("missed a contact start: the slider is {} m into the stop at t = {} s",
                     m_.overlap(y_s), t_stop * time_));
    return false;
  }
  record_points(t_stop, &y_s);
  if (o_.record_steps) record_state(t_stop, y_s);
  track_.emplace_back(t_stop * time_, y_s[X1]);

  y_ = y_s;
  tau_ = t_stop;
  if (stop.which != event::none) {
    ++r_.restarts;
    const double dt = apply_event(stop.which, s.y_a);
    if (o_.stop_at_first_impact && stop.which == event::start) return false;
    restart(dt);
  } else {
    g_prev_ = g_s;
  }
  return !(tau_ >= tau_end_);
}

// The earliest event that changes the equations ends the step there.
switch_simulation::step_stop switch_simulation::find_event(const step_span& s) {
  const double ta = s.ta, tb = s.tb;
  step_stop stop;
  stop.t = tb;
  auto consider = [&](event e, double before, double after, auto&& g) {
    if (!(before > 0 && after <= 0)) return;
    const double t = locate(ta, stop.t, before, after, g);
    if (stop.which == event::none || t < stop.t) stop.which = e, stop.t = t;
  };
  switch (m_.current) {
    case mode::free: {
      // A whole bounce can fit in one step (free flight under constant forces is a
      // polynomial the integrator follows exactly): the contact start is searched on four
      // sub-intervals of the step.
      constexpr int parts = 4;
      double a = ta, h_a = -g_prev_.start;
      for (int i = 1; i <= parts && stop.which == event::none; ++i) {
        const double b = i == parts ? tb : ta + (tb - ta) * i / parts;
        const double h_b = i == parts ? -s.g_b.start : -events(at(b)).start;
        if (h_a > 0 && h_b <= 0) {
          stop.t = locate(a, b, h_a, h_b, [&](const state& y) { return -events(y).start; });
          stop.which = event::start;
        }
        a = b, h_a = h_b;
      }
      break;
    }
    case mode::contact:
      consider(event::release, g_prev_.release, s.g_b.release,
               [&](const state& y) { return events(y).release; });
      // Re-evaluated at the shortened end when the release came first.
      consider(event::peak, g_prev_.peak,
               stop.which == event::none ? s.g_b.peak : events(at(stop.t)).peak,
               [&](const state& y) { return events(y).peak; });
      break;
    case mode::stuck:
      consider(event::part, g_prev_.part, s.g_b.part,
               [&](const state& y) { return events(y).part; });
      break;
  }
  return stop;
}

// Closure (the carrier reaches the pin barrel) and chatter (it falls back below it).
void switch_simulation::watch_closure(double ta, double t_stop, const event_values& g_s) {
  if (!on_barrel_ && g_prev_.closure < 0 && g_s.closure >= 0) {
    on_barrel_ = true;
    if (std::isnan(r_.closure_time)) {
      const double t = locate(ta, t_stop, -g_prev_.closure, -g_s.closure,
                              [&](const state& s) { return -(s[X2] - x_closed_); });
      r_.closure_time = t * time_;
      mark("closure", t);
    }
  } else if (on_barrel_ && g_prev_.closure >= 0 && g_s.closure < 0) {
    on_barrel_ = false;
    if (!r_.chatter) {
      r_.chatter = true;
      const double t = locate(ta, t_stop, g_prev_.closure, g_s.closure,
                              [&](const state& s) { return s[X2] - x_closed_; });
      r_.chatter_time = t * time_;
      mark("chatter", t);
    }
  }
}

// After the carrier's first turning point on the barrel: its lowest position, at its turning
// points (x2' rising through 0) and step ends.
void switch_simulation::watch_carrier(double ta, double t_stop, const state& y_s,
                                      const event_values& g_s) {
  if (!std::isnan(r_.closure_time)) {
    if (!carrier_turned_ && g_prev_.carrier > 0 && g_s.carrier <= 0) carrier_turned_ = true;
    if (carrier_turned_) {
      double low = y_s[X2];
      if (g_prev_.carrier < 0 && g_s.carrier >= 0) {
        const double t = locate(ta, t_stop, -g_prev_.carrier, -g_s.carrier,
                                [&](const state& s) { return -s[V2]; });
        low = std::min(low, at(t)[X2]);
      }
      lowest_carrier_ = std::min(lowest_carrier_, low);
    }
  }
}

// The smallest overlap in the free flight after the first impact (the rebound).
void switch_simulation::watch_rebound(double ta, double t_stop, const state& y_s,
                                      const event_values& g_s) {
  if (tracking_rebound_) {
    min_overlap_ = std::min(min_overlap_, mechanism::overlap(y_s, p_.g0));
    if (g_prev_.turn < 0 && g_s.turn >= 0) {
      const double t = locate(ta, t_stop, -g_prev_.turn, -g_s.turn,
                              [&](const state& s) { return -mechanism::overlap_rate(s); });
      min_overlap_ = std::min(min_overlap_, mechanism::overlap(at(t), p_.g0));
    }
  }
}

// The largest contact force at the step's ends and inside it.
void switch_simulation::watch_peak_force(double ta, double t_stop, const state& y_a,
                                         const state& y_s) {
  const double f_a = m_.contact_force(y_a), f_s = m_.contact_force(y_s);
  r_.peak_contact_force = std::max({r_.peak_contact_force, f_a, f_s});
  // Inside the step (a damped law peaks before the overlap does): 8 samples and the
  // vertex of the parabola through the largest one and its neighbours.
  if (std::max(f_a, f_s) > 0.25 * r_.peak_contact_force) {
    constexpr int k = 8;
    std::array<double, k + 1> f{};
    f[0] = f_a;
    int best = 0;
    for (int i = 1; i <= k; ++i) {
      f[i] = i == k ? f_s : m_.contact_force(at(ta + (t_stop - ta) * i / k));
      if (f[i] > f[best]) best = i;
    }
    r_.peak_contact_force = std::max(r_.peak_contact_force, f[best]);
    if (best > 0 && best < k) {
      double tv = ta + (t_stop - ta) * best / k;
      const double den = f[best - 1] - 2 * f[best] + f[best + 1];
      if (den < 0) {
        const double shift = 0.5 * (f[best - 1] - f[best + 1]) / den;  // in (-1/2, 1/2)
        const double t_vertex = ta + (t_stop - ta) * (best + shift) / k;
        const double f_vertex = m_.contact_force(at(t_vertex));
        r_.peak_contact_force = std::max(r_.peak_contact_force, f_vertex);
        if (f_vertex > f[best]) tv = t_vertex;
      }
      if (o_.record_steps) record_state(tv, at(tv));  // the peak inside the step
    }
  }
}

// The mode change at the event that ended the step (at y_, tau_); returns the first step after
// the restart.
double switch_simulation::apply_event(event which, const state& y_a) {
  const double d = m_.overlap(y_), v = mechanism::overlap_rate(y_);
  double dt = stepper_.current_time_step();
  switch (which) {
    case event::start:
      dt = contact_start(y_a, d, v, dt);
      break;
    case event::peak:
      mark("peak overlap", tau_);
      m_.law.force(d, v);  // commits delta_m (and F_m, ...): unloading from here
      m_.max_overlap = std::max(m_.max_overlap, d);
      r_.peak_contact_force = std::max(r_.peak_contact_force, m_.law.peek_force(d, v));
      break;
    case event::release:
      mark("contact end", tau_);
      m_.law.force(d, v);
      m_.current = mode::free;
      if (!first_contact_done_) {
        first_contact_done_ = true;
        r_.first_restitution = -v / first_speed_;
        tracking_rebound_ = true;
        release_overlap_ = min_overlap_ = d;
      }
      break;
    case event::part:
      mark("bodies part", tau_);
      m_.current = mode::free;
      leave_stop(y_);
      break;
    case event::none:
      break;
  }
  return dt;
}

// A contact start at overlap d and rate v: counted, then an impact map's velocity jump
// (or sticking), or the law's contact from here on. y_a: the state the step came from.
double switch_simulation::contact_start(const state& y_a, double d, double v, double dt) {
  state& y = y_;
  mark("contact start", tau_);
  ++r_.contacts;
  if (r_.contacts == 1) {
    first_speed_ = v;
    r_.impact_time = tau_ * time_;
    r_.impact_velocity = v;
  }
  if (v >= o_.impact_count_fraction * first_speed_) ++r_.impacts;
  if (tracking_rebound_) tracking_rebound_ = false;
  if (o_.stop_at_first_impact) return dt;
  if (m_.impact_map) {
    // Brake 2014 eq. (11); below the sticking speed the bodies stick (e = 0) while
    // they press on each other, and merely touch (no jump) where they would not.
    const double mass = p_.m1 * p_.m3 / (p_.m1 + p_.m3);
    const double common = (p_.m1 * y[V1] + p_.m3 * y[V3]) / (p_.m1 + p_.m3);
    state stuck = y;
    stuck[V1] = stuck[V3] = common;
    const bool slow = !(v > o_.stick_fraction * first_speed_);
    const bool stick = slow && m_.stuck_force(stuck) > 0;
    const double e = stick ? 0.0 : slow ? 1.0 : m_.law.restitution();
    if (stick) {
      y = stuck;
      y[X1] = y[X3] + p_.g0;
      m_.current = mode::stuck;
    } else if (!slow) {
      const auto out = contact::cor_impact(contact::cor_params{e}, p_.m1, p_.m3, y[V1], y[V3]);
      y[V1] = out.velocity_1;
      y[V3] = out.velocity_2;
    }
    if (!stick) leave_stop(y);
    y[W_CONTACT] += 0.5 * mass * (1 - e * e) * std::max(v, 0.0) * std::max(v, 0.0);
    if (r_.contacts == 1) {
      r_.first_restitution = e;
      first_contact_done_ = true;
      if (!stick) {
        tracking_rebound_ = true;
        release_overlap_ = min_overlap_ = d;
      }
    }
  } else {
    // The law sees the open state the flight came from, then the first touch.
    if (m_.overlap(y_a) < 0) m_.law.force(m_.overlap(y_a), mechanism::overlap_rate(y_a));
    m_.law.force(d, v);
    m_.current = mode::contact;
    if (contact_step_ == 0.0) contact_step_ = 0.02 * m_.overlap_scale(v) / v / time_;
    dt = std::min(dt, contact_step_);
  }
  return dt;
}

// The integrator started again at the event, in the new mode.
void switch_simulation::restart(double dt) {
  stepper_.initialize(to_scaled(y_), tau_, dt);
  // The new mode's event starts armed, so that an event right after the restart (the
  // stuck bodies press again after parting, a released contact closes again) is caught.
  g_prev_ = events(y_);
  constexpr double tiny = std::numeric_limits<double>::denorm_min();
  g_prev_.start = std::min(g_prev_.start, -tiny);
  g_prev_.release = std::max(g_prev_.release, tiny);
  g_prev_.part = std::max(g_prev_.part, tiny);
}

// The outputs from the state where the run ended: final state, energy balance, closure,
// rebound, the notes on outputs left NaN, and the settling time.
void switch_simulation::finish() {
  const state& y = y_;
  r_.rhs_evaluations = m_.evaluations;
  std::stable_sort(r_.events.begin(), r_.events.end(),
                   [](const switch_event& a, const switch_event& b) { return a.time < b.time; });
  r_.x1 = y[X1], r_.v1 = y[V1], r_.x2 = y[X2], r_.v2 = y[V2], r_.x3 = y[X3], r_.v3 = y[V3];
  r_.contact_force = m_.contact_force(y);
  const double t_reached = tau_ * time_;

  const double theta = m_.arm.evaluate(y[X2], 0.0).theta;
  const double arm_energy = 0.5 * m_.n_arms * p_.receptacle.K * theta * theta;
  const double residual = m_.impact_map ? 0.0 : m_.residual_overlap();
  const double contact_energy = m_.impact_map ? 0.0 : m_.contact_energy(m_.overlap(y), residual);
  energy_balance(contact_energy, arm_energy);

  r_.closed = y[X2] >= x_closed_;
  if (!std::isnan(r_.closure_time)) r_.closure_margin = std::min(lowest_carrier_, y[X2]) - x_closed_;
  if (std::isnan(r_.closure_time))
    r_.notes.push_back(
        fmt::format("closure_time, closure_margin: the carrier never reached the pin barrel "
                    "(x_cr,4 = {:.4g} mm) "
                    "by t = {:.4g} s",
                    x_closed_ * 1e3, t_reached));
  if (r_.contacts == 0) {
    r_.notes.push_back(
        fmt::format("impact_velocity, first_restitution, rebound_amplitude: the slider never "
                    "reached the stop by "
                    "t = {:.4g} s",
                    t_reached));
  } else if (!first_contact_done_) {
    r_.first_restitution = 0.0;  // still in contact at the end: no rebound
    r_.rebound_amplitude = 0.0;
  } else {
    r_.rebound_amplitude = release_overlap_ - min_overlap_;
  }
  if (m_.impact_map) {
    r_.peak_contact_force = nan;
    r_.residual_indentation = nan;
    r_.notes.push_back(
        "peak_contact_force, residual_indentation: an impact map (cor) has no contact force or "
        "overlap, it changes the velocities instantly (Brake 2014 eq. 11)");
  } else {
    r_.residual_indentation = residual;
  }
  settling();
}

// Energy balance: W_drive = kinetic + stored + dissipated.
void switch_simulation::energy_balance(double contact_energy, double arm_energy) {
  const state& y = y_;
  auto& en = r_.energy;
  en.drive_work = p_.F0 * y[X1] - 0.5 * p_.k_d * y[X1] * y[X1];
  en.kinetic = 0.5 * (p_.m1 * y[V1] * y[V1] + p_.m2 * y[V2] * y[V2] + p_.m3 * y[V3] * y[V3]);
  en.stored = 0.5 * p_.k12 * (y[X1] - y[X2]) * (y[X1] - y[X2]) + 0.5 * p_.k3 * y[X3] * y[X3] +
              arm_energy + contact_energy;
  en.dissipated_contact = y[W_CONTACT] - contact_energy;
  en.dissipated_dampers = y[W_DAMPERS];
  en.dissipated_receptacle = -y[W_RECEPTACLE] - arm_energy;
}

// Settling: the last time the slider was outside the band around its final position.
void switch_simulation::settling() {
  double last_out = 0.0;
  for (auto it = track_.rbegin(); it != track_.rend(); ++it)
    if (std::abs(it->second - y_[X1]) > o_.settle_band) {
      last_out = it->first;
      break;
    }
  if (o_.stop_at_first_impact) {
    r_.settling_time = nan;
  } else if (last_out > 0.9 * o_.t_end) {
    r_.notes.push_back(fmt::format(
        "settling_time: the slider still moves by more than settle_band = {:.3g} um after 90 % of "
        "t_end = {:.4g} s",
        o_.settle_band * 1e6, o_.t_end));
  } else {
    r_.settling_time = last_out;
  }
}

}  // namespace

switch_result simulate_switch(const switch_params& p, const contact::contact_law& law_in,
                              const switch_options& o) {
  p.validate();
  o.validate();
  return switch_simulation(p, law_in, o).run();
}

}  // namespace contactuq::dynamics
