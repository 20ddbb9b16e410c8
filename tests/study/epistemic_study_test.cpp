// Nested (epistemic x aleatoric) ensemble studies: cases, common random numbers, models rebuilt
// per choice of a [model] key, and design parameters.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using namespace contactuq::study;
using Catch::Matchers::Contains;

namespace {

// y = x + offset * s with offset 0 for law "a" and 10 for law "b": the law is a [model] key.
struct offset_model {
  double offset = 0.0;
  std::vector<model::variable> inputs() const {
    return {{"x", units::length, 0.0}, {"s", units::dimensionless, 1.0}, {"w", units::dimensionless, 0.5}};
  }
  std::vector<model::variable> outputs() const { return {{"y", units::length}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const { return {{x[0] + offset * x[1] + x[2]}, {}}; }
};

void register_offset_model() {
  model::register_builtin_models();
  if (model::is_registered("offset_test")) return;
  model::register_model("offset_test", [](const io::study_table& t) {
    t.allow_only({"type", "law"});
    return model::model(offset_model{t.choice("law", {"a", "b"}, "a") == "b" ? 10.0 : 0.0});
  });
}

ensemble_study read(const std::string& text) {
  register_offset_model();
  return read_ensemble_study(io::study_document::parse(text, "nested.toml"));
}

const std::string base = R"(
[model]
type = "offset_test"
law = "a"

[parameters.x]
role = "aleatoric"
distribution = "uniform"
low = "0 mm"
high = "1 mm"

[sampling]
samples = 40
seed = 7
)";

}  // namespace

TEST_CASE("epistemic parameters make every combination of cases on the same aleatoric samples",
          "[ensemble_study][epistemic]") {
  const ensemble_study s = read(base + R"(
[parameters.law]
role = "epistemic"
choices = ["a", "b"]

[parameters.s]
role = "epistemic"
low = 1
high = 3
points = 3
)");
  REQUIRE(s.cases.size() == 6);
  CHECK(s.rows() == 240);
  CHECK(s.cases[0].label == "law=a, s=1 ");
  CHECK(s.cases[1].label == "law=a, s=2 ");
  CHECK(s.cases[5].label == "law=b, s=3 ");
  const io::sample_matrix x = sample_inputs(s);
  REQUIRE(x.rows() == 240);
  for (std::size_t c = 0; c < 6; ++c) {
    const auto block = x.middleRows(static_cast<Eigen::Index>(40 * c), 40);
    CHECK(block.col(0) == x.topRows(40).col(0));  // common random numbers
    CHECK((block.col(1).array() == 1.0 + static_cast<double>(c % 3)).all());
    CHECK((block.col(2).array() == 0.5).all());  // nominal
  }
  memory_sink sink;
  run_options o;
  o.threads = 2;
  o.block_size = 16;
  run_ensemble(s, x, sink, o);
  const auto& y = sink.samples().outputs;
  for (Eigen::Index i = 0; i < 240; ++i) {
    const std::size_t c = static_cast<std::size_t>(i) / 40;
    const double offset = c >= 3 ? 10.0 : 0.0;
    CHECK(y(i, 0) == x(i, 0) + offset * x(i, 1) + 0.5);
  }

  const io::ensemble_schema schema = ensemble_schema_for(s, io::study_document::parse(base, "nested.toml"));
  CHECK(schema.metadata.samples == 240);
  REQUIRE(schema.metadata.epistemic_cases.size() == 6);
  CHECK(schema.metadata.aleatoric_samples() == 40);
  CHECK(schema.inputs[1].role == io::input_role::epistemic);
  CHECK(schema.inputs[1].attributes.back() == std::pair<std::string, std::string>{"choices", "1, 2, 3"});
}

TEST_CASE("a case table sets its inputs together, one case per choice, crossed with other epistemic parameters",
          "[ensemble_study][epistemic]") {
  const std::string table = R"(
[parameters.row]
role = "epistemic"
choices = ["one", "two", "three"]
s = [1, 2, 3]
w = [0.25, 0.5, 0.75]

[parameters.law]
role = "epistemic"
choices = ["a", "b"]
)";
  const ensemble_study s = read(base + table);
  REQUIRE(s.cases.size() == 6);  // 2 laws x 3 rows, not 2 x 3 x 3; parameters in key order
  CHECK(s.rows() == 240);
  CHECK(s.cases[0].label == "law=a, row=one");
  CHECK(s.cases[1].label == "law=a, row=two");
  CHECK(s.cases[5].label == "law=b, row=three");
  CHECK(s.inputs[1].role == io::input_role::epistemic);
  CHECK(s.inputs[2].role == io::input_role::epistemic);
  const io::sample_matrix x = sample_inputs(s);
  for (std::size_t c = 0; c < 6; ++c) {
    const auto block = x.middleRows(static_cast<Eigen::Index>(40 * c), 40);
    CHECK(block.col(0) == x.topRows(40).col(0));  // common random numbers
    CHECK((block.col(1).array() == 1.0 + static_cast<double>(c % 3)).all());
    CHECK((block.col(2).array() == 0.25 * (1.0 + static_cast<double>(c % 3))).all());
  }
  memory_sink sink;
  run_options o;
  o.threads = 2;
  run_ensemble(s, x, sink, o);
  const auto& y = sink.samples().outputs;
  for (Eigen::Index i = 0; i < 240; ++i) {
    const double offset = i / 40 >= 3 ? 10.0 : 0.0;
    CHECK(y(i, 0) == x(i, 0) + offset * x(i, 1) + x(i, 2));
  }
  const io::ensemble_schema schema = ensemble_schema_for(s, io::study_document::parse(base + table, "nested.toml"));
  REQUIRE(schema.metadata.epistemic_cases.size() == 6);
  CHECK(schema.inputs[2].attributes.back() == std::pair<std::string, std::string>{"choices", "0.25, 0.5, 0.75"});

