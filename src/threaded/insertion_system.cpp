#include "insertion_system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/friction.hpp"
#include "contactuq/error.hpp"

namespace contactuq::threaded::detail {

insertion_system::insertion_system(const insertion_params& p)
    : p_(p), g_(p.thread), law_(make_contact_law(p)) {
  const auto& t = p.thread;
  const double rs = g_.bolt_minor_radius();
  mass_ = std::isnan(p.mass) ? p.density * pi * rs * rs * t.bolt_length : p.mass;
  const double L = t.bolt_length;
  inertia_ = Vector3d(mass_ * (L * L / 12 + rs * rs / 4), mass_ * (L * L / 12 + rs * rs / 4),
                      0.5 * mass_ * rs * rs);  // (4.9)
  r_cm_ = Vector3d(0, 0, 0.5 * L);
  const mat6 K = p.grasp.stiffness();
  const double lever = 0.5 * L - p.grasp.z_c;
  const double m_diag[6] = {mass_, mass_, mass_, inertia_.x() + mass_ * lever * lever,
                            inertia_.y() + mass_ * lever * lever, inertia_.z()};
  for (int i = 0; i < 6; ++i) c_diag_[i] = 2 * p.grasp.damping_ratio * std::sqrt(K(i, i) * m_diag[i]);
  // equilibrium path (5.1): tip at (e cos, e sin, z0), phase: x_z - p theta_z/2pi = p/2 - p phase/2pi
  x_e0_ = Vector3d(p.lateral_offset * std::cos(p.offset_azimuth),
                   p.lateral_offset * std::sin(p.offset_azimuth), p.z0);
  theta_z0_ = two_pi * p.z0 / t.pitch - pi + p.phase;
  const Vector3d tilt_axis(-std::sin(p.tilt_azimuth), std::cos(p.tilt_azimuth), 0);
  R_tilt_ = Eigen::AngleAxisd(p.tilt, tilt_axis).toRotationMatrix();
  spin_rate_ = -two_pi * p.feed / t.pitch;
  if (t.plain_bore) {  // a peg is pushed, not screwed: no spin, `phase` only turns it
    theta_z0_ = p.phase;
    spin_rate_ = 0;
  }
}

contact::contact_law insertion_system::make_contact_law(const insertion_params& p) {
  contact::register_builtin_laws();
  if (p.law == "cor" || p.law.starts_with("cor_"))
    throw parameter_error("law", fmt::format("law = \"{}\": an impact map has no force; choose a "
                                             "force law (e.g. hunt_crossley, hertz)",
                                             p.law));
  contact::material steel;
  steel.name = "steel_aisi_1045";  // data/materials.toml
  steel.modulus = 205e9;
  steel.poisson = 0.29;
  steel.yield_strength = 530e6;
  steel.density = 7870;
  steel.hardness = contact::brinell_to_pascal(163);
  contact::law_inputs in;
  const double r = p.thread.root_radius > 0 ? p.thread.root_radius : 0.1 * p.thread.pitch;
  in.pair = contact::contact_pair{steel, steel, r, contact::flat_radius, 0.0,
                                  contact::cylinder_contact::external};
  in.values = p.law_parameters;
  static const char* with_restitution[] = {"hunt_crossley", "lankarani_nikravesh", "flores",
                                           "gonthier", "kelvin_voigt_cr"};
  if (!in.values.contains("restitution"))
    for (const char* n : with_restitution)
      if (p.law == n) in.values["restitution"] = 0.5;
  contact::contact_law law = contact::make_law(p.law, in);
  if (law.is_impact_map())
    throw parameter_error("law", fmt::format("law = \"{}\": an impact map has no force; choose a "
                                             "force law",
                                             p.law));
  law.force(0.0, p.contact_velocity);  // the impact velocity of the hysteresis family
  return law;
}

void insertion_system::gripper(double t, double slip, double slip_rate, Vector3d& x_e, Matrix3d& R_e,
                               Vector3d& v_e, Vector3d& w_e) const {
  const double feed = p_.feed_mode == feed_kind::force ? 0.0 : p_.feed;
  x_e = x_e0_ + Vector3d(0, 0, -feed * t);
  R_e = R_tilt_ *
        Eigen::AngleAxisd(theta_z0_ + spin_rate_ * t + slip, Vector3d::UnitZ()).toRotationMatrix();
  v_e = Vector3d(0, 0, -feed);
  w_e = R_tilt_ * Vector3d(0, 0, spin_rate_ + slip_rate);
}

bool insertion_system::follow_axially(const Vector3d& x, const Matrix3d& R, const Matrix3d& R_e,
                                      double twist, Vector3d& x_e) const {
  if (p_.feed_mode == feed_kind::path) return false;
  const auto& g = p_.grasp;
  const Vector3d rc(0, 0, g.z_c);
  const double target = (-p_.axial_force - g.k_z_theta_z * twist) / g.k_z;
  const double now = (R_e.transpose() * (x_e + R_e * rc - x - R * rc)).z();
  if (p_.feed_mode == feed_kind::guarded && now >= target) return false;  // the path pushes less
  x_e += (target - now) * R_e.col(2);
  return true;
}

void insertion_system::initial_state(double* y) const {
  Vector3d x_e, v_e, w_e;
  Matrix3d R_e;
  gripper(0, 0, 0, x_e, R_e, v_e, w_e);
  const Vector3d xc = x_e + R_e * r_cm_;
  const Eigen::Quaterniond q(R_e);
  const Vector3d vc = v_e + w_e.cross(R_e * r_cm_);
  const Vector3d wb = R_e.transpose() * w_e;
  const double v[n_state] = {xc.x(), xc.y(), xc.z(), q.w(), q.x(), q.y(), q.z(),
                             vc.x(), vc.y(), vc.z(), wb.x(), wb.y(), wb.z(), 0.0, 0.0, 0.0};
  std::copy(v, v + n_state, y);
}

evaluation_terms insertion_system::terms(double t, const bolt_state& s, bool keep_points, bool energy,
                                          const std::vector<contact_point>* contacts) const {
  evaluation_terms out;
  const Matrix3d R = s.q.toRotationMatrix();
  const Vector3d x = s.x_cm - R * r_cm_;
  const Vector3d w = R * s.w_body;
  // grasp
  Vector3d x_e, v_e, w_e;
  Matrix3d R_e;
  gripper(t, s.slip, 0, x_e, R_e, v_e, w_e);
  const double twist = (R_e.transpose() * rotation_log(R_e * R.transpose())).z();
  out.slip_rate = slip_rate(twist);
  gripper(t, s.slip, out.slip_rate, x_e, R_e, v_e, w_e);
  const bool force_held = follow_axially(x, R, R_e, twist, x_e);
  const wrench spring = grasp_spring_wrench(p_.grasp, x, R, x_e, R_e);
  // the clutch dissipates the twist energy it lets go
  out.dissipation -= (p_.grasp.k_theta_z * twist) * out.slip_rate;
  const Vector3d rc = R * Vector3d(0, 0, p_.grasp.z_c);
  const Vector3d v_tip = s.v_cm + w.cross(x - s.x_cm);
  vec6 dv;
  dv.head<3>() = R_e.transpose() * ((v_e + w_e.cross(R_e * Vector3d(0, 0, p_.grasp.z_c))) -
                                    (v_tip + w.cross(rc)));
  dv.tail<3>() = R_e.transpose() * (w_e - w);
  if (force_held) dv[2] = 0;
  vec6 wd;
  for (int i = 0; i < 6; ++i) wd[i] = c_diag_[i] * dv[i];
  const Vector3d fd = R_e * wd.head<3>();
  const Vector3d td = rc.cross(fd) + R_e * wd.tail<3>();
  out.grasp_force = spring.force + fd;
  out.grasp_torque = spring.torque + td;
  out.dissipation += dv.dot(wd);
  out.force += out.grasp_force;
  out.torque_cm += out.grasp_torque + (x - s.x_cm).cross(out.grasp_force);
  out.force.z() -= mass_ * p_.gravity;  // at the centre of mass: no torque
  // contacts
  std::vector<contact_point> found;
  if (!contacts) {
    found = contacts_at(s, keep_points);
    contacts = &found;
  }
  const std::vector<contact_point>& cps = *contacts;
  patch_force_.assign(cps.empty() ? 0 : cps.back().patch + 1, 0.0);
  out.contacts = static_cast<int>(patch_force_.size());
  const contact::regularized_coulomb_params fr{p_.mu, p_.v_t};
  for (const contact_point& c : cps) {
    const Vector3d r = c.point - s.x_cm;
    const Vector3d vp = s.v_cm + w.cross(r);
    const double gn = c.depth_gradient_norm;
    const double rate = -c.normal.dot(vp) * gn;
    const double fe = law_.peek_force(c.depth, 0.0) * c.weight;
    const double fn = law_.peek_force(c.depth, rate) * gn * c.weight;
    out.dissipation += (fn - fe * gn) * rate / gn;
    Vector3d f = fn * c.normal;
    const Vector3d vt = vp - c.normal.dot(vp) * c.normal;
    const double speed = vt.norm();
    if (p_.mu > 0 && speed > 0) {
      const double mu = contact::regularized_friction_coefficient(fr, speed);
      f -= mu * fn * vt / speed;
      out.dissipation += mu * fn * speed;
    }
    out.force += f;
    out.torque_cm += r.cross(f);
    patch_force_[c.patch] += fn;
    if (energy) out.contact_energy += c.weight * law_energy(c.depth);
  }
  for (double f : patch_force_) out.max_normal = std::max(out.max_normal, f);
  if (keep_points) out.points = contacts == &found ? std::move(found) : cps;
  return out;
}

std::vector<contact_point> insertion_system::contacts_at(const bolt_state& s, bool classify) const {
  const Matrix3d R = s.q.toRotationMatrix();
  // the bolt's turn about z, theta_z0 + spin: the reference that unwraps each contact's turn
  // (helical_offset). With `spin` alone, a start whose theta_z0 is near pi put contacts on either
  // side of the bolt on different branches, a pitch apart: cross-threaded from the first touch.
  return detector{g_, grid_, Vector3d(s.x_cm - R * r_cm_), R, classify}.find(theta_z0_ + s.spin,
                                                                             contact_length_);
}

double insertion_system::law_energy(double delta) const {
  static const double xg[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                               0.9602898564975363};
  static const double wg[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                               0.1012285362903763};
  double sum = 0;
  for (int i = 0; i < 4; ++i)
    for (double sg : {-1.0, 1.0}) sum += wg[i] * law_.peek_force(0.5 * delta * (1 + sg * xg[i]), 0.0);
  return 0.5 * delta * sum;
}

void insertion_system::derivative(double t, const double* y, double* yd,
                                  const std::vector<contact_point>* contacts,
                                  contact_measures* seen) const {
  const bolt_state s = unpack(y);
  const evaluation_terms e = terms(t, s, false, false, contacts);
  if (seen) *seen = {t, e.max_normal, e.contacts};
  const Matrix3d R = s.q.toRotationMatrix();
  const Vector3d tau_b = R.transpose() * e.torque_cm;
  const Vector3d& wb = s.w_body;
  const Vector3d Iw = inertia_.cwiseProduct(wb);
  const Vector3d wdot = (tau_b - wb.cross(Iw)).cwiseQuotient(inertia_);  // (4.10)
  const Vector3d a = e.force / mass_;                                   // (4.11)
  // q' = q (0, w_b) / 2 (raw, unnormalised state)
  const double qw = y[3], qx = y[4], qy = y[5], qz = y[6];
  yd[0] = s.v_cm.x();
  yd[1] = s.v_cm.y();
  yd[2] = s.v_cm.z();
  yd[3] = 0.5 * (-qx * wb.x() - qy * wb.y() - qz * wb.z());
  yd[4] = 0.5 * (qw * wb.x() + qy * wb.z() - qz * wb.y());
  yd[5] = 0.5 * (qw * wb.y() + qz * wb.x() - qx * wb.z());
  yd[6] = 0.5 * (qw * wb.z() + qx * wb.y() - qy * wb.x());
  yd[7] = a.x();
  yd[8] = a.y();
  yd[9] = a.z();
  yd[10] = wdot.x();
  yd[11] = wdot.y();
  yd[12] = wdot.z();
  yd[13] = e.dissipation;
  yd[14] = wb.z();
  yd[15] = e.slip_rate;
}

double insertion_system::grasp_energy(double t, const bolt_state& s) const {
  Vector3d x_e, v_e, w_e;
  Matrix3d R_e;
  gripper(t, s.slip, 0, x_e, R_e, v_e, w_e);
  const Matrix3d R = s.q.toRotationMatrix();
  const Vector3d x = s.x_cm - R * r_cm_;
  follow_axially(x, R, R_e, (R_e.transpose() * rotation_log(R_e * R.transpose())).z(), x_e);
  return grasp_spring_energy(p_.grasp, x, R, x_e, R_e);
}

}  // namespace contactuq::threaded::detail
