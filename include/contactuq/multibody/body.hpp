#pragma once
// Planar rigid bodies and the kinematics of their points, Skrinjar et al. (003_...) eqs. (6)-(7):
//   r_P = R + A(theta) u_P                          (6)
//   r_P' = R' + A_theta(theta) u_P theta'           (7)
//   A = [cos -sin; sin cos],  A_theta = dA/dtheta = [-sin -cos; cos -sin]
// R: position of the centre of mass [m]; theta: orientation [rad]; u_P: the point in the body's
// frame, whose origin is the centre of mass [m]. Generalized coordinates of body k:
// q_k = (x, y, theta), generalized force of a force F at u_P, eq. (33):
//   Q = (F_x, F_y, F^T A_theta u_P)   [N, N, N*m]

#include <Eigen/Core>
#include <string>

namespace contactuq::multibody {

using vec2 = Eigen::Vector2d;

struct body {
  std::string name;               ///< for messages and output, e.g. "slot"
  double mass = 0.0;              ///< m [kg], > 0 and finite
  double inertia = 0.0;           ///< J about the centre of mass [kg*m^2], > 0 and finite
  vec2 position = vec2::Zero();   ///< R at t = 0 [m]
  double angle = 0.0;             ///< theta at t = 0 [rad]
  vec2 velocity = vec2::Zero();   ///< R' at t = 0 [m/s]
  double angular_velocity = 0.0;  ///< theta' at t = 0 [rad/s]

  // Throws parameter_error naming the field ("<name>.mass = ...").
  void validate() const;
};

// A(theta) and dA/dtheta of eqs. (6)-(7).
Eigen::Matrix2d rotation(double theta);
Eigen::Matrix2d rotation_derivative(double theta);

// (-v_y, v_x): v turned counter-clockwise by pi/2, as eqs. (12) and (20) turn n and t.
inline vec2 perpendicular(const vec2& v) { return {-v.y(), v.x()}; }

// Eq. (6): r_P [m] of body point u [m] at pose (position, theta).
vec2 point_position(const vec2& position, double theta, const vec2& u);
// Eq. (7): r_P' [m/s] of body point u at velocity (velocity, omega).
vec2 point_velocity(const vec2& velocity, double theta, double omega, const vec2& u);
// Eq. (33): the moment F^T A_theta u [N*m] of force F [N] applied at body point u.
double generalized_moment(double theta, const vec2& u, const vec2& force);

}  // namespace contactuq::multibody
