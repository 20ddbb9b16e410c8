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

constexpr std::size_t n_state = 9;
using state = std::array<double, n_state>;
// x1, v1, x2, v2, x3, v3, then three work integrals: into the contact (integral of F_c delta'
// dt, plus the energy an impact map removes), by the dampers, by the pin on the receptacle.
enum : std::size_t { X1, V1, X2, V2, X3, V3, W_CONTACT, W_DAMPERS, W_RECEPTACLE };

enum class mode {
  free,     // slider and stop apart (or touching without force)
  contact,  // the contact law carries force
  stuck,    // impact map: slider and stop move as one after a sticking impact
};

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The equations of motion in SI units.
struct mechanism {
  const switch_params& p;
  contact::contact_law law;
  contact::receptacle_arm arm;
  double n_arms;
  bool impact_map;
  mode current = mode::free;
  double max_overlap = 0.0;  // largest overlap committed to the law's history [m]
  long evaluations = 0;

  static double overlap(const state& y, double g0) { return y[X1] - y[X3] - g0; }
  double overlap(const state& y) const { return overlap(y, p.g0); }
  static double overlap_rate(const state& y) { return y[V1] - y[V3]; }

  double receptacle_force(double x2, double v2) const {
    return n_arms * arm.evaluate(x2, v2 / p.v_t).Fx;  // (1.5)/(1.82) with mu from (1.84)
  }
  double drive_force(const state& y) const { return p.F0 - p.k_d * y[X1]; }
  double link_force(const state& y) const {
    return p.k12 * (y[X1] - y[X2]) + p.c12 * (y[V1] - y[V2]);
  }
  double mount_force(const state& y) const { return -p.k3 * y[X3] - p.c3 * y[V3]; }

  // Force between slider and stop moving as one: m3 a - mount force, with the common
  // acceleration a of m1 + m3 under the external forces.
  double stuck_force(const state& y) const {
    const double a = (drive_force(y) - link_force(y) + mount_force(y)) / (p.m1 + p.m3);
    return p.m3 * a - mount_force(y);
  }

  double contact_force(const state& y) const {
    switch (current) {
      case mode::contact:
        return law.peek_force(overlap(y), overlap_rate(y));
      case mode::stuck:
        return stuck_force(y);
      case mode::free:
        break;
    }
    return 0.0;
  }

  void rhs(const state& y, state& dy) {
    ++evaluations;
    const double f12 = link_force(y);
    const double f3 = mount_force(y);
    const double fr = receptacle_force(y[X2], y[V2]);
    const double fd = drive_force(y);
    double fc = 0.0, a1 = 0.0, a3 = 0.0;
    if (current == mode::stuck) {
      a1 = a3 = (fd - f12 + f3) / (p.m1 + p.m3);
    } else {
      if (current == mode::contact) fc = law.peek_force(overlap(y), overlap_rate(y));
      a1 = (fd - f12 - fc) / p.m1;
      a3 = (f3 + fc) / p.m3;
    }
    const double dv12 = y[V1] - y[V2];
    dy[X1] = y[V1];
    dy[V1] = a1;
    dy[X2] = y[V2];
    dy[V2] = (f12 + fr) / p.m2;
    dy[X3] = y[V3];
    dy[V3] = a3;
    dy[W_CONTACT] = fc * overlap_rate(y);
    dy[W_DAMPERS] = p.c12 * dv12 * dv12 + p.c3 * y[V3] * y[V3];
    dy[W_RECEPTACLE] = fr * y[V2];
  }

  // Elastic energy in the contact: the law's force at rest integrated from where it is zero
  // (the residual overlap) to delta, 8-point Gauss-Legendre [J].
  double contact_energy(double delta, double from) const {
    if (current != mode::contact || !(delta > from)) return 0.0;
    static constexpr std::array<double, 4> x = {0.1834346424956498, 0.5255324099163290,
                                                0.7966664774136267, 0.9602898564975363};
    static constexpr std::array<double, 4> w = {0.3626837833783620, 0.3137066458778873,
                                                0.2223810344533745, 0.1012285362903763};
    const double mid = 0.5 * (delta + from), half = 0.5 * (delta - from);
    double sum = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
      sum +=
          w[i] * (law.peek_force(mid - half * x[i], 0.0) + law.peek_force(mid + half * x[i], 0.0));
    return half * sum;
  }

