// Inputs outside their model's valid range are refused when the study is read: fixed values,
// design bounds, epistemic choices, and distributions that put more than a negligible
// probability outside (with truncation as the remedy).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

std::string quickstart() {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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
                        Contains("> 0 N*m/rad"));
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
  CHECK(bounded >= 20);  // all but the angles of direction, z_c and the coupling k_z_theta_z

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
