#include "contactuq/multibody/pinslot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::multibody {

const char* joint_type_name(joint_type j) {
  switch (j) {
    case joint_type::pscj: return "pscj";
    case joint_type::rcj: return "rcj";
    case joint_type::irj: return "irj";
  }
  return "?";
}

joint_type parse_joint_type(const std::string& name) {
  if (name == "pscj") return joint_type::pscj;
  if (name == "rcj") return joint_type::rcj;
  if (name == "irj") return joint_type::irj;
  throw parameter_error("joint", fmt::format("unknown joint type '{}' (known: irj, pscj, rcj)", name));
}

void pinslot_params::validate() const {
  auto positive = [](double v, const char* field, const char* unit) {
    require(v > 0 && std::isfinite(v), field, v, unit, "positive and finite");
  };
  positive(body_0_mass, "body_0_mass", "kg");
  positive(body_0_inertia, "body_0_inertia", "kg*m^2");
  positive(body_1_mass, "body_1_mass", "kg");
  positive(body_1_inertia, "body_1_inertia", "kg*m^2");
  positive(pin_radius, "pin_radius", "m");
  positive(clearance, "clearance", "m");
  positive(clearance_r, "clearance_r", "m");
  require(slot_length >= 0 && std::isfinite(slot_length), "slot_length", slot_length, "m",
          "non-negative and finite");
  if (slot_length == 0)
    require(clearance_r == clearance, "clearance_r", clearance_r, "m", "equal to clearance when L = 0");
  else
    require(std::abs(clearance - clearance_r) < slot_length, "clearance_r", clearance_r, "m",
            "within L of clearance");
  contact.validate();
  half_sine_pulse{force_amplitude, force_duration}.validate();
  positive(spring_stiffness, "spring_stiffness", "N/m");
  require(spring_preload >= 0 && std::isfinite(spring_preload), "spring_preload", spring_preload,
          "N", "non-negative and finite");
  require(spring_damping >= 0 && std::isfinite(spring_damping), "spring_damping", spring_damping,
          "N*s/m", "non-negative and finite");
  positive(spring_length, "spring_length", "m");
  require(spring_preload / spring_stiffness < spring_length, "spring_preload", spring_preload, "N",
          "less than spring_stiffness * spring_length (a positive free length)");
  if (!slot_p.allFinite() || !force_point.allFinite() || !spring_point.allFinite() ||
      !gravity.allFinite())
    throw parameter_error("slot_p", "points and gravity must be finite");
}

pinslot_params pinslot_defaults(joint_type joint) {
  pinslot_params p;
  p.joint = joint;
  if (joint != joint_type::pscj) {  // Table 1 and Table 2, RCJ and IRJ columns
    p.body_0_mass = 32.74e-3;
    p.body_0_inertia = 21.40e-6;
    p.slot_p = {-49e-3, 0.076e-3};
  }
  return p;
}

simulation_options pinslot_simulation_defaults() { return simulation_options{}; }

