// Inputs outside their model's valid range are refused when the study is read: fixed values,
// design bounds, epistemic choices, and distributions that put more than a negligible
// probability outside (with truncation as the remedy).
#include <catch2/catch.hpp>

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
