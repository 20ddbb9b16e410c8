// Robust measures on a fixed sample set: the formulas, common random numbers, failures.
#include "contactuq/opt/robust_objective.hpp"

#include <tbb/global_control.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "analytic_models.hpp"
#include "contactuq/opt/optimization_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

opt::optimization_study quadratic(const std::string& optimization, int samples = 64) {
  opt_test::register_models();
  return opt::read_optimization_study(io::study_document::parse(
      opt_test::quadratic_study(optimization, samples), "quadratic.toml"));
}

const char* mean_y = R"(algorithm = "slsqp"
[[optimization.objective]]
output = "y"
statistic = "mean"
)";

opt::robust_problem problem_of(const opt::optimization_study& s) {
  return opt::make_robust_problem(s.base, s.base.model, s.objectives, s.constraints);
}

}  // namespace

TEST_CASE("measures follow their definitions on a small set") {
  const std::vector<double> y{4.0, 1.0, 3.0, 2.0};
  opt::measure m{"y"};
  CHECK(opt::evaluate_measure(m, y) == 2.5);
  m.kind = opt::statistic::mean_plus_sd;
  m.kappa = 2.0;
  // s^2 = (2.25 + 2.25 + 0.25 + 0.25) / 3 = 5/3
  CHECK(opt::evaluate_measure(m, y) == Approx(2.5 + 2.0 * std::sqrt(5.0 / 3.0)));
  m.kind = opt::statistic::quantile;
  m.level = 0.5;  // h = 1.5: between 2 and 3
  CHECK(opt::evaluate_measure(m, y) == Approx(2.5));
  m.level = 0.25;  // h = 0.75: 1 + 0.75 (2 - 1)
  CHECK(opt::evaluate_measure(m, y) == Approx(1.75));
  m.level = 1.0;
  CHECK(opt::evaluate_measure(m, y) == 4.0);
  m.kind = opt::statistic::probability;
  m.limit = 2.0;
  CHECK(opt::evaluate_measure(m, y) == 0.5);  // 3 and 4 are above 2; 2 is not
  m.above = false;
  CHECK(opt::evaluate_measure(m, y) == 0.25);  // only 1 is below 2
  m.above = true;
  m.smoothing = 0.5;
  // t / w = (y - limit) / w = 4, -2, 2, 0
  const double logistic =
      (1 / (1 + std::exp(-4.0)) + 1 / (1 + std::exp(2.0)) + 1 / (1 + std::exp(-2.0)) + 0.5) / 4;
  CHECK(opt::evaluate_measure(m, y) == Approx(logistic));
  // The smoothed indicator tends to the step as the width goes to 0.
  m.smoothing = 1e-6;
  CHECK(opt::evaluate_measure(m, y) == Approx(0.5 + 0.5 / 4));  // y = limit counts 1/2
}

TEST_CASE("constraints normalise by their bound and measures reject bad settings") {
  opt::constraint c{{"y", opt::statistic::probability}, 0.01, std::nullopt};
  CHECK(c.normalised(0.02) == Approx(1.0));
  CHECK(c.normalised(0.005) == Approx(-0.5));
  opt::constraint lower{{"y"}, std::nullopt, -2.0};
  CHECK(lower.normalised(-3.0) == Approx(0.5));
  opt::constraint zero{{"y"}, 0.0, std::nullopt};
  CHECK(zero.normalised(0.25) == 0.25);
  opt::constraint both{{"y"}, 1.0, 0.0};
  CHECK_THROWS_AS(both.validate("constraint[0]"), parameter_error);
  opt::measure bad{"y", opt::statistic::quantile};
  bad.level = 1.5;
  CHECK_THROWS_WITH(bad.validate("objective[0]"), Contains("objective[0].level"));
}

TEST_CASE("the CRN set of a study is its ensemble's sample matrix") {
  const auto s = quadratic(mean_y);
  const io::sample_matrix a = opt::crn_samples(s.base, s.base.model);
  const io::sample_matrix b = study::sample_inputs(s.base);
  REQUIRE(a.rows() == 64);
  REQUIRE(a.cols() == b.cols());
  CHECK(std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
  // The design columns hold the start values.
  CHECK((a.col(0).array() == 0.0).all());
  // A model without the aleatoric input cannot share the set.
  CHECK_THROWS_WITH(opt::crn_samples(s.base, model::model(opt_test::shifted_parabola{1.0})),
                    Contains("varies x1") && Contains("does not have"));
}

TEST_CASE("repeated evaluations of a design give the same bits, on any number of threads") {
  const auto s = quadratic(R"(algorithm = "slsqp"
[[optimization.objective]]
output = "y"
statistic = "mean_plus_sd"
[[optimization.constraint]]
output = "g"
statistic = "probability"
above = 1.0
smoothing = 0.05
max = 0.1
[[optimization.constraint]]
output = "y"
statistic = "quantile"
level = 0.9
max = 5
)",
                           256);
  const auto p = problem_of(s);
  const std::vector<double> x{1.3, 0.2};
  const opt::robust_value first = p.evaluate(x);
  opt::robust_value serial;
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    serial = p.evaluate(x);
  }
  for (const auto& v : {p.evaluate(x), serial}) {
    REQUIRE(v.objectives.size() == 1);
    REQUIRE(v.constraints.size() == 2);
    CHECK(std::memcmp(&v.objectives[0], &first.objectives[0], sizeof(double)) == 0);
    CHECK(std::memcmp(v.constraints.data(), first.constraints.data(), 2 * sizeof(double)) == 0);
    CHECK(v.violation == first.violation);
  }
  // And the values are those of the formulas on the samples.
  double m = 0, ss = 0;
  const auto xi = p.samples().col(2);
  for (Eigen::Index i = 0; i < xi.size(); ++i) m += xi(i);
  m /= static_cast<double>(xi.size());
  for (Eigen::Index i = 0; i < xi.size(); ++i) ss += (xi(i) - m) * (xi(i) - m);
  const double sd = std::sqrt(ss / static_cast<double>(xi.size() - 1));
  const double q = (1.3 - 2) * (1.3 - 2) + (0.2 - 1) * (0.2 - 1);
  CHECK(first.objectives[0] == Approx(q + 1.5 / 2 * (m + 3 * sd)).epsilon(1e-12));
}