namespace {

// Overlap where the law carries the preload at rest (bisection on F(delta, 0) = P).
double resting_overlap(const contact_options& c, double r_hole, double r_pin, double preload) {
  if (preload <= 0) return 0.0;
  auto law = make_clearance_law(c, r_hole, r_pin);
  law.force(0.0, c.minimum_impact_velocity);
  double lo = 0.0, hi = 1e-9;
  for (int i = 0; i < 60 && law.peek_force(hi, 0.0) < preload; ++i) lo = hi, hi *= 2;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (law.peek_force(mid, 0.0) < preload ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

planar_system build_pinslot_system(const pinslot_params& p) {
  p.validate();
  planar_system s;
  // Where the pin rests in body 0's frame, and so body 0's position (theta = 0, pin at the origin).
  vec2 pin_local = p.slot_p;
  slot_geometry slot;
  slot.pin_radius = p.pin_radius;
  slot.centre_p = p.slot_p;
  slot.radius_p = p.pin_radius + p.clearance;
  if (p.joint == joint_type::pscj) {
    slot.centre_r = p.slot_p + vec2(p.slot_length, 0.0);
    slot.radius_r = p.pin_radius + p.clearance_r;
    const double d = resting_overlap(p.contact, slot.radius_r, p.pin_radius, p.spring_preload);
    pin_local = slot.centre_r + vec2(p.clearance_r + d, 0.0);
  } else if (p.joint == joint_type::rcj) {
    slot.centre_r = slot.centre_p;
    slot.radius_r = slot.radius_p;
    const double d = resting_overlap(p.contact, slot.radius_p, p.pin_radius, p.spring_preload);
    pin_local = slot.centre_p + vec2(p.clearance + d, 0.0);
  }
  body b0;
  b0.name = "body_0";
  b0.mass = p.body_0_mass;
  b0.inertia = p.body_0_inertia;
  b0.position = -pin_local;
  body b1;
  b1.name = "body_1";
  b1.mass = p.body_1_mass;
  b1.inertia = p.body_1_inertia;
  const std::size_t i0 = s.add_body(b0);
  const std::size_t i1 = s.add_body(b1);
  s.add_constraint(fixed_body{i1, vec2::Zero(), 0.0});
  s.set_gravity(p.gravity);

  if (p.joint == joint_type::irj) {
    s.add_constraint(revolute_joint{"joint", i0, i1, p.slot_p, vec2::Zero()});
  } else {
    clearance_joint j;
    j.name = "joint";
    j.kind = p.joint == joint_type::pscj ? clearance_kind::pin_slot : clearance_kind::revolute;
    j.body_i = i0;
    j.body_j = i1;
    j.slot = slot;
    j.contact = p.contact;
    s.add_clearance_joint(j);
  }

  ground_spring spring;
  spring.body = i0;
  spring.point = p.spring_point;
  const vec2 attached = point_position(b0.position, 0.0, p.spring_point);
  spring.anchor = attached - vec2(p.spring_length, 0.0);
  spring.stiffness = p.spring_stiffness;
  spring.free_length = p.spring_length - p.spring_preload / p.spring_stiffness;
  spring.damping = p.spring_damping;
  s.add_spring(spring);

  point_force f;
  f.body = i0;
  f.point = p.force_point;
  f.direction = vec2::UnitX();
  f.magnitude = half_sine_pulse{p.force_amplitude, p.force_duration};  // eq. (34)
  f.breakpoint = p.force_duration;
  s.add_force(f);
  return s;
}

pinslot_result simulate_pinslot(const pinslot_params& p, const simulation_options& o,
                                std::size_t window) {
  pinslot_result r;
  r.simulation = simulate(build_pinslot_system(p), o);
  const auto& s = r.simulation;
  const std::size_t nj = s.joints.size();
  for (std::size_t i = 0; i < s.samples(); ++i) {
    r.fx.push_back(s.force_x[i * nj]);
    r.fy.push_back(s.force_y[i * nj]);
  }
  r.fx_filtered = centred_moving_average(r.fx, window);
  r.fy_filtered = centred_moving_average(r.fy, window);
  for (std::size_t i = 0; i < r.fx.size(); ++i) {
    r.peak_force_filtered = std::max(r.peak_force_filtered, std::hypot(r.fx_filtered[i], r.fy_filtered[i]));
    r.peak_fx = std::max(r.peak_fx, std::abs(r.fx[i]));
    r.peak_fy = std::max(r.peak_fy, std::abs(r.fy[i]));
  }
  r.peak_force = s.peak_force.empty() ? 0.0 : s.peak_force[0];
  r.impulse = s.impulse.empty() ? 0.0 : s.impulse[0];
  r.impulse_x = s.impulse_x.empty() ? 0.0 : s.impulse_x[0];
  r.impulse_y = s.impulse_y.empty() ? 0.0 : s.impulse_y[0];
  r.impacts = static_cast<long>(s.impacts.size());
  r.max_overlap = s.max_overlap;
  for (const auto& e : s.impacts) r.max_onset_overlap = std::max(r.max_onset_overlap, e.overlap);
  return r;
}

}  // namespace contactuq::multibody
