#pragma once
// A rigid bolt started in a fixed nut by a compliant grasp, Nicolson 1990 (004_...) ch. 4-5,
// with compliant (penalty) contact instead of the thesis's rigid contacts and impulses.
//
// Bolt: rigid body, mass m, solid cylinder of radius R_b and length L about its centre of mass
// r_cm = (0, 0, L/2) (thesis eq. 4.9); attitude as a unit quaternion (no zyx singularity, thesis
// eq. 4.7); Newton (4.11) and Euler (4.10) in body axes; gravity along -z optional (the thesis has
// none).
// Grasp: symmetric PSD 6x6 stiffness K in the gripper frame about the compliance centre
// r_c = (0, 0, z_c) (eqs. 5.2-5.4): K = diag(k_t, k_t, k_z, k_theta_t, k_theta_t, k_theta_z) plus
// Loncaric's k_z_theta_z coupling (§5.2.2). With Delta = [R_e^T (x_e + R_e r_c - x - R r_c);
// log(R^T R_e)], V = Delta^T K Delta / 2 and the grasp wrench is -dV/d(x, rotation):
//   f = R_e w_x,   tau = (R r_c) x f + J_r^-T R_e w_theta,   w = K Delta      (5.2), (5.3)
// (J_r^-T -> I for small rotation errors, recovering (5.3)). Damping C = 2 zeta sqrt(K_ii M_ii)
// per gripper axis, M = (m, m, m, I_t + m (L/2 - z_c)^2, same, I_z), on the velocity relative to
// the gripper. The gripper follows the equilibrium path (5.1): feed v down, spin -2 pi v / p; the
// spin drive slips (a regularized clutch) once the twist wound into the grasp exceeds
// drive_torque_limit / k_theta_z. With a force feed it spins the same way, holds a constant
// axial force and follows the bolt along its axis; with a guarded one it follows the path until
// the axial force is reached, then holds it.
// Contact: the bolt's crest helices (crest centre and both crest-arc ends) and tip circle are
// tested against the nut, the nut's crest helices and top edge against the bolt (thesis §3.4.2),
// at `points_per_turn` points per turn fixed in the part that carries each curve. Every stretch
// of a curve inside the other part carries the registered law's force F(delta, delta_dot) per
// `contact_length` of curve (a distributed contact instead of the thesis's point contacts),
// integrated by adaptive Gauss-Legendre along the penetration gradient (a conservative field),
// with regularized Coulomb friction (Williams eq. 1.84) opposing the sliding velocity.
// Integrated by SUNDIALS CVODE (BDF, dense Newton). SI throughout.
// Plain bore (thread.plain_bore, Whitney's peg-in-hole): the same contact search, law and
// dynamics with thread depth zero; the gripper feeds without spinning (`phase` only turns the
// peg), depths count from the nut's top face, and there is no phase error (NaN) and no
// cross-threading.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/threaded/thread_geometry.hpp"

namespace contactuq::threaded {

using mat6 = Eigen::Matrix<double, 6, 6>;

struct grasp_params {
  double k_t = 2e3;              ///< lateral stiffness at the compliance centre [N/m], >= 0
  double k_z = 2e3;              ///< axial stiffness [N/m], >= 0
  double k_theta_t = 1.0;        ///< tilt stiffness [N*m/rad], >= 0
  double k_theta_z = 1.0;        ///< twist stiffness [N*m/rad], >= 0
  double k_z_theta_z = 0.0;      ///< Loncaric axial-twist coupling [N/rad], k^2 <= k_z k_theta_z
  double z_c = -2.5e-3;          ///< compliance centre on the bolt axis, from the tip [m]
  double damping_ratio = 0.2;    ///< zeta [-], >= 0