TEST_CASE("a design whose model fails is infeasible, with the failure's message") {
  const auto s = quadratic(mean_y, 16);
  const auto p = opt::robust_problem(s.base.model, opt::crn_samples(s.base, s.base.model), {0, 1},
                                     {-1, -10}, {4, 3}, s.objectives, s.constraints);
  const auto v = p.evaluate(std::vector<double>{0.0, -6.0});
  CHECK(v.failed == 16);
  CHECK(std::isnan(v.objectives[0]));
  CHECK(std::isinf(v.violation));
  CHECK_THAT(v.message, Contains("sample 0") && Contains("no solution"));
}

TEST_CASE("study files: design variables, objectives and constraints with units and errors") {
  const auto s = quadratic(R"(algorithm = "de"
population = 12
[[optimization.objective]]
output = "y"
statistic = "quantile"
level = 0.95
sense = "maximize"
[[optimization.constraint]]
output = "g"
statistic = "probability"
below = -1
min = "5 %"
)");
  CHECK(s.base.design_variables() == std::vector<std::size_t>{0, 1});
  CHECK(s.base.inputs[1].low == -1.0);
  CHECK(s.base.inputs[1].high == 3.0);
  CHECK(s.start() == std::vector<double>{0.0, 0.0});
  CHECK(s.objectives[0].maximize);
  CHECK(s.objectives[0].what.level == 0.95);
  CHECK_FALSE(s.constraints[0].what.above);
  CHECK(s.constraints[0].what.limit == -1.0);
  CHECK(*s.constraints[0].min == Approx(0.05));
  CHECK(s.optimizer.population == 12);

  // Errors name the file, line and key.
  CHECK_THROWS_WITH(quadratic(R"([[optimization.objective]]
output = "z"
statistic = "mean"
)"),
                    Contains("quadratic.toml:24") && Contains("not an output"));
  CHECK_THROWS_WITH(quadratic(R"(algorithm = "newton"
[[optimization.objective]]
output = "y"
statistic = "mean"
)"),
                    Contains("optimization.algorithm") && Contains("cobyla"));
  CHECK_THROWS_WITH(quadratic(R"(population = 2
[[optimization.objective]]
output = "y"
statistic = "mean"
)"),
                    Contains("population"));
  // A budget no one means (2^16 generations, each the whole population) is refused at its key.
  CHECK_THROWS_WITH(quadratic(R"(algorithm = "de"
generations = 65536
[[optimization.objective]]
output = "y"
statistic = "mean"
)"),
                    Contains("quadratic.toml:") && Contains("optimization.generations") &&
                        Contains("in [1, 10000]"));
  CHECK_THROWS_WITH(quadratic(R"([[optimization.objective]]
output = "y"
statistic = "mean"
kappa = 2
)"),
                    Contains("kappa") && Contains("only for"));
  CHECK_THROWS_WITH(quadratic(R"([[optimization.objective]]
output = "y"
statistic = "mean"
[[optimization.objective]]
output = "g"
statistic = "mean"
)"),
                    Contains("nsga2"));
  opt_test::register_models();
  std::string text = opt_test::quadratic_study(mean_y);
  text.replace(text.find("value = 0"), 9, "value = 9");
  CHECK_THROWS_WITH(opt::read_optimization_study(io::study_document::parse(text, "q.toml")),
                    Contains("parameters.x1.value") && Contains("within [low, high]"));
  // `run` evaluates design variables at their start; an [optimization] table is not for it.
  std::string run = opt_test::quadratic_study("");
  CHECK_THROWS_WITH(study::read_ensemble_study(io::study_document::parse(run, "q.toml")),
                    Contains("unknown key 'optimization'"));
  run.erase(run.find("[optimization]"));
  const auto run_study = study::read_ensemble_study(io::study_document::parse(run, "q.toml"));
  REQUIRE_FALSE(run_study.design_variables().empty());
  const auto& x1 = run_study.inputs[run_study.design_variables().front()];
  CHECK(x1.role == io::input_role::design);
  CHECK((study::sample_inputs(run_study).col(static_cast<Eigen::Index>(run_study.design_variables().front())).array() == x1.value)
            .all());
}
