// summarize_nested on a file written by the runner: per-case distributions on the A rows of a
// pick-freeze design, the model-form decomposition and Sobol indices of an analytic model.
#include "contactuq/study/nested_summary.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include "../io/scratch_dir.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using namespace contactuq::study;

namespace {

// y = x1 + 2 x2 + offset with offset 0 (law "a") or 10 (law "b"); flag = (x1 > 0.5).
struct additive_model {
  double offset = 0.0;
  std::vector<model::variable> inputs() const {
    return {{"x1", units::dimensionless, 0.0}, {"x2", units::dimensionless, 0.0}};
  }
  std::vector<model::variable> outputs() const { return {{"y", units::dimensionless}, {"flag", units::dimensionless}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    return {{x[0] + 2 * x[1] + offset, x[0] > 0.5 ? 1.0 : 0.0}, {}};
  }
};

const char* study_text = R"(
[model]
type = "additive_test"

[parameters.x1]
role = "aleatoric"
distribution = "uniform"
low = 0
high = 1

[parameters.x2]
role = "aleatoric"
distribution = "uniform"
low = 0
high = 1

[parameters.law]
role = "epistemic"
choices = ["a", "b"]

[sampling]
samples = 2000
seed = 11
sobol = true
)";

}  // namespace

TEST_CASE("a nested pick-freeze ensemble gives per-case statistics, the decomposition and Sobol indices",
          "[nested_summary]") {
  model::register_builtin_models();
  if (!model::is_registered("additive_test"))
    model::register_model("additive_test", [](const io::study_table& t) {
      t.allow_only({"type", "law"});
      return model::model(additive_model{t.choice("law", {"a", "b"}, "a") == "b" ? 10.0 : 0.0});
    });
  const auto doc = io::study_document::parse(study_text, "nested.toml");
  const ensemble_study s = read_ensemble_study(doc);
  REQUIRE(s.per_case() == 2000 * 4);
  REQUIRE(s.rows() == 2 * 2000 * 4);

  contactuq::testing::scratch_dir dir;
  const auto path = dir / "nested.h5";
  {
    auto writer = io::ensemble_writer::create(path, ensemble_schema_for(s, doc));
    writer_sink sink(writer);
    run_options o;
    o.block_size = writer.chunk_rows();
    run_ensemble(s, sample_inputs(s), sink, o);
    writer.finish("2024-05-01T12:05:00Z");
  }
  const io::ensemble e = io::read_ensemble(path);
  CHECK(e.schema.metadata.pick_freeze_inputs == 2);
  const nested_summary n = summarize_nested(e);
  CHECK(n.cases == std::vector<std::string>{"law=a", "law=b"});
  CHECK(n.samples_per_case == 2000);
  CHECK(n.aleatoric_inputs == std::vector<std::string>{"x1", "x2"});
  REQUIRE(n.outputs.size() == 2);

  // Case b is case a shifted by 10 on the same aleatoric samples.
  const auto ya = case_values(e, 0, 0), yb = case_values(e, 0, 1);
  REQUIRE(ya.size() == 2000);
  for (std::size_t i = 0; i < ya.size(); ++i) CHECK(yb[i] - ya[i] == Approx(10.0).margin(1e-12));
  const auto& y = n.outputs[0];
  CHECK(y.cases[1].summary.mean - y.cases[0].summary.mean == Approx(10.0));
  REQUIRE(y.decomposition);
  CHECK(y.decomposition->epistemic_variance.value == Approx(25.0).epsilon(1e-12));
  // Var(x1 + 2 x2) = 1/12 + 4/12 for uniform inputs.
  CHECK(y.decomposition->aleatoric_variance.value == Approx(5.0 / 12).epsilon(0.03));
  // Sobol indices of y = x1 + 2 x2: S_1 = 1/5, S_2 = 4/5, first = total (additive).
  for (const auto& c : y.cases) {
    REQUIRE(c.sobol);
    CHECK(c.sobol->first_order[0].value == Approx(0.2).margin(0.03));
    CHECK(c.sobol->first_order[1].value == Approx(0.8).margin(0.03));
    CHECK(c.sobol->total_order[0].value == Approx(0.2).margin(0.03));
    CHECK(c.sobol->total_order[1].value == Approx(0.8).margin(0.03));
  }
  CHECK_FALSE(y.flag);
  // The flag: P(x1 > 0.5) = 1/2 in both cases, with an interval around it.
  const auto& flag = n.outputs[1];
  CHECK(flag.flag);
  for (const auto& c : flag.cases) {
    REQUIRE(c.one);
    CHECK(c.one->value == Approx(0.5).margin(0.01));  // A rows are a Latin hypercube
    CHECK(c.one->ci.low < 0.5);
    CHECK(c.one->ci.high > 0.5);
  }
}
