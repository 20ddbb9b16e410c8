// The grasp's spring (Nicolson 1990 eqs. 5.2-5.4, threaded_insertion.hpp): stiffness, its
// validation, and the wrench and energy of the gripper-frame error.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"
#include "contactuq/threaded/threaded_insertion.hpp"
#include "rotation.hpp"

namespace contactuq::threaded {

using namespace detail;

namespace {

Matrix3d skew(const Vector3d& v) {
  Matrix3d s;
  s << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return s;
}

// Inverse right Jacobian of SO(3): d log(exp(phi) exp(e)) / de at e = 0.
Matrix3d inverse_right_jacobian(const Vector3d& phi) {
  const double t = phi.norm();
  const Matrix3d P = skew(phi);
  double c;
  if (t < 1e-4)
    c = 1.0 / 12 + t * t / 720;
  else
    c = 1 / (t * t) - (1 + std::cos(t)) / (2 * t * std::sin(t));
  return Matrix3d::Identity() + 0.5 * P + c * P * P;
}

struct grasp_terms {
  vec6 delta;  // gripper-frame error [x; theta]
  Vector3d phi;  // world rotation vector of R_e R^T
  Vector3d rc_world;
};

grasp_terms grasp_error(const grasp_params& g, const Vector3d& x, const Matrix3d& R,
                        const Vector3d& x_e, const Matrix3d& R_e) {
  grasp_terms t;
  const Vector3d rc(0, 0, g.z_c);
  t.rc_world = R * rc;
  t.phi = rotation_log(R_e * R.transpose());
  t.delta.head<3>() = R_e.transpose() * (x_e + R_e * rc - x - t.rc_world);
  t.delta.tail<3>() = R_e.transpose() * t.phi;
  return t;
}

}  // namespace

mat6 grasp_params::stiffness() const {
  mat6 K = mat6::Zero();
  K(0, 0) = K(1, 1) = k_t;
  K(2, 2) = k_z;
  K(3, 3) = K(4, 4) = k_theta_t;
  K(5, 5) = k_theta_z;
  K(2, 5) = K(5, 2) = k_z_theta_z;
  return K;
}

bool grasp_params::validate() const {
  auto non_negative = [](double v, const char* field, const char* unit) {
    require(std::isfinite(v) && v >= 0, field, v, unit, "non-negative and finite");
  };
  non_negative(k_t, "k_t", "N/m");
  non_negative(k_z, "k_z", "N/m");
  non_negative(k_theta_t, "k_theta_t", "N*m/rad");
  non_negative(k_theta_z, "k_theta_z", "N*m/rad");
  non_negative(damping_ratio, "damping_ratio", "");
  require(std::isfinite(z_c), "z_c", z_c, "m", "finite");
  require(std::isfinite(k_z_theta_z), "k_z_theta_z", k_z_theta_z, "N/rad", "finite");
  // The only off-diagonal block is (z, theta_z): PSD iff k_z_theta_z^2 <= k_z k_theta_z.
  const double det = k_z * k_theta_z - k_z_theta_z * k_z_theta_z;
  if (det < -1e-12 * std::max(1.0, k_z * k_theta_z))
    throw parameter_error(
        "k_z_theta_z",
        fmt::format("grasp stiffness is not positive semidefinite: k_z_theta_z^2 = {} exceeds "
                    "k_z k_theta_z = {} (k_z = {} N/m, k_theta_z = {} N*m/rad, k_z_theta_z = {} N/rad)",
                    format_value(k_z_theta_z * k_z_theta_z), format_value(k_z * k_theta_z),
                    format_value(k_z), format_value(k_theta_z), format_value(k_z_theta_z)));
  return k_t == 0 || k_theta_t == 0 || det <= 1e-12 * std::max(1.0, k_z * k_theta_z);
}

wrench grasp_spring_wrench(const grasp_params& g, const Vector3d& x, const Matrix3d& R,
                           const Vector3d& x_e, const Matrix3d& R_e) {
  const grasp_terms t = grasp_error(g, x, R, x_e, R_e);
  const vec6 w = g.stiffness() * t.delta;
  wrench out;
  out.force = R_e * w.head<3>();  // (5.2)
  out.torque = t.rc_world.cross(out.force) +
               inverse_right_jacobian(t.phi).transpose() * (R_e * w.tail<3>());  // (5.3)
  return out;
}

double grasp_spring_energy(const grasp_params& g, const Vector3d& x, const Matrix3d& R,
                           const Vector3d& x_e, const Matrix3d& R_e) {
  const grasp_terms t = grasp_error(g, x, R, x_e, R_e);
  return 0.5 * t.delta.dot(g.stiffness() * t.delta);
}

}  // namespace contactuq::threaded