  // K in the gripper frame, rows x, y, z, theta_x, theta_y, theta_z.
  mat6 stiffness() const;
  // Throws parameter_error for a negative entry or a K that is not positive semidefinite,
  // naming the entries; returns true when K is singular (some direction has no stiffness).
  bool validate() const;
};

// Grasp wrench on the bolt (force, torque about the bolt origin = tip centre) for bolt pose
// (x, R) and gripper pose (x_e, R_e); stiffness part only (eqs. 5.2, 5.3).
struct wrench {
  Eigen::Vector3d force;
  Eigen::Vector3d torque;
};
wrench grasp_spring_wrench(const grasp_params& g, const Eigen::Vector3d& x, const Eigen::Matrix3d& R,
                           const Eigen::Vector3d& x_e, const Eigen::Matrix3d& R_e);
double grasp_spring_energy(const grasp_params& g, const Eigen::Vector3d& x, const Eigen::Matrix3d& R,
                           const Eigen::Vector3d& x_e, const Eigen::Matrix3d& R_e);

// How the gripper moves along its axis (insertion_params::feed_mode).
enum class feed_kind { path, force, guarded };

struct insertion_params {
  thread_params thread;
  grasp_params grasp;
  double mass = std::numeric_limits<double>::quiet_NaN();  ///< [kg]; NaN: steel cylinder
  double density = 7850;            ///< [kg/m^3], for the default mass
  std::string law = "hunt_crossley";  ///< a registered contact law (contact/law_registry.hpp)
  // Parameters of the law by its field name, SI (e.g. "restitution"); the rest is derived from
  // two steel bodies with the crest radius (modulus, Hertz stiffness, yield strength ...).
  std::map<std::string, double> law_parameters;
  double contact_velocity = 0.01;   ///< impact velocity the hysteresis laws are tuned at [m/s]
  // Length of probe curve over which the law's force acts: a penetrated stretch of curve carries
  // the integral of F(depth) ds / contact_length [m], > 0; NaN: the pitch.
  double contact_length = std::numeric_limits<double>::quiet_NaN();
  double mu = 0.15;                 ///< friction coefficient [-], >= 0
  double v_t = 1e-3;                ///< friction transition velocity [m/s], > 0 (eq. 1.84)
  // Twist torque beyond which the spin drive slips (a clutch) [N*m], in (0, 0.9 pi k_theta_z);
  // NaN: 0.2 N*m, or a quarter turn of wind-up if that is less.
  double drive_torque_limit = std::numeric_limits<double>::quiet_NaN();
  double feed = 2.5e-3;             ///< gripper feed along -z [m/s], >= 0 (0 needs duration)
  // Feed mode (the study key `feed_mode`). path: the equilibrium path (5.1), the gripper fed at
  // `feed` with matching spin. force: constant axial force with spin: the gripper spins as on the
  // path (a pitch per turn at `feed`) and moves along its axis so that the grasp's axial force on
  // the bolt, k_z Delta_z + k_z_theta_z Delta_theta_z, is `axial_force` down its axis, as a force
  // controller holds it (no axial damping); needs k_z > 0. guarded: the path (5.1) with that axial
  // force as a limit (a guarded move): the gripper feeds until the grasp pushes the bolt with
  // `axial_force`, then holds that force as in `force` for as long as the path would push harder.
  feed_kind feed_mode = feed_kind::path;
  double axial_force = 1.0;         ///< [N], > 0, with feed_mode force or guarded
  double gravity = 0;               ///< acceleration of gravity along -z [m/s^2], >= 0 (thesis: none)
  double duration = std::numeric_limits<double>::quiet_NaN();  ///< [s]; NaN: turns p / feed
  double lateral_offset = 0;        ///< initial offset of the tip from the nut axis [m]
  double offset_azimuth = 0;        ///< [rad]
  double tilt = 0;                  ///< initial tilt of the bolt axis (gripper) [rad], [0, 0.5]
  double tilt_azimuth = 0;          ///< azimuth the axis leans towards [rad]
  double phase = 0;                 ///< helical phase error at start [rad]; 0 meshes
  double z0 = 0.625e-3;             ///< initial height of the tip above the nut [m], >= -H (< 0: inside)
  double turns = 4;                 ///< gripper turns to run [-], > 0
  // Tip depth below the first full nut thread (p (1/2 + runup_angle/2pi) below the top face)
  // that counts as started [m], > 0 (IsaacLab nut_thread: about 1.5 pitches). The same depth for
  // either thread.runup, so that a comparison keeps its success criterion (runup_kind::thesis has
  // its first full thread p runup_angle/2pi higher).
  double engage_depth = 1.875e-3;
  double tip_angle = 0.2618;        ///< tilt beyond which the bolt has tipped out [rad]
  int points_per_turn = 32;         ///< samples per turn of each probe curve [-], >= 8 (thesis: 400)
  double relative_tolerance = 1e-4; ///< CVODE rtol [-]; atol rtol p on positions
  long max_steps = 50000;           ///< integrator steps [-], in [100, 1e8]; beyond: inconclusive
  int history_points = 0;           ///< time-history samples (0: none)
  bool stop_when_decided = true;    ///< stop once engaged or tipped
  // Turns of drive a stall (the tip advancing less than 0.1 of the feed over half a turn, with
  // contacts) may last before the drive gives up: the start ends there, jammed [-], >= 0.5;
  // infinity: never (the run goes on for `turns`).
  double stall_abort_turns = std::numeric_limits<double>::infinity();