  // Overlap at which the law's force at rest is zero: its release margin crosses zero between
  // 0 and the largest overlap (the dent of an elastic-plastic contact; 0 for elastic laws).
  double residual_overlap() const {
    if (law.release_margin(0.0, 0.0) >= 0 || max_overlap <= 0) return 0.0;
    if (law.release_margin(max_overlap, 0.0) <= 0) return max_overlap;
    double lo = 0.0, hi = max_overlap;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * max_overlap; ++i) {
      const double mid = 0.5 * (lo + hi);
      (law.release_margin(mid, 0.0) > 0 ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
  }

  // delta* where F(delta*, 0) delta* = m v^2: the overlap scale of an impact at speed v [m].
  double overlap_scale(double v) const {
    const double target = p.m1 * p.m3 / (p.m1 + p.m3) * v * v;
    auto above = [&](double d) {
      try {
        return law.peek_force(d, 0.0) * d >= target;
      } catch (const std::exception&) {
        return true;
      }
    };
    double lo = -15.0, hi = 0.0;
    if (!above(1.0)) return 1.0;
    for (int i = 0; i < 12; ++i) {
      const double mid = 0.5 * (lo + hi);
      (above(std::pow(10.0, mid)) ? hi : lo) = mid;
    }
    return std::pow(10.0, hi);
  }
};

// Event functions at one state; which of them are armed depends on the mode.
struct event_values {
  double start = 0.0;    // free: rises through 0 at a contact start
  double release = 0.0;  // contact: falls through 0 where the force returns to zero
  double peak = 1.0;     // contact: delta' above the largest overlap, falls through 0 at a peak
  double part = 0.0;     // stuck: force between the stuck bodies, falls through 0
  double closure = 0.0;  // x2 - x_cr,4
  double turn = 0.0;     // delta': rises through 0 where the rebounding slider turns
  double carrier = 0.0;  // x2': rises through 0 where the carrier turns forward again
};

}  // namespace