  const std::string rows = "\n[parameters.row]\nrole = \"epistemic\"\nchoices = [\"one\", \"two\"]\n";
  CHECK_THROWS_WITH(read(base + rows + "s = [1, 2, 3]\n"), Contains("s") && Contains("3 values for 2 choices"));
  CHECK_THROWS_WITH(read(base + rows + "q = [1, 2]\n"), Contains("not an input of model offset_test"));
  CHECK_THROWS_WITH(read(base + rows + "x = [\"1 mm\", \"2 mm\"]\n"), Contains("also") && Contains("row"));
  CHECK_THROWS_WITH(read(base + rows + "s = [1, 2]\n[parameters.s]\nrole = \"fixed\"\nvalue = 2\n"),
                    Contains("case table [parameters.row]"));
  CHECK_THROWS_WITH(read(base + rows + "s = [\"1 mm\", 2]\n"), Contains("parameters.row.s"));
}

TEST_CASE("design parameters are evaluated at their value and keep their bounds", "[ensemble_study][epistemic]") {
  const ensemble_study s = read(base + R"(
[parameters.w]
role = "design"
low = 0.2
high = 0.9
value = 0.7
)");
  CHECK(s.cases.size() == 1);
  CHECK(s.rows() == 40);
  CHECK(s.inputs[2].role == io::input_role::design);
  CHECK(s.inputs[2].low == 0.2);
  CHECK(s.inputs[2].high == 0.9);
  const io::sample_matrix x = sample_inputs(s);
  CHECK((x.col(2).array() == 0.7).all());
  const io::ensemble_schema schema = ensemble_schema_for(s, io::study_document::parse(base, "nested.toml"));
  CHECK(schema.metadata.epistemic_cases.empty());
}

TEST_CASE("a bad epistemic choice of a [model] key is reported at the choices", "[ensemble_study][epistemic]") {
  try {
    read(base + "\n[parameters.law]\nrole = \"epistemic\"\nchoices = [\"a\", \"c\"]\n");
    FAIL("no error");
  } catch (const io::study_error& e) {
    CHECK(e.file() == "nested.toml");
    CHECK(e.line() == 18);  // the choices line
    CHECK_THAT(e.what(), Contains("\"c\"") && Contains("a, b"));
  }
  CHECK_THROWS_WITH(read(base + "\n[parameters.law]\nrole = \"fixed\"\nvalue = 1\n"),
                    Contains("not an input of model offset_test") && Contains("epistemic"));
}

TEST_CASE("a sample plan makes Monte Carlo and RQMC rows block by block, bit for bit", "[ensemble_study][plan]") {
  const std::string design = GENERATE("monte_carlo", "sobol", "halton", "latin_hypercube");
  INFO(design);
  std::string text = base + R"(
[parameters.law]
role = "epistemic"
choices = ["a", "b"]

[parameters.s]
role = "epistemic"
choices = [1, 2, 3]
)";
  const bool qmc = design == "sobol" || design == "halton";
  text.replace(text.find("samples = 40"), 12, "samples = 40\ndesign = \"" + design + "\"" + (qmc ? "\nreplicates = 4" : ""));
  const ensemble_study s = read(text);
  const sample_plan plan(s);
  CHECK(plan.streamed() == (design != "latin_hypercube"));
  REQUIRE(plan.rows() == 240);
  const io::sample_matrix whole = sample_inputs(s);
  // Blocks inside a replicate, across replicates (every 10 rows) and across cases (every 40).
  for (const auto& [first, count] : std::vector<std::pair<std::size_t, std::size_t>>{
           {0, 240}, {0, 1}, {5, 10}, {38, 5}, {39, 122}, {200, 40}, {239, 1}}) {
    INFO(first << " + " << count);
    CHECK(plan.rows(first, count) ==
          whole.middleRows(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(count)));
  }
  CHECK_THROWS(plan.rows(200, 41));
  // Evaluated from the plan or from the whole matrix: the same blocks.
  memory_sink streamed, given;
  run_options o;
  o.threads = 2;
  o.block_size = 16;
  run_ensemble(s, plan, streamed, o);
  run_ensemble(s, whole, given, o);
  CHECK(streamed.samples().inputs == given.samples().inputs);
  CHECK(streamed.samples().outputs == given.samples().outputs);
}
