#include "contactuq/model/switch_model.hpp"
#include "contactuq/paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/kelvin_voigt.hpp"
#include "contactuq/contact/law_registry.hpp"
#include "contactuq/dynamics/single_impact.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/material_inputs.hpp"
#include "contactuq/model/physical_limit.hpp"
#include "contactuq/model/receptacle_pin_table.hpp"

namespace contactuq::model {

namespace u = units;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::string_view map_prefix = "cor_";

// Mechanism inputs, in input order.
struct mechanism_input {
  const char* name;
  u::dimension dim;
  double dynamics::switch_params::*field;
  valid_range valid;  ///< switch_params::validate()'s bounds, with generous upper ones
};
const std::vector<mechanism_input>& mechanism_inputs() {
  using p = dynamics::switch_params;
  namespace lim = physical_limit;
  static const std::vector<mechanism_input> table = {
      {"m1", u::mass, &p::m1, positive_up_to(lim::mass)},
      {"m2", u::mass, &p::m2, positive_up_to(lim::mass)},
      {"m3", u::mass, &p::m3, positive_up_to(lim::mass)},
      {"k_d", u::stiffness, &p::k_d, non_negative_up_to(lim::stiffness)},
      {"F0", u::force, &p::F0, positive_up_to(lim::force)},
      {"k12", u::stiffness, &p::k12, non_negative_up_to(lim::stiffness)},
      {"c12", u::damping, &p::c12, non_negative_up_to(lim::damping)},
      {"k3", u::stiffness, &p::k3, non_negative_up_to(lim::stiffness)},
      {"c3", u::damping, &p::c3, non_negative_up_to(lim::damping)},
      {"g0", u::length, &p::g0, positive_up_to(lim::length)},
  };
  return table;
}


// The law's own parameters: input name, the law's key, dimension.
struct law_parameter {
  const char* input;
  const char* key;
  u::dimension dim;
  valid_range valid;
};
constexpr law_parameter restitution{"restitution", "restitution", u::dimensionless, {0.0, 1.0}};
constexpr law_parameter stiffness{"contact_stiffness", "stiffness", u::stiffness,
                                  positive_up_to(physical_limit::stiffness)};
constexpr law_parameter damping{"contact_damping", "damping", u::damping,
                                non_negative_up_to(physical_limit::damping)};
const std::vector<law_parameter>& all_law_parameters() {
  static const std::vector<law_parameter> all = {restitution, stiffness, damping};
  return all;
}

std::vector<law_parameter> law_parameters_of(std::string_view law) {
  if (law == "cor" || law.starts_with(map_prefix)) return {restitution};
  if (law == "kelvin_voigt") return {stiffness, damping};
  if (law == "kelvin_voigt_cr") return {stiffness, restitution};
  if (law == "lankarani_nikravesh" || law == "hunt_crossley" || law == "flores" ||
      law == "gonthier")
    return {restitution};
  if (law == "elastogap" || law == "elastogap_unbounded" || law == "elastogap_clipped")
    return {damping};
  return {};
}

const law_parameter* find_law_parameter(std::string_view input) {
  for (const auto& p : all_law_parameters())
    if (input == p.input) return &p;
  return nullptr;
}

std::string data_dir_default() { return contactuq::data_dir().string(); }

}  // namespace

