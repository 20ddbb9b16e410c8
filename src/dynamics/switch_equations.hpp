#pragma once
// The switch mechanism's equations of motion and event functions (switch_mechanism.hpp,
// Williams / Brake): the state, the contact modes, the forces on the three bodies.

#include <array>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/dynamics/switch_mechanism.hpp"

namespace contactuq::dynamics::detail {

inline constexpr std::size_t n_state = 9;
using state = std::array<double, n_state>;
// x1, v1, x2, v2, x3, v3, then three work integrals: into the contact (integral of F_c delta'
// dt, plus the energy an impact map removes), by the dampers, by the pin on the receptacle.
enum : std::size_t { X1, V1, X2, V2, X3, V3, W_CONTACT, W_DAMPERS, W_RECEPTACLE };

enum class mode {
  free,     // slider and stop apart (or touching without force)
  contact,  // the contact law carries force
  stuck,    // impact map: slider and stop move as one after a sticking impact
};

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

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

}  // namespace contactuq::dynamics::detail
