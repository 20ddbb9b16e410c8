#include "contactuq/multibody/clearance_joint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/friction.hpp"
#include "contactuq/contact/hysteresis_damping.hpp"
#include "contactuq/contact/johnson_cylinder.hpp"
#include "contactuq/contact/lankarani_nikravesh.hpp"
#include "contactuq/error.hpp"

namespace contactuq::multibody {

const char* feature_name(clearance_feature f) {
  switch (f) {
    case clearance_feature::arc_p: return "arc_p";
    case clearance_feature::arc_r: return "arc_r";
    case clearance_feature::flat_plus: return "flat_plus";
    case clearance_feature::flat_minus: return "flat_minus";
  }
  return "?";
}

void slot_geometry::validate() const {
  require(pin_radius > 0 && std::isfinite(pin_radius), "pin_radius", pin_radius, "m",
          "positive and finite");
  require(radius_p > pin_radius && std::isfinite(radius_p), "radius_p", radius_p, "m",
          "finite and larger than the pin radius (a positive clearance)");
  require(radius_r > pin_radius && std::isfinite(radius_r), "radius_r", radius_r, "m",
          "finite and larger than the pin radius (a positive clearance)");
  if (!centre_p.allFinite() || !centre_r.allFinite())
    throw parameter_error("slot_p", "slot centres must be finite");
  const double l = length();
  if (l == 0) {
    require(radius_r == radius_p, "radius_r", radius_r, "m", "equal to radius_p when L = 0");
  } else {
    require(std::abs(radius_p - radius_r) < l, "radius_r", radius_r, "m",
            "within L of radius_p (else one end contains the other)");
  }
}

namespace {

wall_contact finish(clearance_feature f, double distance, const vec2& n, const vec2& pin_centre,
                    double pin_radius) {
  wall_contact w;
  w.feature = f;
  w.overlap = pin_radius - distance;
  w.normal = n;
  w.tangent = perpendicular(n);  // eq. (20)
  w.pin_point = pin_centre + pin_radius * n;
  w.wall_point = pin_centre + distance * n;
  return w;
}

}  // namespace

wall_contact hole_contact(const vec2& hole_centre, double hole_radius, const vec2& pin_centre,
                          double pin_radius) {
  const vec2 e = pin_centre - hole_centre;  // eq. (16)
  const double length = e.norm();           // eq. (17)
  const vec2 n = length > 0 ? vec2(e / length) : vec2::UnitX();  // eq. (18)
  // delta = e - c, eq. (19) with penetration positive; here as R_j - (R_i - e).
  return finish(clearance_feature::arc_p, hole_radius - length, n, pin_centre, pin_radius);
}

wall_contact slot_contact(const slot_geometry& slot, const vec2& position, double theta,
                          const vec2& pin_centre) {
  const vec2 p = point_position(position, theta, slot.centre_p);  // eq. (6)
  const vec2 r = point_position(position, theta, slot.centre_r);
  const double l = (r - p).norm();
  // Axis u from P to R (eqs. (10)-(11)); along body i's x axis when L = 0.
  const vec2 u = l > 0 ? vec2((r - p) / l) : vec2(rotation(theta) * vec2::UnitX());
  const vec2 w = perpendicular(u);
  const double sin_phi = l > 0 ? (slot.radius_p - slot.radius_r) / l : 0.0;
  const double cos_phi = std::sqrt(std::max(0.0, 1 - sin_phi * sin_phi));

  // Flats: outward normals N+- and wall distances, eqs. (12)-(14) per flat.
  const vec2 n_plus = sin_phi * u + cos_phi * w;
  const vec2 n_minus = sin_phi * u - cos_phi * w;
  clearance_feature best = clearance_feature::flat_plus;
  double distance = n_plus.dot(p - pin_centre) + slot.radius_p;
  vec2 normal = n_plus;
  const double s_minus = n_minus.dot(p - pin_centre) + slot.radius_p;
  if (s_minus < distance) best = clearance_feature::flat_minus, distance = s_minus, normal = n_minus;

  // Ends, eqs. (16)-(19), where the pin faces the part of the circle beyond the flats.
  auto end = [&](const vec2& centre, double radius, clearance_feature f, double sign) {
    const vec2 e = pin_centre - centre;
    const double length = e.norm();
    if (length == 0) return;
    const vec2 n = e / length;
    if (sign * (n.dot(u) - sin_phi) < 0) return;  // faces a flat, not this end
    const double s = radius - length;
    if (s < distance) best = f, distance = s, normal = n;
  };
  end(p, slot.radius_p, clearance_feature::arc_p, -1.0);
  end(r, slot.radius_r, clearance_feature::arc_r, +1.0);
  return finish(best, distance, normal, pin_centre, slot.pin_radius);
}

void contact_options::validate() const {
  const auto known = clearance_laws();
  if (std::find(known.begin(), known.end(), law) == known.end())
    throw parameter_error("law", fmt::format("unknown clearance-joint contact law '{}' (known: {})",
                                             law, fmt::join(known, ", ")));
  require(restitution > 0 && restitution <= 1, "restitution", restitution, "", "in (0, 1]");
  require(exponent >= 1 && std::isfinite(exponent), "exponent", exponent, "", ">= 1");
  contact::effective_modulus(modulus_i, poisson_i, modulus_j, poisson_j);
  require(length > 0 && std::isfinite(length), "contact_length", length, "m",
          "positive and finite");
  require(std::isnan(kelvin_voigt_stiffness) ||
              (kelvin_voigt_stiffness > 0 && std::isfinite(kelvin_voigt_stiffness)),
          "kelvin_voigt_stiffness", kelvin_voigt_stiffness, "N/m", "positive and finite");
  require(velocity_regularization > 0 && std::isfinite(velocity_regularization),
          "velocity_regularization", velocity_regularization, "m/s", "positive and finite");
  // The damping of eq. (26) grows as 1/delta'_0: below 1 um/s the contact is so stiff that the
  // run time grows without bound (1e-12 m/s: over 5e6 steps for 17 us of motion).
  require(minimum_impact_velocity >= 1e-6 && std::isfinite(minimum_impact_velocity),
          "minimum_impact_velocity", minimum_impact_velocity, "m/s", ">= 1e-6 (1 um/s) and finite");
  require(friction_coefficient >= 0 && std::isfinite(friction_coefficient), "friction",
          friction_coefficient, "", "non-negative and finite");
  require(transition_velocity > 0 && std::isfinite(transition_velocity), "transition_velocity",
          transition_velocity, "m/s", "positive and finite");
}

std::vector<std::string> clearance_laws() {
  return {"flores",          "gonthier",         "hertz",
          "hunt_crossley",   "johnson_cylinder", "johnson_cylinder_damped",
          "kelvin_voigt_cr", "lankarani_nikravesh"};
}

double clearance_hertz_stiffness(const contact_options& o, double r_hole, double r_pin) {
  const double modulus =
      contact::effective_modulus(o.modulus_i, o.poisson_i, o.modulus_j, o.poisson_j);  // (23)
  // Eq. (22) with the hole's radius counted negative (internal contact); R_i -> inf on a flat.
  const double radius = std::isinf(r_hole) ? r_pin : r_hole * r_pin / (r_hole - r_pin);
  return 4.0 / 3.0 * modulus * std::sqrt(radius);
}

namespace {

// Eq. (24)'s switch at v_n = 0, blended over +-v_eps: the law is memoryless, so its two branches
// are its force at +v_eps and at -v_eps. Without the blend a resting contact chatters between
// the branches and the step size collapses.
struct smoothed_switch_law {
  contact::contact_law inner;
  double velocity = 1e-4;
  double blend(double d, double v) const {
    const double w = 0.5 * (1 + std::tanh(v / velocity));
    return w * inner.peek_force(d, velocity) + (1 - w) * inner.peek_force(d, -velocity);
  }
  double force(double d, double v) { return blend(d, v); }
  double peek_force(double d, double v) const { return blend(d, v); }
  double release_margin(double d, double v) const { return inner.release_margin(d, v); }
  void reset() { inner.reset(); }
  std::string_view name() const { return "kelvin_voigt_cr"; }
};

// Johnson's elastic line contact, eq. (28), with the Lankarani-Nikravesh factor of eq. (27).
struct johnson_damped_law {
  contact::johnson_cylinder_params params;
  double restitution = 1.0;
  contact::hysteresis_damping_state state;
  double evaluate(double d, double v, contact::hysteresis_damping_state& s) const {
    const double v0 = contact::record_impact_velocity(s, d, v);
    if (d <= 0) return 0.0;
    const double chi = contact::lankarani_nikravesh_chi(restitution, v0);  // eq. (26) / K
    return std::max(0.0, contact::johnson_cylinder_force(params, d) * (1 + chi * v));
  }
  double force(double d, double v) { return evaluate(d, v, state); }
  double peek_force(double d, double v) const {
    auto copy = state;
    return evaluate(d, v, copy);
  }
  double release_margin(double d, double v) const {
    const double v0 = state.impact_velocity > 0 ? state.impact_velocity : v;
    if (v0 <= 0) return d;
    return d * (1 + contact::lankarani_nikravesh_chi(restitution, v0) * v);
  }
  void reset() { state = {}; }
  std::string_view name() const { return "johnson_cylinder_damped"; }
};

}  // namespace

contact::contact_law make_clearance_law(const contact_options& o, double r_hole, double r_pin) {
  o.validate();
  contact::register_builtin_laws();
  const double stiffness = clearance_hertz_stiffness(o, r_hole, r_pin);
  contact::law_inputs in;
  if (o.law == "hertz") {
    in.values = {{"stiffness", stiffness}, {"exponent", o.exponent}};
    return contact::make_law(o.law, in);
  }
  if (o.law == "kelvin_voigt_cr") {
    const double k = std::isnan(o.kelvin_voigt_stiffness) ? stiffness : o.kelvin_voigt_stiffness;
    in.values = {{"stiffness", k}, {"restitution", o.restitution}};
    return contact::contact_law(
        smoothed_switch_law{contact::make_law(o.law, in), o.velocity_regularization});
  }
  if (o.law == "johnson_cylinder" || o.law == "johnson_cylinder_damped") {
    contact::johnson_cylinder_params p;
    p.modulus = contact::effective_modulus(o.modulus_i, o.poisson_i, o.modulus_j, o.poisson_j);
    // Eq. (30), internal, in an end; on a flat (no finite eq. (30)) the pin radius.
    p.radius_difference =
        std::isinf(r_hole)
            ? r_pin
            : contact::johnson_radius_difference(r_hole, r_pin, contact::cylinder_contact::internal);
    p.length = o.length;
    if (o.law == "johnson_cylinder_damped") {
      p.validate();
      return contact::contact_law(johnson_damped_law{p, o.restitution, {}});
    }
    in.values = {{"modulus", p.modulus},
                 {"radius_difference", p.radius_difference},
                 {"length", p.length}};
    return contact::make_law(o.law, in);
  }
  // The hysteresis-damping family, eq. (25).
  in.values = {{"stiffness", stiffness}, {"exponent", o.exponent}, {"restitution", o.restitution}};
  return contact::make_law(o.law, in);
}

double clearance_friction(const contact_options& o, double normal_force, double sliding_velocity) {
  switch (o.friction) {
    case friction_model::none: return 0.0;
    case friction_model::coulomb:
      return contact::coulomb_friction_force({o.friction_coefficient}, normal_force,
                                             sliding_velocity);  // eq. (31)
    case friction_model::regularized:
      return contact::regularized_friction_force({o.friction_coefficient, o.transition_velocity},
                                                 normal_force, sliding_velocity);
  }
  return 0.0;
}

void clearance_joint::validate() const {
  if (body_i == body_j)
    throw parameter_error("body_j", fmt::format("{}: the pin and the slot must be different bodies", name));
  slot.validate();
  if (kind == clearance_kind::revolute && slot.length() != 0)
    throw parameter_error("slot_length", fmt::format("{}: a revolute clearance joint has one hole (L = 0)", name));
  if (!pin_centre.allFinite()) throw parameter_error("pin_centre", "pin centre must be finite");
  contact.validate();
}

wall_contact clearance_joint::locate(const vec2& position_i, double theta_i,
                                     const vec2& position_j, double theta_j) const {
  const vec2 pin = point_position(position_j, theta_j, pin_centre);
  if (kind == clearance_kind::revolute)
    return hole_contact(point_position(position_i, theta_i, slot.centre_p), slot.radius_p, pin,
                        slot.pin_radius);
  return slot_contact(slot, position_i, theta_i, pin);
}

}  // namespace contactuq::multibody
