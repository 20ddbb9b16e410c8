#pragma once
// A planar multibody system: rigid bodies (body.hpp), holonomic constraints with Baumgarte
// stabilisation (constraint.hpp, Skrinjar et al. (003_...) eqs. (1)-(5)), applied forces and
// springs (force_element.hpp), gravity and clearance joints (clearance_joint.hpp). A description
// only: simulation.hpp integrates it.
//
// Generalized coordinates q = (x_1, y_1, theta_1, ..., x_nb, y_nb, theta_nb), state
// y = (q, q'), eq. (4). Eq. (3) is solved through the Schur complement of the diagonal M:
//   (C_q M^-1 C_q^T) lam = C_q M^-1 Q_e - gamma,   q'' = M^-1 (Q_e - C_q^T lam),
//   gamma = Q_d - 2 alpha C_q q' - beta^2 C
// so the constraints must be independent (C_q of full row rank).

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "contactuq/multibody/body.hpp"
#include "contactuq/multibody/clearance_joint.hpp"
#include "contactuq/multibody/constraint.hpp"
#include "contactuq/multibody/force_element.hpp"

namespace contactuq::multibody {

class planar_system {
 public:
  // Each add validates its argument (parameter_error naming the field) and body indices.
  std::size_t add_body(const body& b);  ///< returns the body's index
  void add_constraint(const constraint& c);
  void add_force(const point_force& f);
  void add_spring(const ground_spring& s);
  void add_clearance_joint(const clearance_joint& j);
  void set_gravity(const vec2& g) { gravity_ = g; }  ///< [m/s^2], default 0

  const std::vector<body>& bodies() const { return bodies_; }
  const std::vector<constraint>& constraints() const { return constraints_; }
  const std::vector<point_force>& forces() const { return forces_; }
  const std::vector<ground_spring>& springs() const { return springs_; }
  const std::vector<clearance_joint>& clearance_joints() const { return clearance_joints_; }
  const vec2& gravity() const { return gravity_; }

  std::size_t coordinates() const { return 3 * bodies_.size(); }  ///< n = 3 n_b
  std::size_t constraint_count() const;                           ///< n_c, rows of C

  // Joints whose force on their body j is reported: the revolute joints (reaction) then the
  // clearance joints (contact force), in the order they were added.
  std::vector<std::string> reported_joints() const;

  // q and q' at t = 0 from the bodies' initial poses and velocities.
  Eigen::VectorXd initial_positions() const;
  Eigen::VectorXd initial_velocities() const;

  // C(q) of eq. (2), n_c rows.
  Eigen::VectorXd constraint_values(const Eigen::VectorXd& q) const;
  // Kinetic energy 1/2 q'^T M q' plus the potential energy of springs and gravity [J]
  // (contact deformation energy excluded).
  double mechanical_energy(const Eigen::VectorXd& q, const Eigen::VectorXd& qdot) const;

 private:
  void check_body(std::size_t index, const char* field) const;

  std::vector<body> bodies_;
  std::vector<constraint> constraints_;
  std::vector<point_force> forces_;
  std::vector<ground_spring> springs_;
  std::vector<clearance_joint> clearance_joints_;
  vec2 gravity_ = vec2::Zero();
};

}  // namespace contactuq::multibody
