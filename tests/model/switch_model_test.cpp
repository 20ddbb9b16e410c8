#include "contactuq/model/switch_model.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/thornton.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// studies/switch_nominal.toml with pieces of text replaced.
io::study_document nominal_study(
    const std::vector<std::pair<std::string, std::string>>& edits = {}) {
  std::string text = read_text(CONTACTUQ_SOURCE_DIR "/studies/switch_nominal.toml");
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return io::study_document::parse(text, "switch_nominal.toml");
}

model::model switch_with(const std::vector<std::pair<std::string, std::string>>& edits = {}) {
  model::register_builtin_models();
  return model::make_model(nominal_study(edits).root().table("model"));
}

// The study with another contact law; cor needs its handbook restitution.
model::model switch_law(const std::string& law) {
  std::string line = fmt::format("law = \"{}\"", law);
  if (law == "cor") line += "\nrestitution = 0.8";
  return switch_with({{"law = \"thornton\"", line}});
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

const std::vector<std::string> common_inputs = {"m1",
                                                "m2",
                                                "m3",
                                                "k_d",
                                                "F0",
                                                "k12",
                                                "c12",
                                                "k3",
                                                "c3",
                                                "g0",
                                                "Rr",
                                                "Rp",
                                                "phi",
                                                "Rt",
                                                "h",
                                                "R",
                                                "L",
                                                "b",
                                                "K",
                                                "mu",
                                                "theta0",
                                                "d0",
                                                "v_t",
                                                "radius",
                                                "sphere_modulus",
                                                "sphere_poisson",
                                                "sphere_yield_strength",
                                                "sphere_hardness",
                                                "flat_modulus",
                                                "flat_poisson",
                                                "flat_yield_strength",
                                                "flat_hardness"};

std::string study_error_text(const std::vector<std::pair<std::string, std::string>>& edits) {
  try {
    switch_with(edits);
  } catch (const io::study_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("switch model: inputs and outputs from the nominal study", "[switch_model]") {
  const model::model m = switch_with();
  CHECK(m.name() == "switch");
  CHECK(m.thread_safe());
  CHECK(m.input_names() == common_inputs);
  const auto x = nominal(m);
  CHECK(x[m.find_input("m1")] == Approx(4e-3));
  CHECK(x[m.find_input("k_d")] == Approx(100));  // 0.1 N/mm
  CHECK(x[m.find_input("c12")] == Approx(0.35));
  CHECK(x[m.find_input("g0")] == Approx(4e-3));
  CHECK(x[m.find_input("K")] ==
        Approx(0.0116 * 4.4482216152605 * 0.0254 / (std::numbers::pi / 180)));
  CHECK(x[m.find_input("d0")] == Approx(0.369 * 0.0254));
  CHECK(x[m.find_input("v_t")] == Approx(0.01));
  CHECK(x[m.find_input("sphere_modulus")] == Approx(205e9));
  CHECK(x[m.find_input("flat_yield_strength")] == Approx(530e6));
  CHECK(x[m.find_input("sphere_hardness")] == Approx(163 * 9.80665e6));  // HB 163
  CHECK(m.input_units()[m.find_input("k_d")] == "N/m");
  CHECK(m.output_names() == std::vector<std::string>{"closed", "closure_time", "closure_margin",
                                                     "chatter", "impact_velocity", "impacts",
                                                     "first_restitution", "rebound_amplitude",
                                                     "settling_time", "energy_dissipated",
                                                     "peak_contact_force", "residual_indentation"});
  CHECK(m.output_units()[1] == "s");
  CHECK(m.curve_names() == std::vector<std::string>{"slider", "carrier", "stop", "contact_force"});
  REQUIRE(m.curves()[0].abscissa.size() == 201);
  CHECK(m.curves()[0].abscissa.back() == Approx(0.04));
  CHECK(switch_law("kelvin_voigt").input_names().back() == "contact_damping");
  CHECK(switch_law("cor").input_names().back() == "restitution");
  CHECK(switch_law("cor_thornton").input_names().size() == common_inputs.size() + 1);
}

TEST_CASE("switch model: the six laws of Brake's comparison run on the nominal design",
          "[switch_model]") {
  const std::string law =
      GENERATE("cor", "cor_thornton", "kelvin_voigt", "brake", "etsion", "thornton");
  INFO(law);
  const model::model m = switch_law(law);
  const auto e = m.evaluate(nominal(m));
  REQUIRE(e.outputs.size() == 12);
  REQUIRE(e.curves.size() == 4);
  CHECK(output(m, e, "closed") == 1);
  CHECK(output(m, e, "chatter") == 0);
  CHECK(output(m, e, "closure_margin") > 0.5e-3);
  CHECK(output(m, e, "impacts") >= 1);
  CHECK(output(m, e, "energy_dissipated") > 0);
  CHECK(std::isfinite(output(m, e, "settling_time")));
  const bool map = law.starts_with("cor");
  CHECK(std::isnan(output(m, e, "peak_contact_force")) == map);
  CHECK(std::isnan(output(m, e, "residual_indentation")) == map);
  if (!map) CHECK(e.curves[3] == m.evaluate(nominal(m)).curves[3]);  // bit-identical repeat
}

TEST_CASE("switch model: cor_thornton takes Thornton's restitution at the nominal impact velocity",
          "[switch_model]") {
  // The approach before the first touch does not depend on the law, so every model reports the
  // same impact velocity; cor_thornton's e is Thornton's closed form (Thornton 1997, see
  // contact/thornton.hpp) for m1 on m3 at that speed.
  contact::register_builtin_laws();
  const auto doc = nominal_study({{"law = \"thornton\"", "law = \"cor_thornton\""}});
  const model::switch_model concrete = model::switch_model::from_study(doc.root().table("model"));
  const double e = concrete.setup().law_parameters.at("restitution");
  const model::model map(concrete);
  const model::model kv = switch_law("kelvin_voigt");
  const double v = output(kv, kv.evaluate(nominal(kv)), "impact_velocity");
  CHECK(concrete.nominal_impact_velocity() == Approx(v).epsilon(1e-9));
  const auto x = nominal(map);
  CHECK(x.back() == e);
  const auto out = map.evaluate(x);
  CHECK(output(map, out, "impact_velocity") == Approx(v).epsilon(1e-9));
  CHECK(output(map, out, "first_restitution") == e);
  const contact::thornton_params tp{contact::effective_modulus(205e9, 0.29, 205e9, 0.29), 1e-3,
                                    530e6};
  const double mass = 4e-3 * 8e-3 / (4e-3 + 8e-3);
  CHECK(e == Approx(contact::thornton_restitution(contact::thornton_yield_velocity(tp, mass), v))
                 .epsilon(2e-3));
  // Close to the thornton model's own first impact in the mechanism (the mount damper, 10 N*s/m
  // at the stop's 0.5 m/s, takes a few percent of the rebound during the contact).
  const model::model th = switch_law("thornton");
  CHECK(output(th, th.evaluate(nominal(th)), "first_restitution") == Approx(e).epsilon(0.05));
}

TEST_CASE("switch model: a too weak drive is an output, not a failure", "[switch_model]") {
  const model::model m = switch_with();
  auto x = nominal(m);
  x[m.find_input("F0")] = 0.1;  // below the receptacle's 0.14 N peak insertion force
  const auto e = m.evaluate(x);
  CHECK(output(m, e, "closed") == 0);
  CHECK(std::isnan(output(m, e, "closure_time")));
  CHECK(std::isnan(output(m, e, "impact_velocity")));
  CHECK(output(m, e, "impacts") == 0);
  x[m.find_input("g0")] = 3e-3;  // with too little over-travel it chatters
  x[m.find_input("F0")] = 1.0;
  const auto c = m.evaluate(x);
  CHECK(output(m, c, "chatter") == 1);
  CHECK(output(m, c, "closure_margin") < 0);
  x[m.find_input("m1")] = -1;
  CHECK_THROWS_AS(m.evaluate(x), parameter_error);
  x[m.find_input("m1")] = 4e-3;
  x[m.find_input("flat_poisson")] = 0.5;
  CHECK_THROWS_WITH(m.evaluate(x), Contains("flat_poisson"));
}

TEST_CASE("switch model: study errors name the file, line and key", "[switch_model]") {
  CHECK_THAT(study_error_text({{"law = \"thornton\"", "law = \"bogus\""}}),
             Contains("switch_nominal.toml:") && Contains("model.law") && Contains("thornton") &&
                 Contains("cor_<law>"));
  CHECK_THAT(study_error_text({{"law = \"thornton\"", "law = \"thornton\"\nrestitution = 0.8"}}),
             Contains("model.restitution") && Contains("not a parameter of law \"thornton\""));
  CHECK_THAT(study_error_text({{"law = \"thornton\"", "law = \"cor\""}}),
             Contains("needs restitution"));
  CHECK_THAT(
      study_error_text({{"law = \"thornton\"", "law = \"cor_thornton\"\nrestitution = 0.5"}}),
      Contains("its restitution is computed"));
  CHECK_THAT(study_error_text({{"law = \"thornton\"", "law = \"johnson_cylinder\""}}),
             Contains("line contact"));
  CHECK_THAT(study_error_text({{"m1 = \"4 g\"", "m1 = \"4 mm\""}}), Contains("model.m1"));
  CHECK_THAT(study_error_text({{"g0 = \"4 mm\"", "g0 = \"-4 mm\""}}),
             Contains("model.g0") && Contains("positive"));
  CHECK_THAT(study_error_text({{"k3 = \"50 N/mm\"", "k3 = \"50 N/mm\"\nk4 = 1"}}), Contains("k4"));
  CHECK_THAT(study_error_text({{"mu = 0.21", "mu = -0.21"}}), Contains("model.receptacle.mu"));
  CHECK_THAT(study_error_text({{"arms = 2", "arms = 2\ncount = 2"}}),
             Contains("model.receptacle.count"));
  CHECK_THAT(study_error_text(
                 {{"flat_material = \"steel_aisi_1045\"", "flat_material = \"unobtainium\""}}),
             Contains("model.flat_material") && Contains("steel_aisi_4140"));
  CHECK_THAT(study_error_text({{"t_end = \"40 ms\"", "t_end = \"0 ms\""}}),
             Contains("model.t_end"));
  CHECK_THAT(study_error_text({{"radius = \"1 mm\"", "radius = \"1 mm\"\nsphere_poisson = 0.6"}}),
             Contains("model.sphere_poisson") && Contains("[0, 0.5)"));
  CHECK_THAT(study_error_text({{"curve_points = 201", "curve_points = 1"}}),
             Contains("model.curve_points"));
}

TEST_CASE("switch model: without curves the outputs are the same", "[switch_model]") {
  const model::model with = switch_with();
  const model::model without = switch_with({{"curve_points = 201", "curve_points = 0"}});
  CHECK(without.curves().empty());
  const auto a = with.evaluate(nominal(with));
  const auto b = without.evaluate(nominal(without));
  CHECK(b.curves.empty());
  for (std::size_t j = 0; j < a.outputs.size(); ++j) {
    INFO(with.output_names()[j]);
    CHECK(b.outputs[j] == Approx(a.outputs[j]).epsilon(1e-12));
  }
}
