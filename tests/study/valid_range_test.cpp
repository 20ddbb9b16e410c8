// Inputs outside their model's valid range are refused when the study is read: fixed values,
// design bounds, epistemic choices, and distributions that put more than a negligible
// probability outside (with truncation as the remedy).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

std::string shipped(const std::string& study) {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/" + study);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quickstart() { return shipped("quickstart.toml"); }

// A shipped study with its first `from` replaced by `to`.
std::string edited(const std::string& study, const std::string& from, const std::string& to) {
  std::string text = shipped(study);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The model of a study's [model] table, as the registry builds it.
model::model model_of(const std::string& text) {
  model::register_builtin_models();
  return model::make_model(io::study_document::parse(text, "m.toml").root().table("model"));
}

// The quickstart study with its [parameters.K] table replaced.
study::ensemble_study read_with_K(const std::string& table) {
  model::register_builtin_models();
  std::string text = quickstart();
  const auto start = text.find("[parameters.K]");
  const auto end = text.find("[parameters.g1_d0]");
  text.replace(start, end - start, "[parameters.K]\n" + table + "\n\n");
  text.replace(text.find("[[sampling.correlation]]"), std::string::npos, "");
  return study::read_ensemble_study(io::study_document::parse(text, "k.toml"));
}

}  // namespace

TEST_CASE("inputs outside their valid range are refused when the study is read", "[study][valid]") {
  CHECK_NOTHROW(read_with_K("role = \"aleatoric\"\ndistribution = \"normal\"\nmean = \"0.004 lbf*in/deg\"\n"
                            "sd = \"0.0002 lbf*in/deg\""));  // P(K <= 0) = Phi(-20): negligible
  CHECK_THROWS_WITH(read_with_K("role = \"fixed\"\nvalue = \"-0.004 lbf*in/deg\""),
                    Contains("k.toml:") && Contains("parameters.K.value") && Contains("outside the valid range of K") &&
                        Contains("in (0, 1e+09] N*m/rad"));
  CHECK_THROWS_WITH(read_with_K("role = \"aleatoric\"\ndistribution = \"normal\"\nmean = \"0.004 lbf*in/deg\"\n"
                                "sd = \"0.002 lbf*in/deg\""),
                    Contains("parameters.K.distribution") && Contains("probability 0.0228") &&
                        Contains("truncated_normal"));
  CHECK_NOTHROW(read_with_K("role = \"aleatoric\"\ndistribution = \"truncated_normal\"\nmean = \"0.004 lbf*in/deg\"\n"
                            "sd = \"0.002 lbf*in/deg\"\nlow = \"0.001 lbf*in/deg\"\nhigh = \"0.008 lbf*in/deg\""));
  // A uniform from 0 puts probability 0 on K <= 0.
  CHECK_NOTHROW(read_with_K("role = \"aleatoric\"\ndistribution = \"uniform\"\nlow = \"0 lbf*in/deg\"\n"
                            "high = \"0.008 lbf*in/deg\""));
  CHECK_THROWS_WITH(read_with_K("role = \"aleatoric\"\ndistribution = \"discrete\"\nvalues = [\"0.004 lbf*in/deg\", "
                                "\"-0.001 lbf*in/deg\"]"),
                    Contains("parameters.K.values") && Contains("outside the valid range"));
  CHECK_THROWS_WITH(read_with_K("role = \"epistemic\"\nchoices = [\"0.004 lbf*in/deg\", \"0 lbf*in/deg\"]"),
                    Contains("parameters.K.choices") && Contains("outside the valid range"));
}

TEST_CASE("threaded insertion: inputs have valid ranges, distributions that leave them are refused", "[study][valid]") {
  model::register_builtin_models();
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/threaded_insertion_success.toml");
  std::ostringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  const auto shipped = study::read_ensemble_study(io::study_document::parse(text, "t.toml"));
  std::size_t bounded = 0;
  for (const auto& v : shipped.model.inputs()) {
    INFO(v.name);
    CHECK((std::isnan(v.nominal) || v.valid.contains(v.nominal)));
    bounded += v.valid.bounded();
  }
  CHECK(bounded == shipped.model.inputs().size());  // azimuths, phase, z_c and k_z_theta_z too

  // A tilt scatter whose normal tails leave [0, 0.5] rad, and a negative lateral offset.
  auto with = [&](const std::string& table, const std::string& replacement) {
    std::string t = text;
    const auto start = t.find(table);
    t.replace(start, t.find("\n\n", start) - start, replacement);
    return io::study_document::parse(t, "t.toml");
  };
  CHECK_THROWS_WITH(study::read_ensemble_study(with("[parameters.tilt]", "[parameters.tilt]\nrole = \"aleatoric\"\n"
                                                                         "distribution = \"normal\"\nmean = \"1 deg\"\n"
                                                                         "sd = \"1 deg\"")),
                    Contains("t.toml:") && Contains("tilt") && Contains("outside the valid range"));
  CHECK_THROWS_WITH(study::read_ensemble_study(with("[parameters.lateral_offset]",
                                                    "[parameters.lateral_offset]\nrole = \"fixed\"\n"
                                                    "value = \"-0.1 mm\"")),
                    Contains("lateral_offset") && Contains("outside the valid range"));
  CHECK_THROWS_WITH(study::read_ensemble_study(with("[parameters.mu]", "[parameters.mu]\nrole = \"fixed\"\nvalue = 3")),
                    Contains("mu") && Contains("outside the valid range"));
}

// Every built-in model, set up by a shipped study (with a law that has parameters of its own
// where the model takes them): each input declares a bounded range that holds its nominal value.
TEST_CASE("every input of every built-in model declares a bounded valid range", "[study][valid]") {
  struct setup {
    const char* model;
    const char* study;
    std::string from = "", to = "";
  };
  const std::vector<setup> setups = {
      {"receptacle_pin", "quickstart.toml"},
      {"impact", "impact_uq.toml"},
      {"impact", "impact_uq.toml", "law = \"thornton\"", "law = \"hunt_crossley\""},  // restitution
      {"switch", "switch_evaluate.toml"},
      {"switch", "switch_evaluate.toml", "law = \"thornton\"", "law = \"kelvin_voigt\""},  // stiffness, damping
      {"switch", "switch_epistemic.toml", "law = \"thornton\"", "law = \"cor\""},  // restitution
      {"pinslot", "pinslot_uq.toml"},
      {"threaded_insertion", "threaded_insertion_success.toml"},
  };
  model::register_builtin_models();
  for (const char* name : {"receptacle_pin", "impact", "switch", "pinslot", "threaded_insertion"}) {
    INFO(name);
    CHECK(model::is_registered(name));
    CHECK(std::any_of(setups.begin(), setups.end(), [&](const setup& s) { return std::string(s.model) == name; }));
  }
  for (const auto& s : setups) {
    INFO(s.study << " " << s.to);
    const auto m = model_of(s.from.empty() ? shipped(s.study) : edited(s.study, s.from, s.to));
    CHECK(m.name() == s.model);
    if (!s.to.empty()) CHECK(m.inputs().size() > model_of(shipped(s.study)).inputs().size());
    for (const auto& v : m.inputs()) {
      INFO(v.name << " in " << v.valid.text(v.dim));
      // Both ends finite: a generous upper bound (model::physical_limit) where physics has none.
      CHECK(std::isfinite(v.valid.low));
      CHECK(std::isfinite(v.valid.high));
      CHECK(v.valid.low < v.valid.high);
      CHECK((std::isnan(v.nominal) || v.valid.contains(v.nominal)));
    }
  }
}

// The values of a fuzz of mutated studies that each ran for over 10 s: refused at their key,
// with file, line and what is allowed.
TEST_CASE("pin-slot: absurd [model] values are refused at their key", "[study][valid]") {
  struct absurd {
    const char* line;  // as pinslot_uq.toml has it
    const char* value;
    const char* allowed;
  };
  for (const auto& a : {absurd{"penetration_tolerance = \"1 um\"", "penetration_tolerance = \"1 km\"", "in (0, 0.001]"},
                        absurd{"pin_radius = \"2.45 mm\"", "pin_radius = \"2450 km\"", "in (0, 1]"},
                        absurd{"friction = 0.51", "friction = 2147483648", "in [0, 10]"},
                        absurd{"transition_velocity = \"1 mm/s\"", "transition_velocity = \"1e-30 mm/s\"",
                               "in [1e-06, 1000]"}}) {
    const std::string key = std::string(a.value).substr(0, std::string(a.value).find(' '));
    INFO(a.value);
    CHECK_THROWS_WITH(model_of(edited("pinslot_uq.toml", a.line, a.value)),
                      Contains("m.toml:") && Contains("model." + key) &&
                          Contains("outside the valid range of " + key) && Contains(a.allowed));
  }
  // The same friction as an input, fixed in [parameters].
  CHECK_THROWS_WITH(study::read_ensemble_study(io::study_document::parse(
                        edited("pinslot_uq.toml", "role = \"aleatoric\"\ndistribution = \"uniform\"\nlow = 0.4\nhigh = 0.6",
                               "role = \"fixed\"\nvalue = 2147483648"),
                        "p.toml")),
                    Contains("p.toml:") && Contains("parameters.friction.value") &&
                        Contains("outside the valid range of friction") && Contains("in [0, 10]"));
}

TEST_CASE("values a [model] table gives the inputs are checked against their valid range", "[study][valid]") {
  // A friction coefficient of 1000 for the receptacle and a grasp of 1e15 N/m for the threaded
  // insertion, each at its key.
  CHECK_THROWS_WITH(model_of(edited("quickstart.toml", "mu = 0.020", "mu = 1000")),
                    Contains("m.toml:18") && Contains("model.mu") && Contains("outside the valid range of mu") &&
                        Contains("in [0, 10]"));
  CHECK_THROWS_WITH(model_of(edited("threaded_insertion_success.toml", "k_t = \"2 N/mm\"", "k_t = \"1e15 N/m\"")),
                    Contains("model.k_t") && Contains("outside the valid range of k_t") && Contains("in [0, 1e+12]"));
}
