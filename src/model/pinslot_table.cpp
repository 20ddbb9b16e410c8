#include "contactuq/model/pinslot_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "contactuq/error.hpp"
#include "contactuq/model/physical_limit.hpp"

namespace contactuq::model {

namespace u = units;
using multibody::pinslot_params;

namespace {

const u::dimension inertia = u::mass * u::length * u::length;
const u::dimension acceleration = u::length / (u::duration * u::duration);
const u::dimension inverse_time = u::dimensionless / u::duration;

using setter = std::function<void(const io::study_table&, std::string_view, pinslot_setup&)>;

// A value outside `valid` is refused at its key, naming the allowed range (as an input's is).
void check(const io::study_table& t, std::string_view key, double v, u::dimension dim, const valid_range& valid) {
  if (!valid.contains(v)) {
    const std::string unit = u::si_unit(dim);
    t.fail(key, fmt::format("{} = {:g}{}{} is outside the valid range of {}: {}", key, v, unit.empty() ? "" : " ",
                            unit, key, valid.text(dim)));
  }
}

setter scalar(u::dimension dim, valid_range valid, std::function<void(pinslot_setup&, double)> set) {
  return [dim, valid, set](const io::study_table& t, std::string_view key, pinslot_setup& s) {
    const double v = t.quantity(key, dim);
    check(t, key, v, dim, valid);
    set(s, v);
  };
}
// A point or vector: each component within +-limit.
setter point(u::dimension dim, double limit, std::function<void(pinslot_setup&, const multibody::vec2&)> set) {
  return [dim, limit, set](const io::study_table& t, std::string_view key, pinslot_setup& s) {
    const auto v = t.quantities(key, dim);
    if (v.size() != 2) t.fail(key, fmt::format("needs 2 values (x, y), got {}", v.size()));
    for (const double x : v) check(t, key, x, dim, magnitude_up_to(limit));
    set(s, {v[0], v[1]});
  };
}

// Every key but type, joint and label: how to read it, where it goes and where its values make
// sense. Physical values take the generous bounds of physical_limit; the integration settings
// are bounded about their Table 3 values widely (a 10 s run is 170 times Table 3's 60 ms, a 1 mm
// penetration tolerance a thousand times its 1 um, past which onsets are located that late).
// Velocity scales that divide a force law (transition_velocity, velocity_regularization,
// minimum_impact_velocity) stay >= 1 um/s: below it the law is so sharp that the step size
// collapses and a run crawls (clearance_joint.cpp, minimum_impact_velocity).
const std::map<std::string, setter, std::less<>>& setters() {
  namespace lim = physical_limit;
  constexpr valid_range slow_velocity{1e-6, lim::velocity};
  static const std::map<std::string, setter, std::less<>> m = {
      {"law", [](const io::study_table& t, std::string_view k, pinslot_setup& s) {
         s.params.contact.law = t.string(k);
         const auto laws = multibody::clearance_laws();
         if (std::find(laws.begin(), laws.end(), s.params.contact.law) == laws.end())
           t.fail(k, fmt::format("unknown contact law; known: {}", fmt::join(laws, ", ")));
       }},
      {"friction_model", [](const io::study_table& t, std::string_view k, pinslot_setup& s) {
         const auto kind = t.choice(k, {"none", "coulomb", "regularized"});
         s.params.contact.friction = kind == "none"      ? multibody::friction_model::none
                                     : kind == "coulomb" ? multibody::friction_model::coulomb
                                                      : multibody::friction_model::regularized;
       }},
      {"body_0_mass", scalar(u::mass, positive_up_to(lim::mass), [](auto& s, double v) { s.params.body_0_mass = v; })},
      {"body_0_inertia", scalar(inertia, positive_up_to(lim::inertia), [](auto& s, double v) { s.params.body_0_inertia = v; })},
      {"body_1_mass", scalar(u::mass, positive_up_to(lim::mass), [](auto& s, double v) { s.params.body_1_mass = v; })},
      {"body_1_inertia", scalar(inertia, positive_up_to(lim::inertia), [](auto& s, double v) { s.params.body_1_inertia = v; })},
      {"pin_radius", scalar(u::length, positive_up_to(lim::length), [](auto& s, double v) { s.params.pin_radius = v; })},
      {"clearance", scalar(u::length, positive_up_to(lim::length), [](auto& s, double v) { s.params.clearance = s.params.clearance_r = v; })},
      {"clearance_r", scalar(u::length, positive_up_to(lim::length), [](auto& s, double v) { s.params.clearance_r = v; })},
      {"slot_length", scalar(u::length, non_negative_up_to(lim::length), [](auto& s, double v) { s.params.slot_length = v; })},
      {"slot_p", point(u::length, lim::length, [](auto& s, const multibody::vec2& v) { s.params.slot_p = v; })},
      {"restitution", scalar(u::dimensionless, {0.0, 1.0, true, false}, [](auto& s, double v) { s.params.contact.restitution = v; })},
      {"exponent", scalar(u::dimensionless, {1.0, 10.0}, [](auto& s, double v) { s.params.contact.exponent = v; })},
      {"friction", scalar(u::dimensionless, non_negative_up_to(lim::friction), [](auto& s, double v) { s.params.contact.friction_coefficient = v; })},
      {"transition_velocity", scalar(u::velocity, slow_velocity, [](auto& s, double v) { s.params.contact.transition_velocity = v; })},
      {"modulus", scalar(u::pressure, positive_up_to(lim::modulus), [](auto& s, double v) { s.params.contact.modulus_i = s.params.contact.modulus_j = v; })},
      {"poisson", scalar(u::dimensionless, {0.0, 0.5, false, true}, [](auto& s, double v) { s.params.contact.poisson_i = s.params.contact.poisson_j = v; })},
      {"contact_length", scalar(u::length, positive_up_to(lim::length), [](auto& s, double v) { s.params.contact.length = v; })},
      {"kelvin_voigt_stiffness", scalar(u::stiffness, positive_up_to(lim::stiffness), [](auto& s, double v) { s.params.contact.kelvin_voigt_stiffness = v; })},
      {"velocity_regularization", scalar(u::velocity, slow_velocity, [](auto& s, double v) { s.params.contact.velocity_regularization = v; })},
      {"minimum_impact_velocity", scalar(u::velocity, slow_velocity, [](auto& s, double v) { s.params.contact.minimum_impact_velocity = v; })},
      {"force_amplitude", scalar(u::force, magnitude_up_to(lim::force), [](auto& s, double v) { s.params.force_amplitude = v; })},
      {"force_duration", scalar(u::duration, positive_up_to(10.0), [](auto& s, double v) { s.params.force_duration = v; })},
      {"force_point", point(u::length, lim::length, [](auto& s, const multibody::vec2& v) { s.params.force_point = v; })},
      {"spring_stiffness", scalar(u::stiffness, positive_up_to(lim::stiffness), [](auto& s, double v) { s.params.spring_stiffness = v; })},
      {"spring_preload", scalar(u::force, non_negative_up_to(lim::force), [](auto& s, double v) { s.params.spring_preload = v; })},
      {"spring_damping", scalar(u::damping, non_negative_up_to(lim::damping), [](auto& s, double v) { s.params.spring_damping = v; })},
      {"spring_length", scalar(u::length, positive_up_to(lim::length), [](auto& s, double v) { s.params.spring_length = v; })},
      {"spring_point", point(u::length, lim::length, [](auto& s, const multibody::vec2& v) { s.params.spring_point = v; })},
      {"gravity", point(acceleration, lim::acceleration, [](auto& s, const multibody::vec2& v) { s.params.gravity = v; })},
      {"end_time", scalar(u::duration, positive_up_to(10.0), [](auto& s, double v) { s.simulation.end_time = v; })},
      {"max_step", scalar(u::duration, positive_up_to(1.0), [](auto& s, double v) { s.simulation.max_step = v; })},
      {"contact_step", scalar(u::duration, positive_up_to(1.0), [](auto& s, double v) { s.simulation.contact_step = v; })},
      {"penetration_tolerance", scalar(u::length, positive_up_to(1e-3), [](auto& s, double v) { s.simulation.penetration_tolerance = v; })},
      {"relative_tolerance", scalar(u::dimensionless, {1e-13, 1e-2}, [](auto& s, double v) { s.simulation.relative_tolerance = v; })},
      {"absolute_tolerance", scalar(u::dimensionless, positive_up_to(1.0), [](auto& s, double v) { s.simulation.absolute_tolerance = v; })},
      {"baumgarte_alpha", scalar(inverse_time, non_negative_up_to(1e6), [](auto& s, double v) { s.simulation.baumgarte_alpha = v; })},
      {"baumgarte_beta", scalar(inverse_time, non_negative_up_to(1e6), [](auto& s, double v) { s.simulation.baumgarte_beta = v; })},
      {"sample_interval", scalar(u::duration, positive_up_to(1.0), [](auto& s, double v) { s.simulation.sample_interval = v; })},
      {"window", [](const io::study_table& t, std::string_view k, pinslot_setup& s) {
         const auto w = t.integer(k);
         // 301 in Section 5.2; a million samples is 20 s at 51.2 kS/s, longer than any run.
         if (w < 1 || w > 1'000'001 || w % 2 == 0) t.fail(k, "must be an odd number of samples in [1, 1000001]");
         s.window = static_cast<std::size_t>(w);
       }},
  };
  return m;
}

void apply(const io::study_table& t, pinslot_setup& s, std::initializer_list<std::string_view> extra) {
  const auto& m = setters();
  for (const auto& key : t.keys()) {
    if (std::find(extra.begin(), extra.end(), key) != extra.end()) continue;
    const auto it = m.find(key);
    if (it == m.end())
      t.fail(key, fmt::format("unknown key; allowed: {}, {}", fmt::join(extra, ", "), fmt::join(pinslot_keys(), ", ")));
    it->second(t, key, s);
  }
}

}  // namespace

std::vector<std::string> pinslot_keys() {
  std::vector<std::string> keys{"joint"};
  for (const auto& [k, f] : setters()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys;
}

pinslot_setup read_pinslot_setup(const io::study_table& model, const io::study_table* over) {
  const io::study_table& joint_table = over && over->has("joint") ? *over : model;
  const auto joint = multibody::parse_joint_type(
      joint_table.choice("joint", {"pscj", "rcj", "irj"}, std::string_view("pscj")));
  pinslot_setup s;
  s.params = multibody::pinslot_defaults(joint);
  apply(model, s, {"type", "joint"});
  if (over) apply(*over, s, {"label", "joint"});
  try {
    s.params.validate();
    s.simulation.validate();
  } catch (const parameter_error& e) {
    if (over && over->has(e.field())) over->fail(e);
    model.fail(e);
  }
  return s;
}

}  // namespace contactuq::model