switch_result simulate_switch(const switch_params& p, const contact::contact_law& law_in,
                              const switch_options& o) {
  p.validate();
  o.validate();
  namespace odeint = boost::numeric::odeint;

  switch_result r;
  r.law = std::string(law_in.name());
  mechanism m{p, law_in,
              contact::receptacle_arm(p.receptacle, p.d0, contact::arm_direction::engage),
              static_cast<double>(p.arms), law_in.is_impact_map()};
  const double x_closed = m.arm.critical().x[3];  // round to barrel, (1.67) with (1.80)
  r.closure_position = x_closed;

  // Scales: the integrator sees states of order one.
  const double length = p.g0;
  const double speed = std::sqrt(2 * p.F0 * p.g0 / (p.m1 + p.m2));
  const double energy = p.F0 * p.g0;
  const double time = length / speed;
  const state scale = {length, speed, length, speed, length, speed, energy, energy, energy};
  auto to_physical = [&](const state& z) {
    state y;
    for (std::size_t i = 0; i < n_state; ++i) y[i] = z[i] * scale[i];
    return y;
  };
  auto to_scaled = [&](const state& y) {
    state z;
    for (std::size_t i = 0; i < n_state; ++i) z[i] = y[i] / scale[i];
    return z;
  };
  auto system = [&](const state& z, state& dz, double) {
    state dy;
    m.rhs(to_physical(z), dy);
    for (std::size_t i = 0; i < n_state; ++i) dz[i] = dy[i] * time / scale[i];
  };

  auto events = [&](const state& y) {
    event_values g;
    const double d = m.overlap(y), v = mechanism::overlap_rate(y);
    g.closure = y[X2] - x_closed;
    g.turn = v;
    g.carrier = y[V2];
    switch (m.current) {
      case mode::free:
        g.start = m.impact_map ? d : std::min(d, m.law.release_margin(d, v));
        break;
      case mode::contact:
        g.release = m.law.release_margin(d, v);
        g.peak = d > m.max_overlap ? v : 1.0;
        break;
      case mode::stuck:
        g.part = m.stuck_force(y);
        break;
    }
    return g;
  };

  // Steps of at most t_end / 100, so that no step hides a whole bounce from the event search.
  const double tau_end = o.t_end / time;
  auto stepper = odeint::make_dense_output(o.absolute_tolerance, o.relative_tolerance,
                                           tau_end / 100, odeint::runge_kutta_dopri5<state>());
  auto at = [&](double tau) {
    state z;
    stepper.calc_state(tau, z);
    return to_physical(z);
  };

  // First crossing of a function (positive before, <= 0 after) in [a, b]: Illinois on the dense
  // output; returns the time on the far side.
  auto locate = [&](double a, double b, double ga, double gb, auto&& g) {
    int side = 0;
    for (int it = 0; it < 100 && b - a > 4e-16 * std::max(1.0, std::abs(b)); ++it) {
      double c = b - gb * (b - a) / (gb - ga);
      if (!(c > a && c < b)) c = 0.5 * (a + b);
      const double gc = g(at(c));
      if (gc > 0) {
        a = c, ga = gc;
        if (side == -1) gb *= 0.5;
        side = -1;
      } else {
        b = c, gb = gc;
        if (side == 1) ga *= 0.5;
        side = 1;
      }
    }
    return b;
  };

  // Curves on the fixed grid, or at every step (record_steps).
  const std::size_t points = o.record_steps ? 0 : static_cast<std::size_t>(o.curve_points);
  auto record_state = [&](double tau_s, const state& s) {
    r.time.push_back(tau_s * time);
    r.slider.push_back(s[X1]);
    r.carrier.push_back(s[X2]);
    r.stop.push_back(s[X3]);
    r.force.push_back(m.contact_force(s));
  };
  auto mark = [&](const char* name, double tau_s) {
    if (o.record_steps) r.events.push_back({name, tau_s * time});
  };
  std::size_t next_point = 0;
  if (points > 0) {
    r.time.resize(points);
    for (std::size_t k = 0; k < points; ++k)
      r.time[k] = o.t_end * static_cast<double>(k) / static_cast<double>(points - 1);
    for (auto* curve : {&r.slider, &r.carrier, &r.stop, &r.force}) curve->reserve(points);
  }
  auto record_points = [&](double tau_to, const state* y_to) {
    while (next_point < points) {
      const double tau = next_point + 1 == points ? tau_end : r.time[next_point] / time;
      if (tau > tau_to) break;
      const state y = (y_to && tau == tau_to) ? *y_to : at(tau);
      r.slider.push_back(y[X1]);
      r.carrier.push_back(y[X2]);
      r.stop.push_back(y[X3]);
      r.force.push_back(m.contact_force(y));
      ++next_point;
    }
  };

  // Slider positions for the settling time.
  std::vector<std::pair<double, double>> track;
  track.reserve(2048);

  state y{};  // released from rest
  double tau = 0.0;
  stepper.initialize(to_scaled(y), tau, 1e-3);
  event_values g_prev = events(y);
  if (points > 0) {
    for (auto* curve : {&r.slider, &r.carrier, &r.stop, &r.force}) curve->push_back(0.0);
    next_point = 1;
  }
  if (o.record_steps) record_state(0.0, y);
  track.emplace_back(0.0, 0.0);

  bool on_barrel = false;
  double first_speed = 0.0;       // delta' at the first contact start
  double contact_step = 0.0;      // first step after a contact start [scaled time]
  bool tracking_rebound = false;  // in the free flight after the first impact
  double release_overlap = 0.0;   // delta where the first impact let go
  double min_overlap = 0.0;       // smallest delta in that flight
  bool first_contact_done = false;
  bool carrier_turned = false;  // the carrier turned back after closing
  double lowest_carrier = std::numeric_limits<double>::infinity();  // x2 from then on

  auto fail = [&](switch_status status, const std::string& what) {
    r.status = status;
    r.message = what;
    r.rhs_evaluations = m.evaluations;
    return r;
  };

  enum class event { none, start, release, peak, part };
  // An impact map leaves the stop from just outside it (delta < 0 by a rounding error), so that
  // the next approach is a crossing of delta = 0.
  auto leave_stop = [&](state& s) {
    while (m.overlap(s) >= 0) s[X1] = std::nextafter(s[X1], -1.0);
  };

  try {
    for (;;) {
      if (r.steps >= o.max_steps)
        return fail(
            switch_status::too_many_steps,
            fmt::format("more than max_steps = {} steps before t = {} s", o.max_steps, tau * time));
      const state y_a = y;
      const auto step = stepper.do_step(system);
      const double ta = step.first, tb_step = step.second;
      ++r.steps;
      const bool last = tb_step >= tau_end;
      const double tb = last ? tau_end : tb_step;
      const state y_b = last ? at(tb) : to_physical(stepper.current_state());
      const event_values g_b = events(y_b);

      // The earliest event that changes the equations ends the step there.
      event which = event::none;
      double t_stop = tb;
      auto consider = [&](event e, double before, double after, auto&& g) {
        if (!(before > 0 && after <= 0)) return;
        const double t = locate(ta, t_stop, before, after, g);
        if (which == event::none || t < t_stop) which = e, t_stop = t;
      };
      switch (m.current) {
        case mode::free: {
          // A whole bounce can fit in one step (free flight under constant forces is a
          // polynomial the integrator follows exactly): the contact start is searched on four
          // sub-intervals of the step.
          constexpr int parts = 4;
          double a = ta, h_a = -g_prev.start;
          for (int i = 1; i <= parts && which == event::none; ++i) {
            const double b = i == parts ? tb : ta + (tb - ta) * i / parts;
            const double h_b = i == parts ? -g_b.start : -events(at(b)).start;
            if (h_a > 0 && h_b <= 0) {
              t_stop = locate(a, b, h_a, h_b, [&](const state& s) { return -events(s).start; });
              which = event::start;
            }
            a = b, h_a = h_b;
          }
          break;
        }
        case mode::contact:
          consider(event::release, g_prev.release, g_b.release,
                   [&](const state& s) { return events(s).release; });
          // Re-evaluated at the shortened end when the release came first.
          consider(event::peak, g_prev.peak,
                   which == event::none ? g_b.peak : events(at(t_stop)).peak,
                   [&](const state& s) { return events(s).peak; });
          break;
        case mode::stuck:
          consider(event::part, g_prev.part, g_b.part,
                   [&](const state& s) { return events(s).part; });
          break;
      }
      const state y_s = which == event::none ? y_b : at(t_stop);
      const event_values g_s = which == event::none ? g_b : events(y_s);

      // Book-keeping inside (ta, t_stop]: closure and chatter, the rebound, the peak force.
      if (!on_barrel && g_prev.closure < 0 && g_s.closure >= 0) {
        on_barrel = true;
        if (std::isnan(r.closure_time)) {
          const double t = locate(ta, t_stop, -g_prev.closure, -g_s.closure,
                                  [&](const state& s) { return -(s[X2] - x_closed); });
          r.closure_time = t * time;
          mark("closure", t);
        }
      } else if (on_barrel && g_prev.closure >= 0 && g_s.closure < 0) {
        on_barrel = false;
        if (!r.chatter) {
          r.chatter = true;
          const double t = locate(ta, t_stop, g_prev.closure, g_s.closure,
                                  [&](const state& s) { return s[X2] - x_closed; });
          r.chatter_time = t * time;
          mark("chatter", t);
        }
      }
      // After the carrier's first turning point on the barrel: its lowest position, at its
      // turning points (x2' rising through 0) and step ends.
      if (!std::isnan(r.closure_time)) {
        if (!carrier_turned && g_prev.carrier > 0 && g_s.carrier <= 0) carrier_turned = true;
        if (carrier_turned) {
          double low = y_s[X2];
          if (g_prev.carrier < 0 && g_s.carrier >= 0) {
            const double t = locate(ta, t_stop, -g_prev.carrier, -g_s.carrier,
                                    [&](const state& s) { return -s[V2]; });
            low = std::min(low, at(t)[X2]);
          }
          lowest_carrier = std::min(lowest_carrier, low);
        }
      }
      if (tracking_rebound) {
        min_overlap = std::min(min_overlap, mechanism::overlap(y_s, p.g0));
        if (g_prev.turn < 0 && g_s.turn >= 0) {
          const double t = locate(ta, t_stop, -g_prev.turn, -g_s.turn,
                                  [&](const state& s) { return -mechanism::overlap_rate(s); });
          min_overlap = std::min(min_overlap, mechanism::overlap(at(t), p.g0));
        }
      }
      if (m.current == mode::contact && !m.impact_map) {
        const double f_a = m.contact_force(y_a), f_s = m.contact_force(y_s);
        r.peak_contact_force = std::max({r.peak_contact_force, f_a, f_s});
        // Inside the step (a damped law peaks before the overlap does): 8 samples and the
        // vertex of the parabola through the largest one and its neighbours.
        if (std::max(f_a, f_s) > 0.25 * r.peak_contact_force) {
          constexpr int k = 8;
          std::array<double, k + 1> f{};
          f[0] = f_a;
          int best = 0;
          for (int i = 1; i <= k; ++i) {
            f[i] = i == k ? f_s : m.contact_force(at(ta + (t_stop - ta) * i / k));
            if (f[i] > f[best]) best = i;
          }
          r.peak_contact_force = std::max(r.peak_contact_force, f[best]);
          if (best > 0 && best < k) {
            double tv = ta + (t_stop - ta) * best / k;
            const double den = f[best - 1] - 2 * f[best] + f[best + 1];
            if (den < 0) {
              const double shift = 0.5 * (f[best - 1] - f[best + 1]) / den;  // in (-1/2, 1/2)
              const double t_vertex = ta + (t_stop - ta) * (best + shift) / k;
              const double f_vertex = m.contact_force(at(t_vertex));
              r.peak_contact_force = std::max(r.peak_contact_force, f_vertex);
              if (f_vertex > f[best]) tv = t_vertex;
            }
            if (o.record_steps) record_state(tv, at(tv));  // the peak inside the step
          }
        }
      }
      // A contact the event search missed would let the slider pass through the stop.
      if (m.current == mode::free && m.overlap(y_s) > m.max_overlap + 0.01 * p.g0)
        return fail(
            switch_status::solver_error,
            fmt::format("missed a contact start: the slider is {} m into the stop at t = {} s",
                        m.overlap(y_s), t_stop * time));
      record_points(t_stop, &y_s);
      if (o.record_steps) record_state(t_stop, y_s);
      track.emplace_back(t_stop * time, y_s[X1]);

      y = y_s;
      tau = t_stop;
      if (which != event::none) {
        ++r.restarts;
        const double d = m.overlap(y), v = mechanism::overlap_rate(y);
        double dt = stepper.current_time_step();
        switch (which) {
          case event::start: {
            mark("contact start", tau);
            ++r.contacts;
            if (r.contacts == 1) {
              first_speed = v;
              r.impact_time = tau * time;
              r.impact_velocity = v;
            }
            if (v >= o.impact_count_fraction * first_speed) ++r.impacts;
            if (tracking_rebound) tracking_rebound = false;
            if (o.stop_at_first_impact) break;
            if (m.impact_map) {
              // Brake 2014 eq. (11); below the sticking speed the bodies stick (e = 0) while
              // they press on each other, and merely touch (no jump) where they would not.
              const double mass = p.m1 * p.m3 / (p.m1 + p.m3);
              const double common = (p.m1 * y[V1] + p.m3 * y[V3]) / (p.m1 + p.m3);
              state stuck = y;
              stuck[V1] = stuck[V3] = common;
              const bool slow = !(v > o.stick_fraction * first_speed);
              const bool stick = slow && m.stuck_force(stuck) > 0;
              const double e = stick ? 0.0 : slow ? 1.0 : m.law.restitution();
              if (stick) {
                y = stuck;
                y[X1] = y[X3] + p.g0;
                m.current = mode::stuck;
              } else if (!slow) {
                const auto out =
                    contact::cor_impact(contact::cor_params{e}, p.m1, p.m3, y[V1], y[V3]);
                y[V1] = out.velocity_1;
                y[V3] = out.velocity_2;
              }
              if (!stick) leave_stop(y);
              y[W_CONTACT] += 0.5 * mass * (1 - e * e) * std::max(v, 0.0) * std::max(v, 0.0);
              if (r.contacts == 1) {
                r.first_restitution = e;
                first_contact_done = true;
                if (!stick) {
                  tracking_rebound = true;
                  release_overlap = min_overlap = d;
                }
              }
            } else {
              // The law sees the open state the flight came from, then the first touch.
              if (m.overlap(y_a) < 0) m.law.force(m.overlap(y_a), mechanism::overlap_rate(y_a));
              m.law.force(d, v);
              m.current = mode::contact;
              if (contact_step == 0.0) contact_step = 0.02 * m.overlap_scale(v) / v / time;
              dt = std::min(dt, contact_step);
            }
            break;
          }
          case event::peak:
            mark("peak overlap", tau);
            m.law.force(d, v);  // commits delta_m (and F_m, ...): unloading from here
            m.max_overlap = std::max(m.max_overlap, d);
            r.peak_contact_force = std::max(r.peak_contact_force, m.law.peek_force(d, v));
            break;
          case event::release:
            mark("contact end", tau);
            m.law.force(d, v);
            m.current = mode::free;
            if (!first_contact_done) {
              first_contact_done = true;
              r.first_restitution = -v / first_speed;
              tracking_rebound = true;
              release_overlap = min_overlap = d;
            }
            break;
          case event::part:
            mark("bodies part", tau);
            m.current = mode::free;
            leave_stop(y);
            break;
          case event::none:
            break;
        }
        if (o.stop_at_first_impact && which == event::start) break;
        stepper.initialize(to_scaled(y), tau, dt);
        // The new mode's event starts armed, so that an event right after the restart (the
        // stuck bodies press again after parting, a released contact closes again) is caught.
        g_prev = events(y);
        constexpr double tiny = std::numeric_limits<double>::denorm_min();
        g_prev.start = std::min(g_prev.start, -tiny);
        g_prev.release = std::max(g_prev.release, tiny);
        g_prev.part = std::max(g_prev.part, tiny);
      } else {
        g_prev = g_s;
      }
      if (tau >= tau_end) break;
    }
  } catch (const model_error& e) {
    return fail(switch_status::model_error, e.what());
  } catch (const odeint::step_adjustment_error& e) {
    return fail(switch_status::solver_error,
                fmt::format("step size control failed at t = {} s: {}", tau * time, e.what()));
  }

  r.rhs_evaluations = m.evaluations;
  std::stable_sort(r.events.begin(), r.events.end(),
                   [](const switch_event& a, const switch_event& b) { return a.time < b.time; });
  r.x1 = y[X1], r.v1 = y[V1], r.x2 = y[X2], r.v2 = y[V2], r.x3 = y[X3], r.v3 = y[V3];
  r.contact_force = m.contact_force(y);
  const double t_reached = tau * time;

  // Energy balance: W_drive = kinetic + stored + dissipated.
  auto& en = r.energy;
  en.drive_work = p.F0 * y[X1] - 0.5 * p.k_d * y[X1] * y[X1];
  en.kinetic = 0.5 * (p.m1 * y[V1] * y[V1] + p.m2 * y[V2] * y[V2] + p.m3 * y[V3] * y[V3]);
  const double theta = m.arm.evaluate(y[X2], 0.0).theta;
  const double arm_energy = 0.5 * m.n_arms * p.receptacle.K * theta * theta;
  const double residual = m.impact_map ? 0.0 : m.residual_overlap();
  const double contact_energy = m.impact_map ? 0.0 : m.contact_energy(m.overlap(y), residual);
  en.stored = 0.5 * p.k12 * (y[X1] - y[X2]) * (y[X1] - y[X2]) + 0.5 * p.k3 * y[X3] * y[X3] +
              arm_energy + contact_energy;
  en.dissipated_contact = y[W_CONTACT] - contact_energy;
  en.dissipated_dampers = y[W_DAMPERS];
  en.dissipated_receptacle = -y[W_RECEPTACLE] - arm_energy;

  r.closed = y[X2] >= x_closed;
  if (!std::isnan(r.closure_time)) r.closure_margin = std::min(lowest_carrier, y[X2]) - x_closed;
  if (std::isnan(r.closure_time))
    r.notes.push_back(
        fmt::format("closure_time, closure_margin: the carrier never reached the pin barrel "
                    "(x_cr,4 = {:.4g} mm) "
                    "by t = {:.4g} s",
                    x_closed * 1e3, t_reached));
  if (r.contacts == 0) {
    r.notes.push_back(
        fmt::format("impact_velocity, first_restitution, rebound_amplitude: the slider never "
                    "reached the stop by "
                    "t = {:.4g} s",
                    t_reached));
  } else if (!first_contact_done) {
    r.first_restitution = 0.0;  // still in contact at the end: no rebound
    r.rebound_amplitude = 0.0;
  } else {
    r.rebound_amplitude = release_overlap - min_overlap;
  }
  if (m.impact_map) {
    r.peak_contact_force = nan;
    r.residual_indentation = nan;
    r.notes.push_back(
        "peak_contact_force, residual_indentation: an impact map (cor) has no contact force or "
        "overlap, it changes the velocities instantly (Brake 2014 eq. 11)");
  } else {
    r.residual_indentation = residual;
  }

  // Settling: the last time the slider was outside the band around its final position.
  double last_out = 0.0;
  for (auto it = track.rbegin(); it != track.rend(); ++it)
    if (std::abs(it->second - y[X1]) > o.settle_band) {
      last_out = it->first;
      break;
    }
  if (o.stop_at_first_impact) {
    r.settling_time = nan;
  } else if (last_out > 0.9 * o.t_end) {
    r.notes.push_back(fmt::format(
        "settling_time: the slider still moves by more than settle_band = {:.3g} um after 90 % of "
        "t_end = {:.4g} s",
        o.settle_band * 1e6, o.t_end));
  } else {
    r.settling_time = last_out;
  }
  return r;
}

}  // namespace contactuq::dynamics
