#pragma once
// Holonomic constraints C(q) = 0 of the planar equations of motion, Skrinjar et al. (003_...)
// eqs. (1)-(3) (after Nikravesh 1988):
//   [M  C_q^T] [q'' ]   [Q_e                                    ]
//   [C_q  0  ] [lam ] = [Q_d - 2 alpha (C_q q' + C_t) - beta^2 C ]      (3)
// with alpha = beta = 0 giving eq. (1). Each constraint contributes rows of C, of the Jacobian C_q
// (one column per generalized coordinate, three per body) and of Q_d = -(C_q q')_q q' (terms of
// the acceleration constraint that depend only on velocities). Every constraint here is
// scleronomic (C_t = 0). The generalized constraint force on the bodies is -C_q^T lam.

#include <cstddef>
#include <string>
#include <variant>

#include "contactuq/multibody/body.hpp"

namespace contactuq::multibody {

// A body held at a fixed pose: C = (x - x0, y - y0, theta - theta0), 3 rows. The pin of the
// pin-slot set-up (Skrinjar Section 5, body 1) is fixed to the ground this way.
struct fixed_body {
  std::size_t body = 0;          ///< index of the body
  vec2 position = vec2::Zero();  ///< x0, y0 [m]
  double angle = 0.0;            ///< theta0 [rad]
};

// Ideal revolute joint (IRJ): point u_i of body i coincides with point u_j of body j,
//   C = R_i + A_i u_i - R_j - A_j u_j = 0,   2 rows;
//   Q_d = A_i u_i theta_i'^2 - A_j u_j theta_j'^2.
// Its reaction on body j, -(C_q)_j^T lam, is what a force sensor under the pin measures.
struct revolute_joint {
  std::string name = "revolute";
  std::size_t body_i = 0;         ///< first body (the slot body in Section 5)
  std::size_t body_j = 0;         ///< second body (the pin), != body_i
  vec2 point_i = vec2::Zero();    ///< u_i [m] in body i's frame
  vec2 point_j = vec2::Zero();    ///< u_j [m] in body j's frame
};

using constraint = std::variant<fixed_body, revolute_joint>;

// Rows a constraint adds to C.
std::size_t constraint_rows(const constraint& c);

}  // namespace contactuq::multibody
