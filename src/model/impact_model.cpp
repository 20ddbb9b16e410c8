#include "contactuq/model/impact_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numbers>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/material_inputs.hpp"
#include "contactuq/model/physical_limit.hpp"

namespace contactuq::model {

namespace u = units;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double infinity = std::numeric_limits<double>::infinity();


std::string data_dir_default() {
  if (const char* env = std::getenv("CONTACTUQ_DATA")) return env;
  return CONTACTUQ_DATA_DIR;
}

bool fixed(const impact_body& b) { return std::isinf(b.mass); }

// Where a law parameter of [model.laws.<law>] makes physical sense, by the law's field name
// (contact/law_registry.cpp reads these). A stiffness or damping has the dimension its law
// gives it (N/m, N/m^1.5, ...): the bounds hold for all of them (a Hertz stiffness 4/3 E sqrt(R)
// stays below 1e14 N/m^1.5 at the largest modulus and radius).
valid_range law_parameter_range(std::string_view name) {
  namespace lim = physical_limit;
  if (name == "restitution") return {0.0, 1.0};
  if (name == "exponent") return positive_up_to(10.0);
  if (name == "stiffness") return positive_up_to(1e15);
  if (name == "damping") return non_negative_up_to(1e12);
  if (name == "modulus") return positive_up_to(lim::modulus);
  if (name == "yield_strength" || name == "hardness") return positive_up_to(lim::strength);
  if (name == "poisson") return {0.0, 0.5, false, true};
  if (name == "radius" || name == "length") return positive_up_to(lim::length);
  if (name == "radius_difference") return non_negative_up_to(lim::length);
  // A field this list does not know is the law's own to judge (its validate() runs when the
  // model is built and at every evaluation).
  return {};
}
bool flat(const impact_body& b) { return std::isinf(b.radius); }

// Value of `x` at time t on the recorded history, linear between samples.
double interpolate(const std::vector<dynamics::impact_sample>& h, double t, double dynamics::impact_sample::*x) {
  const auto it = std::lower_bound(h.begin(), h.end(), t,
                                   [](const dynamics::impact_sample& s, double v) { return s.time < v; });
  if (it == h.begin()) return (*it).*x;
  if (it == h.end()) return h.back().*x;
  const auto& b = *it;
  const auto& a = *(it - 1);
  const double w = b.time > a.time ? (t - a.time) / (b.time - a.time) : 1.0;
  return a.*x + w * (b.*x - a.*x);
}

}  // namespace

impact_body read_impact_body(const io::study_table& t, const contact::material_table& materials) {
  t.allow_only({"material", "radius", "mass", "modulus", "poisson", "yield_strength", "density",
                "brinell_hardness"});
  impact_body b;
  if (t.has("material")) {
    const std::string name = t.string("material");
    if (!materials.contains(name))
      t.fail("material", fmt::format("unknown material; the table has: {}", fmt::join(materials.names(), ", ")));
    b.material = materials.at(name);
  } else {
    b.material.name = t.path();
    b.material.description = "given in the study";
  }
  auto& m = b.material;
  m.modulus = t.quantity_or("modulus", u::pressure, m.modulus);
  m.poisson = t.quantity_or("poisson", u::dimensionless, m.poisson);
  m.yield_strength = t.quantity_or("yield_strength", u::pressure, m.yield_strength);
  m.density = t.quantity_or("density", u::density, m.density);
  if (t.has("brinell_hardness")) {
    const double hb = t.quantity("brinell_hardness", u::dimensionless);
    if (!(hb > 0 && std::isfinite(hb))) t.fail("brinell_hardness", "must be positive and finite");
    m.hardness = contact::brinell_to_pascal(hb);  // HB [kgf/mm^2] to Pa, once
  }
  try {
    m.validate();
  } catch (const parameter_error& e) {
    t.fail(e);
  }
  const bool is_flat = t.value_text("radius") == "\"flat\"";
  b.radius = is_flat ? contact::flat_radius : t.quantity("radius", u::length);
  if (!(b.radius > 0)) t.fail("radius", "must be > 0, or \"flat\"");
  if ((t.has("mass") && t.value_text("mass") == "\"fixed\"") || (is_flat && !t.has("mass")))
    b.mass = infinity;
  else if (t.has("mass"))
    b.mass = t.quantity("mass", u::mass);
  else
    b.mass = m.density * 4.0 / 3.0 * std::numbers::pi * std::pow(b.radius, 3);
  if (!(b.mass > 0)) t.fail("mass", "must be > 0, or \"fixed\"");
  return b;
}

