#pragma once
// The bolt's equations of motion in the grasp and against the nut (threaded_insertion.hpp,
// Nicolson 1990 ch. 4-5): the state, the grasp and contact terms of one evaluation, and the
// derivative CVODE integrates.

#include <cmath>
#include <limits>
#include <vector>

#include "contact_detector.hpp"
#include "contactuq/contact/law_registry.hpp"
#include "contactuq/threaded/thread_geometry.hpp"
#include "contactuq/threaded/threaded_insertion.hpp"
#include "rotation.hpp"

namespace contactuq::threaded::detail {

inline constexpr int n_state = 16;  // x_cm(3) q(4) v_cm(3) w_body(3) dissipated spin drive_slip

struct bolt_state {
  Vector3d x_cm;
  Eigen::Quaterniond q;
  Vector3d v_cm;
  Vector3d w_body;
  double dissipated;
  double spin;
  double slip;  // angle the spin drive has slipped [rad]
};

inline bolt_state unpack(const double* y) {
  bolt_state s;
  s.x_cm = {y[0], y[1], y[2]};
  s.q = Eigen::Quaterniond(y[3], y[4], y[5], y[6]);
  s.q.normalize();
  s.v_cm = {y[7], y[8], y[9]};
  s.w_body = {y[10], y[11], y[12]};
  s.dissipated = y[13];
  s.spin = y[14];
  s.slip = y[15];
  return s;
}

// What the step monitor needs of an evaluation's contacts, and its time.
struct contact_measures {
  double t = std::numeric_limits<double>::quiet_NaN();
  double max_normal = 0;
  int contacts = 0;
};

struct evaluation_terms {
  Vector3d force = Vector3d::Zero();   // on the bolt [N]
  Vector3d torque_cm = Vector3d::Zero();  // about the CM, world [N*m]
  Vector3d grasp_force = Vector3d::Zero();
  Vector3d grasp_torque = Vector3d::Zero();  // about the tip, world
  double dissipation = 0;  // [W]
  double slip_rate = 0;    // of the spin drive [rad/s]
  double max_normal = 0;
  int contacts = 0;
  double contact_energy = 0;
  std::vector<contact_point> points;
};

// The bolt in the grasp against the nut: mass properties, the gripper's path and the forces of
// one evaluation of the state.
class insertion_system {
 public:
  explicit insertion_system(const insertion_params& p);

  static contact::contact_law make_contact_law(const insertion_params& p);

  double mass() const { return mass_; }
  const thread_geometry& geometry() const { return g_; }
  double t_end() const {
    return std::isnan(p_.duration) ? p_.turns * p_.thread.pitch / p_.feed : p_.duration;
  }
  const Vector3d& r_cm() const { return r_cm_; }

  // Gripper pose and velocity on the equilibrium path (5.1), its spin set back by the angle the
  // drive has slipped.
  // With a force feed the gripper does not feed: follow_axially() places it along its axis.
  void gripper(double t, double slip, double slip_rate, Vector3d& x_e, Matrix3d& R_e, Vector3d& v_e,
               Vector3d& w_e) const;

  // Force and guarded feeds: moves x_e along the gripper's axis so that the grasp's axial force
  // on the bolt, the z row of K Delta (k_z Delta_z + k_z_theta_z Delta_theta_z), is -axial_force;
  // a guarded feed only where the path would push harder. Returns whether the force is held: the
  // gripper then follows the bolt along its axis, and the axial damping is off (the controller
  // holds the force itself).
  bool follow_axially(const Vector3d& x, const Matrix3d& R, const Matrix3d& R_e, double twist,
                      Vector3d& x_e) const;

  // The spin drive slips once the twist it has wound into the grasp exceeds
  // drive_torque_limit / k_theta_z: a regularized clutch that returns the excess within
  // slip_time, so the wind-up never reaches the half turn where log(R_e R^T) wraps.
  double slip_rate(double twist) const {
    const double excess = std::abs(twist) - max_twist_;
    return excess > 0 ? -std::copysign(excess, twist) / slip_time : 0.0;
  }
  static constexpr double slip_time = 1e-4;  // [s]

  void initial_state(double* y) const;

  double theta_z0() const { return theta_z0_; }

  // The contacts depend on the pose alone (x_cm, q): `contacts`, when given, were found at this
  // pose and are reused.
  evaluation_terms terms(double t, const bolt_state& s, bool keep_points, bool energy,
                         const std::vector<contact_point>* contacts = nullptr) const;

  // The contacts at the state; `classify` for the cross-threading test.
  std::vector<contact_point> contacts_at(const bolt_state& s, bool classify) const;

  // Phi(delta) = integral of F(d, 0) over [0, delta], 8-point Gauss-Legendre.
  double law_energy(double delta) const;

  // `seen`: where to leave the contact measures of this evaluation (the step monitor's).
  void derivative(double t, const double* y, double* yd,
                  const std::vector<contact_point>* contacts = nullptr,
                  contact_measures* seen = nullptr) const;

  double kinetic(const bolt_state& s) const {
    return 0.5 * mass_ * s.v_cm.squaredNorm() + 0.5 * s.w_body.dot(inertia_.cwiseProduct(s.w_body));
  }
  double grasp_energy(double t, const bolt_state& s) const;

  mutable long rhs_count = 0;

 private:
  insertion_params p_;
  thread_geometry g_;
  contact::contact_law law_;
  double mass_;
  Vector3d inertia_;
  Vector3d r_cm_;
  double c_diag_[6];
  Vector3d x_e0_;
  double theta_z0_;
  Matrix3d R_tilt_;
  double spin_rate_;
  double max_twist_ = p_.grasp.k_theta_z > 0 ? drive_torque_limit(p_) / p_.grasp.k_theta_z
                                              : std::numeric_limits<double>::infinity();
  double contact_length_ = std::isnan(p_.contact_length) ? default_contact_length(p_.thread)
                                                          : p_.contact_length;
  mutable std::vector<double> patch_force_;  // normal force per contact patch [N], scratch
  probe_points grid_ = detector::make_grid(g_, p_.points_per_turn);
};

}  // namespace contactuq::threaded::detail