switch_model::switch_model(switch_setup setup) : setup_(std::move(setup)), nominal_speed_(nan) {
  contact::register_builtin_laws();
  auto& s = setup_;
  s.params.validate();
  s.options.validate();
  require(std::isfinite(s.radius) && s.radius > 0, "radius", s.radius, "m", "positive and finite");
  validate_body(s.sphere, "sphere_");
  validate_body(s.flat, "flat_");
  contact::receptacle_arm(s.params.receptacle, s.params.d0,
                          contact::arm_direction::engage);  // geometry

  const std::string_view law = s.law;
  if (law == "johnson_cylinder")
    throw parameter_error("law",
                          "law = \"johnson_cylinder\": a line contact of parallel cylinders, not "
                          "the sphere on a flat of the switch");
  const bool derived_map = law.starts_with(map_prefix);
  const std::string base = derived_map ? std::string(law.substr(map_prefix.size())) : s.law;
  registry_law_ = derived_map ? "cor" : s.law;
  const auto known = contact::registered_laws();
  if (std::find(known.begin(), known.end(), base) == known.end() || (derived_map && base == "cor"))
    throw parameter_error("law",
                          fmt::format("law = \"{}\": unknown; one of {}, or cor_<law> for the "
                                      "restitution <law> predicts at the nominal impact velocity",
                                      s.law, fmt::join(known, ", ")));

  const auto wanted = law_parameters_of(law);
  for (const auto& [key, value] : s.law_parameters)
    if (std::none_of(wanted.begin(), wanted.end(),
                     [&](const law_parameter& p) { return key == p.input; }) ||
        (derived_map && key == restitution.input))
      throw parameter_error(
          key, fmt::format("{} = {}: not a parameter of law \"{}\"{}", key, value, s.law,
                           derived_map ? " (its restitution is computed)" : ""));
  for (const auto& p : wanted) {
    law_inputs_.push_back(p.input);
    if (s.law_parameters.contains(p.input) || derived_map) continue;
    if (law == "kelvin_voigt") {  // Brake 2014 eq. (12) values
      const contact::kelvin_voigt_params kv;
      s.law_parameters[p.input] = p.input == stiffness.input ? kv.stiffness : kv.damping;
      continue;
    }
    throw parameter_error(p.input, fmt::format("law \"{}\" needs {}", s.law, p.input));
  }

  contact::contact_pair pair{s.sphere, s.flat, s.radius, contact::flat_radius};
  if (derived_map) {
    // The approach to the first touch does not depend on the law: simulate it once with <law>.
    const contact::contact_law elastic_plastic = contact::make_law(base, {pair, {}});
    dynamics::switch_options approach = s.options;
    approach.stop_at_first_impact = true;
    approach.curve_points = 0;
    const auto r = dynamics::simulate_switch(s.params, elastic_plastic, approach);
    if (!r.ok())
      throw model_error(fmt::format("law {}: the nominal approach failed: {}", s.law, r.message));
    if (!(r.impact_velocity > 0))
      throw model_error(
          fmt::format("law {}: the nominal design never reaches the stop within t_end = {} s, so "
                      "there is no nominal impact velocity to take the restitution at",
                      s.law, s.options.t_end));
    nominal_speed_ = r.impact_velocity;
    dynamics::impact_options io;
    io.mass_1 = s.params.m1;
    io.mass_2 = s.params.m3;
    io.approach_velocity = nominal_speed_;
    const auto impact = dynamics::simulate_impact(elastic_plastic, io);
    if (!impact.ok())
      throw model_error(
          fmt::format("law {}: the nominal impact failed: {}", s.law, impact.message));
    s.law_parameters[restitution.input] = impact.restitution;
  }
  // Builds the law once at the nominal values, so that its errors come now.
  std::map<std::string, double> values;
  for (const auto& p : wanted) values[p.key] = s.law_parameters.at(p.input);
  contact::make_law(registry_law_, {pair, values});
}

std::vector<variable> switch_model::inputs() const {
  const auto& s = setup_;
  std::vector<variable> v;
  for (const auto& m : mechanism_inputs()) v.push_back({m.name, m.dim, s.params.*m.field, m.valid});
  for (const auto& p : receptacle_pin_parameters())
    v.push_back({p.name, p.dim, s.params.receptacle.*p.field, p.valid});
  v.push_back({"d0", u::length, s.params.d0, magnitude_up_to(physical_limit::length)});
  // Below 1 um/s the friction switch (1.84) is so sharp that a run crawls (as the pin-slot's
  // transition_velocity).
  v.push_back({"v_t", u::velocity, s.params.v_t, {1e-6, physical_limit::velocity}});
  v.push_back({"radius", u::length, s.radius, positive_up_to(physical_limit::length)});
  for (const auto& in : material_inputs())
    v.push_back({fmt::format("sphere_{}", in.name), in.dim, in.get(s.sphere), in.valid});
  for (const auto& in : material_inputs())
    v.push_back({fmt::format("flat_{}", in.name), in.dim, in.get(s.flat), in.valid});
  for (const auto& name : law_inputs_)
    v.push_back({name, find_law_parameter(name)->dim, s.law_parameters.at(name), find_law_parameter(name)->valid});
  return v;
}

std::vector<variable> switch_model::outputs() const {
  return {{"closed", u::dimensionless},
          {"closure_time", u::duration},
          {"closure_margin", u::length},
          {"chatter", u::dimensionless},
          {"impact_velocity", u::velocity},
          {"impacts", u::dimensionless},
          {"first_restitution", u::dimensionless},
          {"rebound_amplitude", u::length},
          {"settling_time", u::duration},
          {"energy_dissipated", u::energy},
          {"peak_contact_force", u::force},
          {"residual_indentation", u::length}};
}

std::vector<curve_output> switch_model::curves() const {
  const auto n = setup_.options.curve_points;
  if (n == 0) return {};
  std::vector<double> t(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < t.size(); ++k)
    t[k] = setup_.options.t_end * static_cast<double>(k) / static_cast<double>(n - 1);
  return {{"slider", u::length, "t", u::duration, t},
          {"carrier", u::length, "t", u::duration, t},
          {"stop", u::length, "t", u::duration, t},
          {"contact_force", u::force, "t", u::duration, t}};
}

