#include "contactuq/study/pinslot_study.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::study {

namespace u = units;
using multibody::pinslot_params;

namespace {

const u::dimension inertia = u::mass * u::length * u::length;
const u::dimension acceleration = u::length / (u::duration * u::duration);
const u::dimension inverse_time = u::dimensionless / u::duration;

using setter = std::function<void(const io::study_table&, std::string_view, pinslot_setup&)>;

setter scalar(u::dimension dim, std::function<void(pinslot_setup&, double)> set) {
  return [dim, set](const io::study_table& t, std::string_view key, pinslot_setup& s) {
    set(s, t.quantity(key, dim));
  };
}
setter point(u::dimension dim, std::function<void(pinslot_setup&, const multibody::vec2&)> set) {
  return [dim, set](const io::study_table& t, std::string_view key, pinslot_setup& s) {
    const auto v = t.quantities(key, dim);
    if (v.size() != 2) t.fail(key, fmt::format("needs 2 values (x, y), got {}", v.size()));
    set(s, {v[0], v[1]});
  };
}

// Every key but type, joint and label: how to read it and where it goes.
const std::map<std::string, setter, std::less<>>& setters() {
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
      {"body_0_mass", scalar(u::mass, [](auto& s, double v) { s.params.body_0_mass = v; })},
      {"body_0_inertia", scalar(inertia, [](auto& s, double v) { s.params.body_0_inertia = v; })},
      {"body_1_mass", scalar(u::mass, [](auto& s, double v) { s.params.body_1_mass = v; })},
      {"body_1_inertia", scalar(inertia, [](auto& s, double v) { s.params.body_1_inertia = v; })},
      {"pin_radius", scalar(u::length, [](auto& s, double v) { s.params.pin_radius = v; })},
      {"clearance", scalar(u::length, [](auto& s, double v) { s.params.clearance = s.params.clearance_r = v; })},
      {"clearance_r", scalar(u::length, [](auto& s, double v) { s.params.clearance_r = v; })},
      {"slot_length", scalar(u::length, [](auto& s, double v) { s.params.slot_length = v; })},
      {"slot_p", point(u::length, [](auto& s, const multibody::vec2& v) { s.params.slot_p = v; })},
      {"restitution", scalar(u::dimensionless, [](auto& s, double v) { s.params.contact.restitution = v; })},
      {"exponent", scalar(u::dimensionless, [](auto& s, double v) { s.params.contact.exponent = v; })},
      {"friction", scalar(u::dimensionless, [](auto& s, double v) { s.params.contact.friction_coefficient = v; })},
      {"transition_velocity", scalar(u::velocity, [](auto& s, double v) { s.params.contact.transition_velocity = v; })},
      {"modulus", scalar(u::pressure, [](auto& s, double v) { s.params.contact.modulus_i = s.params.contact.modulus_j = v; })},
      {"poisson", scalar(u::dimensionless, [](auto& s, double v) { s.params.contact.poisson_i = s.params.contact.poisson_j = v; })},
      {"contact_length", scalar(u::length, [](auto& s, double v) { s.params.contact.length = v; })},
      {"kelvin_voigt_stiffness", scalar(u::stiffness, [](auto& s, double v) { s.params.contact.kelvin_voigt_stiffness = v; })},
      {"velocity_regularization", scalar(u::velocity, [](auto& s, double v) { s.params.contact.velocity_regularization = v; })},
      {"minimum_impact_velocity", scalar(u::velocity, [](auto& s, double v) { s.params.contact.minimum_impact_velocity = v; })},
      {"force_amplitude", scalar(u::force, [](auto& s, double v) { s.params.force_amplitude = v; })},
      {"force_duration", scalar(u::duration, [](auto& s, double v) { s.params.force_duration = v; })},
      {"force_point", point(u::length, [](auto& s, const multibody::vec2& v) { s.params.force_point = v; })},
      {"spring_stiffness", scalar(u::stiffness, [](auto& s, double v) { s.params.spring_stiffness = v; })},
      {"spring_preload", scalar(u::force, [](auto& s, double v) { s.params.spring_preload = v; })},
      {"spring_damping", scalar(u::damping, [](auto& s, double v) { s.params.spring_damping = v; })},
      {"spring_length", scalar(u::length, [](auto& s, double v) { s.params.spring_length = v; })},
      {"spring_point", point(u::length, [](auto& s, const multibody::vec2& v) { s.params.spring_point = v; })},
      {"gravity", point(acceleration, [](auto& s, const multibody::vec2& v) { s.params.gravity = v; })},
      {"end_time", scalar(u::duration, [](auto& s, double v) { s.simulation.end_time = v; })},
      {"max_step", scalar(u::duration, [](auto& s, double v) { s.simulation.max_step = v; })},
      {"contact_step", scalar(u::duration, [](auto& s, double v) { s.simulation.contact_step = v; })},
      {"penetration_tolerance", scalar(u::length, [](auto& s, double v) { s.simulation.penetration_tolerance = v; })},
      {"relative_tolerance", scalar(u::dimensionless, [](auto& s, double v) { s.simulation.relative_tolerance = v; })},
      {"absolute_tolerance", scalar(u::dimensionless, [](auto& s, double v) { s.simulation.absolute_tolerance = v; })},
      {"baumgarte_alpha", scalar(inverse_time, [](auto& s, double v) { s.simulation.baumgarte_alpha = v; })},
      {"baumgarte_beta", scalar(inverse_time, [](auto& s, double v) { s.simulation.baumgarte_beta = v; })},
      {"sample_interval", scalar(u::duration, [](auto& s, double v) { s.simulation.sample_interval = v; })},
      {"window", [](const io::study_table& t, std::string_view k, pinslot_setup& s) {
         const auto w = t.integer(k);
         if (w < 1 || w % 2 == 0) t.fail(k, "must be an odd number of samples >= 1");
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

pinslot_study read_pinslot_study(const io::study_document& doc) {
  const auto root = doc.root();
  root.allow_only({"title", "model", "cases", "output"});
  pinslot_study st;
  st.title = root.string_or("title", "");
  const auto model = root.table("model");
  if (model.string("type") != "pinslot") model.fail("type", "must be \"pinslot\" for a pinslot study");
  if (root.has("cases")) {
    for (const auto& c : root.tables("cases")) {
      const std::string label = c.string("label");
      // The label names the case's HDF5 group: checked here, not when the results are written.
      if (label.empty() || label == "." || label.find('/') != std::string::npos ||
          label.find('\0') != std::string::npos)
        c.fail("label", "must be a non-empty name without '/' (it names the case's group in the output file)");
      for (const auto& other : st.cases)
        if (other.label == label) c.fail("label", "used by an earlier case");
      st.cases.push_back({label, read_pinslot_setup(model, &c)});
    }
  } else {
    st.cases.push_back({"model", read_pinslot_setup(model)});
  }
  if (auto out = root.optional_table("output")) {
    out->allow_only({"file"});
    st.output = out->string_or("file", "");
  }
  return st;
}

std::vector<pinslot_case_result> run_pinslot_study(const pinslot_study& study) {
  std::vector<pinslot_case_result> results(study.cases.size());
  tbb::parallel_for(std::size_t{0}, study.cases.size(), [&](std::size_t i) {
    const auto& c = study.cases[i];
    const auto start = std::chrono::steady_clock::now();
    results[i].label = c.label;
    results[i].setup = c.setup;
    results[i].result = multibody::simulate_pinslot(c.setup.params, c.setup.simulation, c.setup.window);
    results[i].wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  return results;
}

void write_pinslot_h5(const std::string& path, const std::string& study_text, const std::string& title,
                      const std::vector<pinslot_case_result>& results) {
  namespace h5 = io::hdf5;
  h5::file f(path, h5::file_mode::create);
  f.set_attribute("format", "contactuq-pinslot");
  f.set_attribute("format_version", std::int32_t{1});
  f.set_attribute("title", title);
  f.write_text("study", study_text);
  auto cases = f.create_group("cases");
  std::vector<std::string> labels;
  for (const auto& r : results) labels.push_back(r.label);
  cases.set_attribute("labels", labels);
  for (const auto& r : results) {
    auto g = cases.create_group(r.label);
    const auto& s = r.result.simulation;
    const auto& p = r.setup.params;
    g.set_attribute("joint", multibody::joint_type_name(p.joint));
    g.set_attribute("law", p.contact.law);
    g.set_attribute("status", s.ok() ? "ok" : "failed");
    g.set_attribute("message", s.message);
    g.set_attribute("window", static_cast<std::int64_t>(r.setup.window));
    g.set_attribute("wall_time", r.wall_time);
    const std::size_t n = s.samples(), nb = 6;
    auto column = [&](const std::vector<double>& v, std::size_t stride, std::size_t k) {
      std::vector<double> c(n);
      for (std::size_t i = 0; i < n; ++i) c[i] = v[i * stride + k];
      return c;
    };
    auto units = [](h5::dataset d, const char* unit) { d.set_attribute("units", unit); };
    units(g.write("time", s.time), "s");
    units(g.write("fx", r.result.fx), "N");
    units(g.write("fy", r.result.fy), "N");
    units(g.write("fx_filtered", r.result.fx_filtered), "N");
    units(g.write("fy_filtered", r.result.fy_filtered), "N");
    units(g.write("x0", column(s.positions, nb, 0)), "m");
    units(g.write("y0", column(s.positions, nb, 1)), "m");
    units(g.write("theta0", column(s.positions, nb, 2)), "rad");
    units(g.write("constraint_violation", s.constraint_violation), "m");
    if (!s.overlap.empty()) {
      units(g.write("overlap", s.overlap), "m");
      std::vector<double> feature(s.feature.begin(), s.feature.end());
      units(g.write("feature", feature), "");
      std::vector<double> in_contact(s.in_contact.begin(), s.in_contact.end());
      units(g.write("in_contact", in_contact), "");
    }
    std::vector<double> impacts;
    for (const auto& e : s.impacts)
      impacts.insert(impacts.end(), {e.time, static_cast<double>(e.feature), e.overlap, e.approach_velocity});
    auto d = g.write("impacts", impacts, s.impacts.size(), 4);
    d.set_attribute("columns", std::vector<std::string>{"time [s]", "feature", "overlap [m]", "approach_velocity [m/s]"});
    auto summary = g.create_group("summary");
    auto put = [&](const char* name, double v, const char* unit) {
      auto ds = summary.write(name, std::vector<double>{v});
      ds.set_attribute("units", unit);
    };
    put("peak_force", r.result.peak_force, "N");
    put("peak_force_filtered", r.result.peak_force_filtered, "N");
    put("peak_fx", r.result.peak_fx, "N");
    put("peak_fy", r.result.peak_fy, "N");
    put("impulse", r.result.impulse, "N*s");
    put("impulse_x", r.result.impulse_x, "N*s");
    put("impulse_y", r.result.impulse_y, "N*s");
    put("impacts", static_cast<double>(r.result.impacts), "");
    put("max_overlap", r.result.max_overlap, "m");
    put("max_onset_overlap", r.result.max_onset_overlap, "m");
    put("steps", static_cast<double>(s.steps), "");
  }
  f.close();
}

}  // namespace contactuq::study
