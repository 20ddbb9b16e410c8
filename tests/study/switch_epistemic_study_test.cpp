// studies/switch_epistemic.toml read and run small: six contact laws as epistemic cases of one
// [model] table, law parameters from [model.laws.<law>], the same parts under every law.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using namespace contactuq::study;

TEST_CASE("the switch epistemic study runs every law on the same parts", "[ensemble_study][epistemic][switch]") {
  model::register_builtin_models();
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/switch_epistemic.toml");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("samples = 1000", "samples = 3");
  replace("sobol = true", "sobol = false");
  replace("curve_points = 201", "curve_points = 0");
  const ensemble_study s = read_ensemble_study(io::study_document::parse(text, "switch_epistemic.toml"));
  REQUIRE(s.cases.size() == 6);
  CHECK(s.cases[0].label == "law=cor");
  // The handbook map has an input of its own (restitution), taken from [model.laws.cor].
  CHECK_FALSE(s.cases[0].input_columns.empty());
  CHECK(s.cases[5].input_columns.empty());  // thornton: the [model] table's own law

  const io::sample_matrix x = sample_inputs(s);
  memory_sink sink;
  run_ensemble(s, x, sink, {});
  const auto& out = sink.samples();
  REQUIRE(out.outputs.rows() == 18);
  CHECK(std::count(out.status.begin(), out.status.end(), 0) == 18);
  const auto column = [&](const std::string& name) {
    const auto names = s.model.output_names();
    return static_cast<Eigen::Index>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  for (Eigen::Index i = 0; i < 3; ++i) {
    CHECK(out.outputs(i, column("first_restitution")) == Approx(0.8));  // the map reproduces its e
    // Closure happens before the stop is reached: the same for every law on the same parts.
    for (Eigen::Index c = 1; c < 6; ++c)
      CHECK(out.outputs(3 * c + i, column("closure_time")) == Approx(out.outputs(i, column("closure_time"))));
  }
}
