#include "contactuq/model/impact_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/material.hpp"
#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

// A 10 mm steel ball on a fixed steel flat at 1 m/s (studies/impact_uq.toml), with `law` and
// extra [model] text.
std::string study_text(const std::string& law, const std::string& extra = "") {
  return fmt::format(R"([model]
type = "impact"
law = "{}"
approach_velocity = "1 m/s"
{}
[model.body_1]
material = "steel_aisi_1045"
radius = "10 mm"
mass = "32.96 g"

[model.body_2]
material = "steel_aisi_1045"
radius = "flat"

[model.laws.hunt_crossley]
restitution = 0.8

[model.laws.kelvin_voigt]
stiffness = "10 kN/mm"
damping = "280 N*s/m"

[model.laws.cor]
restitution = 0.8
)",
                     law, extra);
}

model::model impact(const std::string& law, const std::string& extra = "") {
  model::register_builtin_models();
  return model::make_model(io::study_document::parse(study_text(law, extra), "impact.toml").root().table("model"));
}

std::vector<double> nominal(const model::model& m) {
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  return x;
}

double output(const model::model& m, const model::evaluation& e, const std::string& name) {
  const auto names = m.output_names();
  const auto it = std::find(names.begin(), names.end(), name);
  REQUIRE(it != names.end());
  return e.outputs[static_cast<std::size_t>(it - names.begin())];
}

std::string error_of(const std::string& text) {
  model::register_builtin_models();
  try {
    model::make_model(io::study_document::parse(text, "impact.toml").root().table("model"));
  } catch (const io::study_error& e) {
    return e.what();
  }
  return "no error";
}

// The same impact straight from the simulator: the steel pair and the law built by hand. The
// model's mass passes through a unit conversion ("32.96 g"), so the two agree to rounding unless
// a test sets the mass input to the simulator's double.
dynamics::impact_result direct(const std::string& law, double v0, const std::map<std::string, double>& values = {}) {
  const auto materials = contact::material_table::load(CONTACTUQ_SOURCE_DIR "/data/materials.toml");
  const auto steel = materials.at("steel_aisi_1045");
  contact::law_inputs in{contact::contact_pair{steel, steel, 0.010, contact::flat_radius}, values};
  dynamics::impact_options o;
  o.mass_1 = 0.03296;
  o.approach_velocity = v0;
  o.record_history = true;
  return dynamics::simulate_impact(contact::make_law(law, in), o);
}

}  // namespace

TEST_CASE("impact model: the registry builds it with the declared inputs, outputs and curves", "[model][impact]") {
  const auto m = impact("thornton");
  CHECK(m.name() == "impact");
  CHECK(m.thread_safe());
  CHECK(m.input_names() == std::vector<std::string>{"approach_velocity", "mass_1", "radius_1", "body_1_modulus",
                                                    "body_1_poisson", "body_1_yield_strength", "body_1_hardness",
                                                    "body_2_modulus", "body_2_poisson", "body_2_yield_strength",
                                                    "body_2_hardness"});
  CHECK(m.output_names() == std::vector<std::string>{"restitution", "peak_force", "contact_time", "max_overlap",
                                                     "residual_overlap", "energy_dissipated"});
  CHECK(m.output_units() == std::vector<std::string>{"", "N", "s", "m", "m", "J"});
  CHECK(m.curve_names() == std::vector<std::string>{"force", "overlap"});
  CHECK(m.curves()[0].abscissa.size() == 101);
  // A law's own parameters become inputs, by the law's field names and with their units.
  const auto kv = impact("kelvin_voigt");
  CHECK(kv.input_names().back() == "stiffness");
  CHECK(kv.input_units().back() == "N/m");
  CHECK(kv.inputs().back().nominal == Approx(1e7));
}

TEST_CASE("impact model: outputs equal the simulator's for every law family", "[model][impact]") {
  const std::string law = GENERATE("hertz", "thornton", "brake", "etsion", "hunt_crossley", "kelvin_voigt", "cor");
  std::map<std::string, double> values;
  if (law == "hunt_crossley" || law == "cor") values["restitution"] = 0.8;
  if (law == "kelvin_voigt") values = {{"stiffness", 1e7}, {"damping", 280.0}};
  for (double v0 : {0.1, 1.0, 3.0}) {
    CAPTURE(law, v0);
    const auto m = impact(law);
    auto x = nominal(m);
    x[0] = v0;
    const auto e = m.evaluate(x);
    const auto r = direct(law, v0, values);
    REQUIRE(r.ok());
    CHECK(output(m, e, "restitution") == Approx(r.restitution).epsilon(1e-8).margin(1e-15));
    if (law == "cor")
      CHECK(std::isnan(output(m, e, "peak_force")));
    else
      CHECK(output(m, e, "peak_force") == Approx(r.peak_force).epsilon(1e-8));
    CHECK(output(m, e, "contact_time") == Approx(r.contact_duration).epsilon(1e-8).margin(1e-15));
    CHECK(output(m, e, "max_overlap") == Approx(r.peak_overlap).epsilon(1e-8).margin(1e-15));
    CHECK(output(m, e, "residual_overlap") == Approx(r.residual_overlap).epsilon(1e-8).margin(1e-15));
    CHECK(output(m, e, "energy_dissipated") == Approx(r.energy_dissipated).epsilon(1e-8).margin(1e-15));
  }
}

