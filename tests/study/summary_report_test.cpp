// study::summarize on files written by the runner: the report holds what summarize prints (moments,
// status, rankings, limits, proportions, nested per-case results), counted the way a reader of the
// file counts them, and to_json writes it.
#include "contactuq/study/summary_report.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "../io/scratch_dir.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using namespace contactuq::study;

namespace {

// y = x1 + 2 x2 + offset with offset 0 (law "a") or 10 (law "b"); flag = (x1 > 0.5).
struct report_model {
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

const char* inputs_text = R"(
[model]
type = "summary_report_test"

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

[output.limits]
y = { high = 2.5 }
)";

std::filesystem::path run(const contactuq::testing::scratch_dir& dir, const std::string& name, const std::string& text) {
  model::register_builtin_models();
  if (!model::is_registered("summary_report_test"))
    model::register_model("summary_report_test", [](const io::study_table& t) {
      t.allow_only({"type", "law"});
      return model::model(report_model{t.choice("law", {"a", "b"}, "a") == "b" ? 10.0 : 0.0});
    });
  const auto doc = io::study_document::parse(text, name + ".toml");
  const ensemble_study s = read_ensemble_study(doc);
  const auto path = dir / (name + ".h5");
  auto writer = io::ensemble_writer::create(path, ensemble_schema_for(s, doc));
  writer_sink sink(writer);
  run_options o;
  o.block_size = writer.chunk_rows();
  run_ensemble(s, sample_inputs(s), sink, o);
  writer.finish("2024-05-01T12:05:00Z");
  return path;
}

}  // namespace

TEST_CASE("the summary report of a sampling study: moments, status, limits, proportions, rankings",
          "[summary_report]") {
  contactuq::testing::scratch_dir dir;
  const auto path = run(dir, "plain", std::string(inputs_text) + "\n[sampling]\nsamples = 2000\nseed = 3\n");
  summary_options o;
  o.bootstrap = 300;
  const summary_report r = summarize(path, o);
  CHECK(r.file == path.string());
  CHECK(r.rows == 2000);
  CHECK((r.status.ok == 2000 && r.status.failed == 0 && r.status.not_run == 0 && r.status.messages.empty()));
  CHECK_FALSE(r.nested);
  CHECK_FALSE(r.replicate_intervals);
  CHECK_FALSE(r.converted);
  CHECK(r.ranking_resamples == study::ranking_resamples);  // at most 200, fewer than the moments
  REQUIRE(r.outputs.size() == 2);
  REQUIRE(r.analyses.size() == 1);
  CHECK_FALSE(r.nested_statistics);

  // E[x1 + 2 x2] = 1.5 inside its interval; the report's numbers are summarize's.
  const uq::summary& y = r.outputs[0];
  CHECK(y.used == 2000);
  CHECK(y.mean_ci.low < y.mean);
  CHECK(y.mean < y.mean_ci.high);
  CHECK(y.mean == Approx(1.5).margin(0.02));

  // P(y > 2.5) and P(flag = 1) count the values of the file.
  const io::ensemble e = io::read_ensemble(path);
  std::size_t above = 0, ones = 0;
  for (Eigen::Index i = 0; i < e.outputs.rows(); ++i) above += e.outputs(i, 0) > 2.5, ones += e.outputs(i, 1) == 1.0;
  const auto& a = r.analyses.front();
  REQUIRE(a.outputs[0].violation);
  CHECK(a.outputs[0].violation->events == above);
  CHECK(a.outputs[0].violation->trials == 2000);
  CHECK_FALSE(a.outputs[0].one);
  REQUIRE(a.outputs[1].one);
  CHECK(a.outputs[1].one->events == ones);
  // x2 drives y more than x1 (coefficients 2 and 1).
  REQUIRE(a.outputs[0].ranking);
  CHECK(a.ranked_inputs == std::vector<std::string>{"x1", "x2"});
  CHECK(a.outputs[0].ranking->prcc[1].value > a.outputs[0].ranking->prcc[0].value);

  const std::string json = to_json(r);
  for (const char* key : {"\"p_violation\"", "\"probability_of_1\"", "\"ranking\"", "\"mean_ci\"", "\"resamples\": 300"})
    CHECK(json.find(key) != std::string::npos);
  CHECK(json.find("\"nested\"") == std::string::npos);
}

TEST_CASE("the summary report of a nested study: per model, pooled only when asked", "[summary_report]") {
  contactuq::testing::scratch_dir dir;
  const auto path = run(dir, "nested",
                        std::string(inputs_text) +
                            "\n[parameters.law]\nrole = \"epistemic\"\nchoices = [\"a\", \"b\"]\n\n"
                            "[sampling]\nsamples = 500\nseed = 5\n");
  summary_options o;
  o.bootstrap = 50;
  o.pooled_nested = false;
  const summary_report r = summarize(path, o);
  CHECK(r.nested);
  CHECK(r.ranking_resamples == 50);
  CHECK(r.outputs.empty());  // pooling mixes the models: left out when not asked for
  REQUIRE(r.nested_statistics);
  CHECK(r.nested_statistics->cases == std::vector<std::string>{"law=a", "law=b"});
  REQUIRE(r.analyses.size() == 2);
  // Law b shifts y by 10: every part violates y <= 2.5 under it.
  CHECK(r.analyses[1].outputs[0].violation->events == 500);
  CHECK(r.analyses[0].outputs[0].violation->events < 100);

  o.pooled_nested = true;
  const summary_report pooled = summarize(path, o);
  REQUIRE(pooled.outputs.size() == 2);
  CHECK(pooled.outputs[0].mean == Approx(6.5).margin(0.05));
  const std::string json = to_json(pooled);
  CHECK(json.find("\"by_case\"") != std::string::npos);
  CHECK(json.find("\"nested\"") != std::string::npos);
}

TEST_CASE("summary options out of range are refused with their name", "[summary_report]") {
  summary_options o;
  o.bootstrap = 5;
  CHECK_THROWS_AS(o.validate(), parameter_error);
  o.bootstrap = 200000;
  CHECK_THROWS_WITH(o.validate(), Catch::Contains("bootstrap"));
  o.bootstrap = 0;
  o.confidence = 1.5;
  CHECK_THROWS_AS(o.validate(), parameter_error);
  o.confidence = 0.9;
  o.probabilities = {0.5, 1.2};
  CHECK_THROWS_AS(o.validate(), parameter_error);
}