impact_model::impact_model(impact_setup setup) : setup_(std::move(setup)) {
  contact::register_builtin_laws();
  auto& s = setup_;
  if (flat(s.body_1) && flat(s.body_2))
    throw parameter_error("radius_2", "two flats cannot impact; give one body a radius");
  if (fixed(s.body_1)) throw parameter_error("mass_1", "mass_1 = fixed: the moving body needs a finite mass");
  validate_body(s.body_1.material, "body_1_");
  validate_body(s.body_2.material, "body_2_");
  if (s.curve_points != 0 && (s.curve_points < 2 || s.curve_points > 1000000))
    throw parameter_error("curve_points", fmt::format("curve_points = {}: must be 0 (no curves) or in [2, 1000000]",
                                                      s.curve_points));
  const auto known = contact::registered_laws();
  if (std::find(known.begin(), known.end(), s.law) == known.end())
    throw parameter_error("law", fmt::format("law = \"{}\": unknown; one of {}", s.law, fmt::join(known, ", ")));
  // Options and law at the nominal inputs, so that their errors come now.
  std::vector<double> x;
  for (const auto& v : inputs()) x.push_back(v.nominal);
  (void)prepare(x);
}

std::vector<variable> impact_model::inputs() const {
  const auto& s = setup_;
  std::vector<variable> v;
  namespace lim = physical_limit;
  v.push_back({"approach_velocity", u::velocity, s.solver.approach_velocity, positive_up_to(lim::velocity)});
  v.push_back({"mass_1", u::mass, s.body_1.mass, positive_up_to(lim::mass)});
  if (!fixed(s.body_2)) v.push_back({"mass_2", u::mass, s.body_2.mass, positive_up_to(lim::mass)});
  if (!flat(s.body_1)) v.push_back({"radius_1", u::length, s.body_1.radius, positive_up_to(lim::length)});
  if (!flat(s.body_2)) v.push_back({"radius_2", u::length, s.body_2.radius, positive_up_to(lim::length)});
  for (const auto& in : material_inputs())
    v.push_back({fmt::format("body_1_{}", in.name), in.dim, in.get(s.body_1.material), in.valid});
  for (const auto& in : material_inputs())
    v.push_back({fmt::format("body_2_{}", in.name), in.dim, in.get(s.body_2.material), in.valid});
  for (const auto& [name, value] : s.law_parameters)
    v.push_back({name, value.dim, value.si, law_parameter_range(name)});
  return v;
}

std::vector<variable> impact_model::outputs() const {
  return {{"restitution", u::dimensionless},  {"peak_force", u::force},
          {"contact_time", u::duration},      {"max_overlap", u::length},
          {"residual_overlap", u::length},    {"energy_dissipated", u::energy}};
}

std::vector<curve_output> impact_model::curves() const {
  const auto n = static_cast<std::size_t>(setup_.curve_points);
  if (n == 0) return {};
  std::vector<double> tau(n);
  for (std::size_t k = 0; k < n; ++k) tau[k] = static_cast<double>(k) / static_cast<double>(n - 1);
  return {{"force", u::force, "tau", u::dimensionless, tau}, {"overlap", u::length, "tau", u::dimensionless, tau}};
}

impact_model::prepared impact_model::prepare(std::span<const double> x) const {
  const auto& s = setup_;
  prepared p{s.solver, {}};
  contact::contact_pair pair{s.body_1.material, s.body_2.material, s.body_1.radius, s.body_2.radius};
  std::size_t i = 0;
  p.options.approach_velocity = x[i++];
  p.options.mass_1 = x[i++];
  p.options.mass_2 = fixed(s.body_2) ? infinity : x[i++];
  if (!flat(s.body_1)) pair.radius_1 = x[i++];
  if (!flat(s.body_2)) pair.radius_2 = x[i++];
  for (const auto& in : material_inputs()) in.set(pair.body_1, x[i++]);
  for (const auto& in : material_inputs()) in.set(pair.body_2, x[i++]);
  validate_body(pair.body_1, "body_1_");
  validate_body(pair.body_2, "body_2_");
  require(pair.radius_1 > 0, "radius_1", pair.radius_1, "m", "positive");
  require(pair.radius_2 > 0, "radius_2", pair.radius_2, "m", "positive");
  contact::law_inputs law_in{pair, {}};
  for (const auto& [name, value] : s.law_parameters) law_in.values[name] = x[i++];
  p.options.record_history = s.curve_points > 0;
  p.options.validate();
  p.law.emplace(contact::make_law(s.law, law_in));
  return p;
}

dynamics::impact_result impact_model::simulate(std::span<const double> x) const {
  const prepared p = prepare(x);
  return dynamics::simulate_impact(*p.law, p.options);
}