namespace {

std::vector<double> switch_outputs(const dynamics::switch_result& r) {
  return {r.closed ? 1.0 : 0.0,  r.closure_time,      r.closure_margin,
          r.chatter ? 1.0 : 0.0, r.impact_velocity,   static_cast<double>(r.impacts),
          r.first_restitution,   r.rebound_amplitude, r.settling_time,
          r.energy.dissipated(), r.peak_contact_force, r.residual_indentation};
}

}  // namespace

dynamics::switch_result switch_model::simulate(std::span<const double> x) const {
  return simulate(x, setup_.options);
}

dynamics::switch_result switch_model::simulate(std::span<const double> x,
                                               const dynamics::switch_options& options) const {
  const auto& s = setup_;
  dynamics::switch_params p = s.params;
  std::size_t i = 0;
  for (const auto& m : mechanism_inputs()) p.*m.field = x[i++];
  for (const auto& q : receptacle_pin_parameters()) p.receptacle.*q.field = x[i++];
  p.d0 = x[i++];
  p.v_t = x[i++];
  contact::contact_pair pair{s.sphere, s.flat, x[i++], contact::flat_radius};
  for (const auto& in : material_inputs()) in.set(pair.body_1, x[i++]);
  for (const auto& in : material_inputs()) in.set(pair.body_2, x[i++]);
  validate_body(pair.body_1, "sphere_");
  validate_body(pair.body_2, "flat_");
  std::map<std::string, double> values;
  for (const auto& name : law_inputs_) values[find_law_parameter(name)->key] = x[i++];
  const contact::contact_law law = contact::make_law(registry_law_, {pair, std::move(values)});
  return dynamics::simulate_switch(p, law, options);
}

evaluation switch_model::evaluate(std::span<const double> x) const {
  const dynamics::switch_result r = simulate(x);
  if (!r.ok()) throw model_error(r.message);
  evaluation e;
  e.outputs = switch_outputs(r);
  if (setup_.options.curve_points > 0) e.curves = {r.slider, r.carrier, r.stop, r.force};
  return e;
}

evaluation_trace switch_model::trace(std::span<const double> x) const {
  dynamics::switch_options options = setup_.options;
  options.record_steps = true;
  dynamics::switch_result r = simulate(x, options);
  if (!r.ok()) throw model_error(r.message);
  evaluation_trace t;
  t.abscissa_name = "t";
  t.abscissa_dim = units::duration;
  t.abscissa = std::move(r.time);
  t.series = {{"slider", units::length, std::move(r.slider)},
              {"carrier", units::length, std::move(r.carrier)},
              {"stop", units::length, std::move(r.stop)},
              {"contact_force", units::force, std::move(r.force)}};
  for (const auto& e : r.events) t.events.push_back({e.name, e.time});
  t.result.outputs = switch_outputs(r);
  return t;
}