TEST_CASE("impact model: the hardness input hands the law the table's double, bit for bit", "[model][impact]") {
  // The material holds its hardness in Pa, converted from HB once when the table is read, so the
  // brake law (the one that reads it) sees the same double through the model as built by hand.
  const auto m = impact("brake");
  auto x = nominal(m);
  const auto names = m.input_names();
  const auto at = [&](const char* name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  CHECK(x[at("body_1_hardness")] == contact::brinell_to_pascal(163));  // steel_aisi_1045: HB 163
  x[at("mass_1")] = 0.03296;
  const auto e = m.evaluate(x);
  const auto r = direct("brake", 1.0);
  REQUIRE(r.ok());
  CHECK(output(m, e, "restitution") == r.restitution);
  CHECK(output(m, e, "peak_force") == r.peak_force);
  CHECK(output(m, e, "max_overlap") == r.peak_overlap);
  CHECK(output(m, e, "energy_dissipated") == r.energy_dissipated);
}

TEST_CASE("impact model: an elastic law gives restitution 1 and force curves that start and end at 0", "[model][impact]") {
  const auto m = impact("hertz");
  for (double v0 : {0.01, 1.0, 10.0}) {
    CAPTURE(v0);
    auto x = nominal(m);
    x[0] = v0;
    const auto e = m.evaluate(x);
    CHECK(output(m, e, "restitution") == Approx(1.0).epsilon(1e-6));
    CHECK(output(m, e, "energy_dissipated") == Approx(0.0).margin(1e-6 * 0.5 * 0.03296 * v0 * v0));
    const auto& force = e.curves[0];
    const auto& overlap = e.curves[1];
    CHECK(force.front() == Approx(0.0).margin(1e-9 * output(m, e, "peak_force")));
    CHECK(force.back() == Approx(0.0).margin(1e-4 * output(m, e, "peak_force")));
    // The curve is interpolated in the history, so it never exceeds the located peaks.
    CHECK(*std::max_element(force.begin(), force.end()) <= output(m, e, "peak_force") * (1 + 1e-12));
    CHECK(*std::max_element(force.begin(), force.end()) == Approx(output(m, e, "peak_force")).epsilon(1e-3));
    CHECK(*std::max_element(overlap.begin(), overlap.end()) <= output(m, e, "max_overlap") * (1 + 1e-12));
  }
}

TEST_CASE("impact model: an impact map has no time history", "[model][impact]") {
  const auto m = impact("cor");
  const auto e = m.evaluate(nominal(m));
  CHECK(output(m, e, "restitution") == Approx(0.8));
  CHECK(std::all_of(e.curves[0].begin(), e.curves[0].end(), [](double v) { return std::isnan(v); }));
}

TEST_CASE("impact model: a body's material input changes the answer as the simulator's does", "[model][impact]") {
  const auto m = impact("thornton", "curve_points = 0");
  CHECK(m.curves().empty());
  auto x = nominal(m);
  const auto names = m.input_names();
  const auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), "body_1_yield_strength") - names.begin());
  x[at] = 400e6;
  const auto e = m.evaluate(x);
  const auto materials = contact::material_table::load(CONTACTUQ_SOURCE_DIR "/data/materials.toml");
  auto soft = materials.at("steel_aisi_1045");
  soft.yield_strength = 400e6;
  const auto steel = materials.at("steel_aisi_1045");
  dynamics::impact_options o;
  o.mass_1 = 0.03296;
  o.approach_velocity = 1.0;
  const auto r = dynamics::simulate_impact(
      contact::make_law("thornton", {contact::contact_pair{soft, steel, 0.010, contact::flat_radius}, {}}), o);
  CHECK(output(m, e, "restitution") == Approx(r.restitution).epsilon(1e-8).margin(1e-15));
  CHECK(e.curves.empty());
  // Lower yield strength: more plastic work, lower restitution than the nominal ball's.
  CHECK(output(m, e, "restitution") < output(m, m.evaluate(nominal(m)), "restitution"));
}

TEST_CASE("impact model: bad input names the file, line, key and what is allowed", "[model][impact]") {
  CHECK_THAT(error_of(study_text("newton")), Contains("impact.toml:3") && Contains("law") && Contains("thornton"));
  std::string text = study_text("thornton");
  text.replace(text.find("steel_aisi_1045"), 15, "unobtainium");
  CHECK_THAT(error_of(text), Contains("body_1.material") && Contains("steel_aisi_1045"));
  text = study_text("thornton");
  text.replace(text.find("radius = \"10 mm\""), 16, "radius = \"flat\"");
  CHECK_THAT(error_of(text), Contains("two flats"));
  text = study_text("thornton");
  text.replace(text.find("mass = \"32.96 g\""), 16, "mass = \"fixed\"");
  CHECK_THAT(error_of(text), Contains("body_1.mass") && Contains("finite mass"));
  CHECK_THAT(error_of(study_text("hunt_crossley").replace(study_text("hunt_crossley").find("restitution = 0.8"), 17,
                                                          "restitution = 1.8")),
             Contains("laws.hunt_crossley.restitution") && Contains("1.8"));
  CHECK_THAT(error_of(study_text("thornton", "approach_velocity2 = 1")), Contains("approach_velocity2"));
  CHECK_THAT(error_of(study_text("thornton") + "[model.laws.newton]\nx = 1\n"), Contains("laws.newton"));
  // A parameter the chosen law does not read is an error at its line.
  CHECK_THAT(error_of(study_text("thornton") + "[model.laws.thornton]\nrestitution = 0.8\n"),
             Contains("laws.thornton.restitution"));
  // Inputs out of range at evaluation: parameter_error naming the input.
  const auto m = impact("thornton");
  auto x = nominal(m);
  x[0] = -1.0;
  CHECK_THROWS_AS(m.evaluate(x), parameter_error);
  CHECK_THROWS_WITH(m.evaluate(x), Contains("approach_velocity"));
}