evaluation impact_model::evaluate(std::span<const double> x) const {
  const dynamics::impact_result r = simulate(x);
  if (!r.ok()) throw model_error(fmt::format("law {}: {}", setup_.law, r.message));
  evaluation e;
  e.outputs = {r.restitution,  r.peak_force,       r.contact_duration,
               r.peak_overlap, r.residual_overlap, r.energy_dissipated};
  const auto n = static_cast<std::size_t>(setup_.curve_points);
  if (n == 0) return e;
  std::vector<double> force(n, nan), overlap(n, nan);
  if (!r.history.empty() && r.contact_duration > 0) {
    for (std::size_t k = 0; k < n; ++k) {
      const double t = r.contact_duration * static_cast<double>(k) / static_cast<double>(n - 1);
      force[k] = interpolate(r.history, t, &dynamics::impact_sample::force);
      overlap[k] = interpolate(r.history, t, &dynamics::impact_sample::overlap);
    }
  }
  e.curves = {std::move(force), std::move(overlap)};
  return e;
}

impact_model impact_model::from_study(const io::study_table& table) {
  return from_study(table, data_dir_default());
}

impact_model impact_model::from_study(const io::study_table& t, const std::string& data_dir) {
  t.allow_only({"type", "law", "approach_velocity", "material_table", "body_1", "body_2", "laws",
                "relative_tolerance", "absolute_tolerance", "max_steps", "integrator", "curve_points"});
  contact::register_builtin_laws();
  impact_setup s;
  s.law = t.string("law");
  const auto known = contact::registered_laws();
  if (std::find(known.begin(), known.end(), s.law) == known.end())
    t.fail("law", fmt::format("unknown contact law; known laws: {}", fmt::join(known, ", ")));

  const std::string table_path = t.string_or("material_table", data_dir + "/materials.toml");
  const auto materials = contact::material_table::load(table_path);
  s.body_1 = read_impact_body(t.table("body_1"), materials);
  s.body_2 = read_impact_body(t.table("body_2"), materials);
  if (flat(s.body_1) && flat(s.body_2))
    t.table("body_2").fail("radius", "two flats cannot impact; give one body a radius");
  if (fixed(s.body_1)) t.table("body_1").fail("mass", "the moving body needs a finite mass");

  // [model.laws.<law>]: parameters of a law by its field names, used only when it is the chosen
  // one, so that one [model] table serves a study that compares laws (an epistemic `law`).
  if (const auto laws = t.optional_table("laws")) {
    for (const std::string& name : laws->keys()) {
      if (std::find(known.begin(), known.end(), name) == known.end())
        laws->fail(name, fmt::format("unknown contact law; known laws: {}", fmt::join(known, ", ")));
      if (name != s.law) continue;
      const io::study_table lt = laws->table(name);
      for (const auto& key : lt.keys()) {
        law_value v;
        if (lt.value_text(key).front() == '"') {
          try {
            const auto q = u::parse_quantity(lt.string(key));
            v = {q.si, q.dim};
          } catch (const std::invalid_argument& e) {
            lt.fail(key, e.what());
          }
        } else {
          v = {lt.quantity(key, u::dimensionless), u::dimensionless};
        }
        s.law_parameters[key] = v;
      }
    }
  }

  auto& o = s.solver;
  o.approach_velocity = t.quantity("approach_velocity", u::velocity);
  o.relative_tolerance = t.quantity_or("relative_tolerance", u::dimensionless, o.relative_tolerance);
  o.absolute_tolerance = t.quantity_or("absolute_tolerance", u::dimensionless, o.absolute_tolerance);
  o.max_steps = t.integer_or("max_steps", o.max_steps);
  o.integrator = t.choice("integrator", {"dopri5", "cvode_adams"}, "dopri5") == "dopri5"
                     ? dynamics::impact_integrator::dopri5
                     : dynamics::impact_integrator::cvode_adams;
  const std::int64_t points = t.integer_or("curve_points", s.curve_points);
  if (points != 0 && (points < 2 || points > 1000000))
    t.fail("curve_points", "must be 0 (no curves) or in [2, 1000000]");
  s.curve_points = static_cast<int>(points);

  const std::string law = s.law;
  try {
    return impact_model(std::move(s));
  } catch (const parameter_error& e) {
    // A law parameter is reported at its [model.laws.<law>] entry, a body's at its table.
    const std::string& f = e.field();
    if (const auto laws = t.optional_table("laws"); laws && laws->has(law) && laws->table(law).has(f))
      laws->table(law).fail(e);
    if (f.starts_with("body_1_") || f == "mass_1" || f == "radius_1") t.table("body_1").fail(e.what());
    if (f.starts_with("body_2_") || f == "mass_2" || f == "radius_2") t.table("body_2").fail(e.what());
    if (t.has(f)) t.fail(e);
    t.fail("law", e.what());
  }
}

}  // namespace contactuq::model
