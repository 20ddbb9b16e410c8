#include "contactuq/study/impact_study.hpp"
#include "contactuq/io/result_file.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "contactuq/contact/material.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/text_output.hpp"
#include "contactuq/model/impact_model.hpp"
#include "contactuq/study/sweep.hpp"

namespace contactuq::study {
namespace u = units;
namespace {


// Approach velocities: a list, or { from, to, points, spacing = "log" | "linear" }.
std::vector<double> read_velocities(const io::study_table& impact) {
  constexpr std::string_view key = "approach_velocity";
  if (impact.value_text(key).front() == '[') {
    auto v = impact.quantities(key, u::velocity);
    for (double x : v)
      if (!(x > 0)) impact.fail(key, "every approach velocity must be > 0");
    return v;
  }
  const io::study_table t = impact.table(key);
  t.allow_only({"from", "to", "points", "spacing"});
  const double from = t.quantity("from", u::velocity), to = t.quantity("to", u::velocity);
  const std::int64_t points = t.integer_or("points", 20);
  const bool log = t.choice("spacing", {"log", "linear"}, "log") == "log";
  if (!(from > 0)) t.fail("from", "must be > 0");
  if (!(to >= from)) t.fail("to", "must be >= 'from'");
  if (points < 1 || points > 100000) t.fail("points", "must be an integer in [1, 100000]");
  std::vector<double> v;
  for (std::int64_t i = 0; i < points; ++i) {
    const double s = points == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(points - 1);
    v.push_back(log ? from * std::pow(to / from, s) : from + (to - from) * s);
  }
  return v;
}

}  // namespace

impact_study_options read_impact_study(const io::study_document& doc, const std::string& data_dir) {
  const io::study_table root = doc.root();
  root.allow_only({"study", "method", "material_table", "impact", "laws", "output"});
  impact_study_options opt;
  if (auto study = root.optional_table("study")) {
    study->allow_only({"kind", "title"});
    study->choice("kind", {"impact"}, "impact");
    opt.title = study->string_or("title", "");
  }

  const std::string table_path = root.string_or("material_table", data_dir + "/materials.toml");
  const auto materials = contact::material_table::load(table_path);
  const io::study_table impact = root.table("impact");
  impact.allow_only({"approach_velocity", "relative_tolerance", "absolute_tolerance", "max_steps",
                     "integrator", "body_1", "body_2"});
  const model::impact_body b1 = model::read_impact_body(impact.table("body_1"), materials);
  const model::impact_body b2 = model::read_impact_body(impact.table("body_2"), materials);
  if (std::isinf(b1.radius) && std::isinf(b2.radius))
    impact.table("body_2").fail("radius", "two flats cannot impact; give one body a radius");
  if (std::isinf(b1.mass)) impact.table("body_1").fail("mass", "the moving body needs a finite mass");
  opt.pair.body_1 = b1.material;
  opt.pair.body_2 = b2.material;
  opt.pair.radius_1 = b1.radius;
  opt.pair.radius_2 = b2.radius;

  auto& s = opt.solver;
  s.mass_1 = b1.mass;
  s.mass_2 = b2.mass;
  s.relative_tolerance = impact.quantity_or("relative_tolerance", u::dimensionless, s.relative_tolerance);
  s.absolute_tolerance = impact.quantity_or("absolute_tolerance", u::dimensionless, s.absolute_tolerance);
  s.max_steps = impact.integer_or("max_steps", s.max_steps);
  s.integrator = impact.choice("integrator", {"dopri5", "cvode_adams"}, "dopri5") == "dopri5"
                     ? dynamics::impact_integrator::dopri5
                     : dynamics::impact_integrator::cvode_adams;
  opt.velocities = read_velocities(impact);
  s.approach_velocity = opt.velocities.front();
  try {
    s.validate();
  } catch (const parameter_error& e) {
    impact.fail(e);
  }

  contact::register_builtin_laws();
  const auto known = contact::registered_laws();
  for (const io::study_table& law : root.tables("laws")) {
    const std::string name = law.string("name");
    if (std::find(known.begin(), known.end(), name) == known.end())
      law.fail("name", fmt::format("unknown contact law; known laws: {}", fmt::join(known, ", ")));
    contact::law_inputs inputs;
    inputs.pair = opt.pair;
    std::map<std::string, model::law_value> parameters;
    // Law parameters: SI values by the law's field names; the law itself checks names and ranges.
    for (const auto& key : law.keys()) {
      if (key == "name" || key == "label") continue;
      if (law.value_text(key).front() == '"') {
        try {
          const auto q = u::parse_quantity(law.string(key));
          parameters[key] = {q.si, q.dim};
        } catch (const std::invalid_argument& e) {
          law.fail(key, e.what());
        }
      } else {
        parameters[key] = {law.quantity(key, u::dimensionless), u::dimensionless};
      }
      inputs.values[key] = parameters[key].si;
    }
    try {
      contact::make_law(name, inputs);
    } catch (const parameter_error& e) {
      law.fail(e);
    }
    const std::string label = law.string_or("label", name);
    if (std::find(opt.labels.begin(), opt.labels.end(), label) != opt.labels.end())
      law.fail("name", fmt::format("'{}' appears twice; give each entry a distinct label", label));
    opt.laws.push_back(name);
    opt.labels.push_back(label);
    opt.law_parameters.push_back(std::move(parameters));
  }
  if (auto output = root.optional_table("output")) output->allow_only({"file"});
  return opt;
}

model::model impact_law_model(const impact_study_options& options, std::size_t l) {
  model::impact_setup s;
  s.law = options.laws[l];
  s.body_1 = {options.pair.body_1, options.pair.radius_1, options.solver.mass_1};
  s.body_2 = {options.pair.body_2, options.pair.radius_2, options.solver.mass_2};
  s.law_parameters = options.law_parameters[l];
  s.solver = options.solver;
  s.curve_points = 0;  // the impact layout has no time histories
  return model::impact_model(std::move(s));
}

std::vector<impact_case> run_impact_study(const impact_study_options& options) {
  std::vector<impact_case> cases;
  for (std::size_t l = 0; l < options.laws.size(); ++l) {
    // `law` is the outer, swept choice (one model per [[laws]] entry, as each entry may give its
    // own parameters and label); the velocities are a sweep of that model's approach_velocity.
    const model::model m = impact_law_model(options, l);
    sweep_plan plan;
    for (const model::variable& v : m.inputs()) plan.base.push_back(v.nominal);
    plan.input = m.find_input("approach_velocity");
    plan.values = options.velocities;
    const auto names = m.output_names();
    const auto at = [&](const char* name) {
      return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    const std::size_t e = at("restitution"), f = at("peak_force"), t = at("contact_time"),
                      d = at("max_overlap"), res = at("residual_overlap"), w = at("energy_dissipated");
    // The model names the law in a failure's message; the impact layout names it by row.
    const std::string prefix = fmt::format("law {}: ", options.laws[l]);
    for (const sweep_point& p : run_sweep(m, plan, true)) {
      dynamics::impact_result r;
      r.law = options.laws[l];
      if (p.error.empty()) {
        const auto& y = p.result.outputs;
        r.restitution = y[e];
        r.peak_force = y[f];
        r.contact_duration = y[t];
        r.peak_overlap = y[d];
        r.residual_overlap = y[res];
        r.energy_dissipated = y[w];
      } else {
        r.status = dynamics::impact_status::model_error;
        r.message = p.error.starts_with(prefix) ? p.error.substr(prefix.size()) : p.error;
      }
      cases.push_back({options.labels[l], p.value, std::move(r)});
    }
  }
  return cases;
}

void write_impact_csv(const std::string& path, const std::vector<impact_case>& cases) {
  io::text_output out;
  out.print(
      "law,approach_velocity [m/s],status,restitution,peak_force [N],peak_overlap [m],"
      "contact_duration [s],residual_overlap [m],energy_dissipated [J],message\n");
  for (const auto& c : cases) {
    const auto& r = c.result;
    auto cell = [&](double v) { return r.ok() && !std::isnan(v) ? fmt::format("{}", v) : std::string(); };
    std::string message = r.message;
    std::replace(message.begin(), message.end(), '"', '\'');
    std::replace(message.begin(), message.end(), '\n', ' ');
    out.print("{},{},{},{},{},{},{},{},{},\"{}\"\n", c.law, c.velocity, r.ok() ? "ok" : "failed",
              cell(r.restitution), cell(r.peak_force), cell(r.peak_overlap), cell(r.contact_duration),
              cell(r.residual_overlap), cell(r.energy_dissipated), message);
  }
  out.write_to(path);
}

void write_impact_hdf5(const std::string& path, const io::study_document& doc, const impact_study_options& options,
                       const std::vector<impact_case>& cases) {
  namespace h5 = io::hdf5;
  const std::size_t laws = options.laws.size(), velocities = options.velocities.size();
  h5::file f(path, h5::file_mode::create);
  io::write_result_header(f, {.format = "contactuq-impact", .method = "impact", .model = "impact",
                              .title = options.title, .study_text = doc.text(), .study_path = doc.file()});
  f.set_attribute("laws", options.labels);
  f.write("approach_velocity", options.velocities).set_attribute("units", "m/s");
  // One laws x velocities matrix per output, case (l, v) at row l, column v; NaN where it failed.
  const auto matrix = [&](const char* name, const char* unit, auto value) {
    std::vector<double> m(laws * velocities);
    for (std::size_t i = 0; i < cases.size(); ++i)
      m[i] = cases[i].result.ok() ? value(cases[i].result) : std::numeric_limits<double>::quiet_NaN();
    f.write(name, m, laws, velocities).set_attribute("units", unit);
  };
  using R = dynamics::impact_result;
  matrix("restitution", "", [](const R& r) { return r.restitution; });
  matrix("peak_force", "N", [](const R& r) { return r.peak_force; });
  matrix("peak_overlap", "m", [](const R& r) { return r.peak_overlap; });
  matrix("contact_duration", "s", [](const R& r) { return r.contact_duration; });
  matrix("residual_overlap", "m", [](const R& r) { return r.residual_overlap; });
  matrix("energy_dissipated", "J", [](const R& r) { return r.energy_dissipated; });
  std::vector<double> status(cases.size());
  std::vector<std::string> messages(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    status[i] = cases[i].result.ok() ? 0 : 1;
    messages[i] = cases[i].result.message;
  }
  f.write("status", status, laws, velocities).set_attribute("codes", std::vector<std::string>{"ok", "failed"});
  f.write_texts("messages", messages);
  f.close();  // checked: a write that fails is an error, not a damaged file
}

}  // namespace contactuq::study