  void validate() const;  ///< throws parameter_error naming the field
};

// Outcome codes (the `outcome` output).
enum class insertion_outcome {
  engaged = 0,
  cross_threaded = 1,
  jammed = 2,          ///< stalled: past 0.25p, not engaged, not advancing with the feed
  tipped = 3,
  no_start = 4,
  inconclusive = 5,    ///< integrator failure, step limit, or still advancing at the end
};

struct insertion_sample {
  double t, tip_z, tilt, phase_lag, axial_force, torque_z;
  double kinetic, grasp_energy, contact_energy, dissipated;  ///< [J]
};

struct insertion_result {
  insertion_outcome outcome = insertion_outcome::inconclusive;
  bool success = false;
  bool cross_threaded = false;
  // Final depth below the first full thread (plain bore: the top face) - engage_depth [m]; an
  // engaged start stopped early adds the feed's travel left in the run (continuous across success).
  double engagement_margin = 0;
  double time_to_engage = std::numeric_limits<double>::quiet_NaN();  ///< [s]
  double axial_advance = 0;      ///< z0 - final tip z [m]
  // The tip's advance over the last half turn of drive (the whole run if shorter) as a fraction
  // of the gripper's feed over it [-]: about 1 threading, below 0.1 stalled; NaN without feed.
  double final_advance_ratio = std::numeric_limits<double>::quiet_NaN();
  double max_tilt = 0;           ///< [rad]
  double final_tilt = 0;         ///< [rad]
  double phase_error = 0;        ///< final helical phase error, wrapped to (-pi, pi] [rad]; NaN in a plain bore
  double max_contact_force = 0;  ///< largest single normal force [N]
  double max_axial_force = 0;    ///< largest |grasp force along z| [N]
  double max_torque_z = 0;       ///< largest |grasp torque about z| [N*m]
  double energy_dissipated = 0;  ///< friction, contact, grasp damping and drive slip [J]
  double drive_slip = 0;         ///< angle the spin drive slipped [rad]
  int max_contacts = 0;
  double final_time = 0;         ///< [s]
  long steps = 0;
  long rhs_evaluations = 0;
  std::string message;           ///< why inconclusive
  std::vector<insertion_sample> history;
};

// Runs one start. Physical failure is an outcome; only invalid parameters throw.
insertion_result simulate_insertion(const insertion_params& params);

// Diagnostics for tests: the contact points at a bolt pose (tip origin x, attitude R).
struct contact_point {
  Eigen::Vector3d point;   ///< [m], global
  Eigen::Vector3d normal;  ///< unit, direction of the force on the bolt
  double depth;            ///< penetration [m], > 0
  double depth_gradient_norm;  ///< |d depth / d point| [-], about 1
  double weight = 1;       ///< share of the law's force this point carries [-]
  int patch = 0;           ///< index of the penetrated stretch (contact patch) it belongs to
  bool thread = false;     ///< on a thread surface (not an end face)
  double helical_offset = 0;  ///< nut minus bolt helical coordinate at the point [m]
};
// The points are the quadrature nodes of the distributed contacts, `weight` their share.
std::vector<contact_point> find_contacts(
    const thread_geometry& g, const Eigen::Vector3d& x, const Eigen::Matrix3d& R,
    int points_per_turn, double spin_angle,
    double contact_length = std::numeric_limits<double>::quiet_NaN());

// The pitch [m]: the default contact_length.
double default_contact_length(const thread_params& t);
// drive_torque_limit, or its default [N*m].
double drive_torque_limit(const insertion_params& p);

}  // namespace contactuq::threaded
