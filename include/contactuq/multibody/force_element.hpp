#pragma once
// Applied forces of the planar equations of motion: they enter Q_e of Skrinjar et al. (003_...)
// eq. (3) through eq. (33), Q = (F, F^T A_theta u).

#include <cstddef>
#include <functional>

#include "contactuq/multibody/body.hpp"

namespace contactuq::multibody {

// Half-sine pulse, Skrinjar eq. (34):
//   F(t) = F_0 sin(pi t / t_F)   for 0 <= t <= t_F;   0 otherwise
// F_0: amplitude [N] (any sign: the direction is the pulse's); t_F: duration [s], > 0.
struct half_sine_pulse {
  double amplitude = 0.0;  ///< F_0 [N], finite
  double duration = 0.0;   ///< t_F [s], > 0 and finite

  void validate() const;
  double operator()(double t) const;  ///< F(t) [N]
};

// A force given as a function of time, applied at a body point: F(t) = direction * magnitude(t).
struct point_force {
  std::size_t body = 0;                   ///< index of the body
  vec2 point = vec2::Zero();              ///< u_F [m] in the body's frame
  vec2 direction = vec2::UnitX();         ///< unit vector in the global frame
  std::function<double(double)> magnitude;  ///< F(t) [N]
  double breakpoint = -1.0;  ///< time [s] where F(t) has a kink (the integrator stops there); < 0: none
};

// Linear spring-damper between a body point and a fixed ground point:
//   l = |r_P - r_A|,  e = (r_P - r_A) / l,  f = k (l - l_0) + c l'  (tension > 0),
//   force on the body -f e [N];  potential energy k (l - l_0)^2 / 2 [J].
// A pre-stressed spring is one whose l_0 differs from its length at rest.
struct ground_spring {
  std::size_t body = 0;          ///< index of the body
  vec2 point = vec2::Zero();     ///< u_P [m] in the body's frame
  vec2 anchor = vec2::Zero();    ///< r_A [m], global
  double stiffness = 0.0;        ///< k [N/m], >= 0
  double free_length = 0.0;      ///< l_0 [m], >= 0
  double damping = 0.0;          ///< c [N*s/m], >= 0

  void validate() const;
};

}  // namespace contactuq::multibody