namespace {

// [model.receptacle]: the receptacle's parameters, d0, v_t and the number of arms.
void read_receptacle(const io::study_table& rt, switch_setup& s) {
  std::vector<std::string_view> keys = {"d0", "arms", "v_t"};
  for (const auto& p : receptacle_pin_parameters()) keys.push_back(p.name);
  for (const auto& key : rt.keys())
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      rt.fail(key, fmt::format("unknown key; allowed keys: {}", fmt::join(keys, ", ")));
  for (const auto& p : receptacle_pin_parameters())
    s.params.receptacle.*p.field = std::string_view(p.name) == "theta0"
                                       ? rt.quantity_or(p.name, p.dim, 0.0)
                                       : rt.quantity(p.name, p.dim);
  s.params.d0 = rt.quantity("d0", u::length);
  s.params.v_t = rt.quantity("v_t", u::velocity);
  const std::int64_t arms = rt.integer_or("arms", s.params.arms);
  if (arms < 1 || arms > 1000) rt.fail("arms", "must be an integer in [1, 1000]");
  s.params.arms = static_cast<int>(arms);
  try {
    s.params.receptacle.validate();
    contact::receptacle_arm(s.params.receptacle, s.params.d0, contact::arm_direction::engage);
  } catch (const parameter_error& e) {
    rt.fail(e);
  }
}

// The contact: the two bodies' materials (from the material table, with overrides), the
// radius, and the law's parameters, from [model] or [model.laws.<law>].
void read_contact(const io::study_table& t, const std::string& data_dir, switch_setup& s) {
  const std::string table_path = t.string_or("material_table", data_dir + "/materials.toml");
  contact::material_table materials;
  try {
    materials = contact::material_table::load(table_path);
  } catch (const std::exception& e) {
    t.fail("material_table", e.what());  // names the study key, not only the file
  }
  auto body = [&](const char* prefix, contact::material& m) {
    const std::string key = fmt::format("{}_material", prefix);
    const std::string name = t.string(key);
    if (!materials.contains(name))
      t.fail(key, fmt::format("unknown material; {} has: {}", table_path,
                              fmt::join(materials.names(), ", ")));
    m = materials.at(name);
    for (const auto& in : material_inputs()) {
      const std::string field = fmt::format("{}_{}", prefix, in.name);
      if (t.has(field)) in.set(m, t.quantity(field, in.dim));
    }
  };
  body("sphere", s.sphere);
  body("flat", s.flat);
  s.radius = t.quantity("radius", u::length);
  for (const auto& p : all_law_parameters())
    if (t.has(p.input)) s.law_parameters[p.input] = t.quantity(p.input, p.dim);
  // [model.laws.<law>]: parameters of a law, used only when it is the chosen one, so that one
  // [model] table serves a study that compares laws (an epistemic `law`).
  if (const auto laws = t.optional_table("laws")) {
    for (const std::string& name : laws->keys()) {
      const io::study_table lt = laws->table(name);
      lt.allow_only({"restitution", "contact_stiffness", "contact_damping"});
      if (name != s.law) continue;
      for (const auto& p : all_law_parameters()) {
        if (!lt.has(p.input)) continue;
        if (s.law_parameters.contains(p.input))
          lt.fail(p.input, fmt::format("also given in [{}]; give it once", t.path()));
        s.law_parameters[p.input] = lt.quantity(p.input, p.dim);
      }
    }
  }

}

// The integration options: t_end, the curves, the tolerances and the event thresholds.
void read_options(const io::study_table& t, dynamics::switch_options& o) {
  o.t_end = t.quantity_or("t_end", u::duration, o.t_end);
  const std::int64_t points = t.integer_or("curve_points", o.curve_points);
  if (points != 0 && (points < 2 || points > 1000000))
    t.fail("curve_points", "must be 0 (no curves) or in [2, 1000000]");
  o.curve_points = static_cast<int>(points);
  o.relative_tolerance =
      t.quantity_or("relative_tolerance", u::dimensionless, o.relative_tolerance);
  o.absolute_tolerance =
      t.quantity_or("absolute_tolerance", u::dimensionless, o.absolute_tolerance);
  o.settle_band = t.quantity_or("settle_band", u::length, o.settle_band);
  o.max_steps = t.integer_or("max_steps", o.max_steps);
  o.impact_count_fraction =
      t.quantity_or("impact_count_fraction", u::dimensionless, o.impact_count_fraction);
  o.stick_fraction = t.quantity_or("stick_fraction", u::dimensionless, o.stick_fraction);

}

}  // namespace

switch_model switch_model::from_study(const io::study_table& table) {
  return from_study(table, data_dir_default());
}

switch_model switch_model::from_study(const io::study_table& t, const std::string& data_dir) {
  t.allow_only({"type",
                "law",
                "material_table",
                "sphere_material",
                "flat_material",
                "radius",
                "m1",
                "m2",
                "m3",
                "k_d",
                "F0",
                "k12",
                "c12",
                "k3",
                "c3",
                "g0",
                "sphere_modulus",
                "sphere_poisson",
                "sphere_yield_strength",
                "sphere_hardness",
                "flat_modulus",
                "flat_poisson",
                "flat_yield_strength",
                "flat_hardness",
                "restitution",
                "contact_stiffness",
                "contact_damping",
                "laws",
                "receptacle",
                "t_end",
                "curve_points",
                "relative_tolerance",
                "absolute_tolerance",
                "settle_band",
                "max_steps",
                "impact_count_fraction",
                "stick_fraction"});
  contact::register_builtin_laws();
  switch_setup s;
  s.law = t.string("law");

  for (const auto& m : mechanism_inputs()) s.params.*m.field = t.quantity(m.name, m.dim);
  const io::study_table rt = t.table("receptacle");
  read_receptacle(rt, s);

  read_contact(t, data_dir, s);

  read_options(t, s.options);

  try {
    return switch_model(std::move(s));
  } catch (const parameter_error& e) {
    // A material property the study did not override comes from the material's table entry.
    const std::string& f = e.field();
    if (!t.has(f) && (f.starts_with("sphere_") || f.starts_with("flat_")))
      t.fail(f.starts_with("sphere_") ? "sphere_material" : "flat_material", e.what());
    t.fail(e);
  } catch (const model_error& e) {
    t.fail("law", e.what());
  }
}

}  // namespace contactuq::model
