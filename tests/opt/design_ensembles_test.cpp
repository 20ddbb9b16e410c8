// Batches of designs run as ensembles on an executor: the values of robust_problem::evaluate, bit
// for bit (the contract mpi::world_runner relies on for optimisation studies).
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "analytic_models.hpp"
#include "contactuq/opt/optimization_study.hpp"
#include "contactuq/opt/optimizer.hpp"
#include "contactuq/study/ensemble_runner.hpp"

using namespace contactuq;

namespace {

// An executor in this process: run_ensemble, with small blocks so that a batch spans several.
class local_executor : public study::executor {
 public:
  std::size_t processes() const override { return 1; }
  study::run_summary run(const io::study_document&, const study::ensemble_study& study, const study::sample_plan& inputs,
                         study::sample_sink& sink, const study::run_options& options) override {
    ++runs;
    study::run_options o = options;
    o.block_size = 5;
    return study::run_ensemble(study, inputs, sink, o);
  }
  void start(const io::study_document&, std::size_t) override {}
  void finish() override {}
  std::vector<std::string> map(std::size_t n, bool, const std::function<std::string(std::size_t)>& job) override {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(job(i));
    return out;
  }
  std::size_t runs = 0;
};

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void check_same(const opt::robust_value& a, const opt::robust_value& b) {
  CHECK(same_bits(a.objectives, b.objectives));
  CHECK(same_bits(a.constraints, b.constraints));
  CHECK(same_bits({a.violation}, {b.violation}));
  CHECK(a.failed == b.failed);
  CHECK(a.message == b.message);
}

}  // namespace

TEST_CASE("a batch of designs run as an ensemble has robust_problem::evaluate's values, failures included") {
  opt_test::register_models();
  const auto doc = io::study_document::parse(opt_test::quadratic_study(R"(algorithm = "slsqp"
[[optimization.objective]]
output = "y"
statistic = "mean_plus_sd"
[[optimization.constraint]]
output = "y"
statistic = "quantile"
level = 0.9
max = 5
)",
                                                                     16),
                                             "quadratic.toml");
  const auto s = opt::read_optimization_study(doc);
  const auto problem = opt::make_robust_problem(s.base, s.base.model, s.objectives, s.constraints);
  local_executor executor;
  opt::design_ensembles designs(executor, doc, s.base, 2);
  CHECK(designs.processes() == 1);
  // The last design fails in every sample (no solution for x2 = -6): NaN measures, a message.
  const std::vector<std::vector<double>> xs = {{0.0, 0.0}, {1.5, -0.25}, {3.0, 2.0}, {0.0, -6.0}};
  const auto values = designs.evaluate(problem, 0, xs);
  REQUIRE(values.size() == xs.size());
  CHECK(executor.runs == 1);
  for (std::size_t k = 0; k < xs.size(); ++k) {
    CAPTURE(k);
    check_same(values[k], problem.evaluate(xs[k]));
  }
  CHECK(values.back().failed == 16);
  CHECK(designs.evaluate(problem, 0, {}).empty());
  CHECK_THROWS_AS(designs.evaluate(problem, 1, xs), std::invalid_argument);
  CHECK_THROWS_AS(designs.evaluate(problem, 0, {{1.0}}), std::invalid_argument);
}

TEST_CASE("a batch under an epistemic case runs that case's rows with its model") {
  opt_test::register_models();
  const auto doc = io::study_document::parse(R"([model]
type = "test_shifted_parabola"
c = 1
[parameters.c]
role = "epistemic"
choices = [1, 3]
[parameters.x]
role = "design"
low = -2
high = 6
value = 0
[parameters.xi]
role = "aleatoric"
distribution = "uniform"
low = -0.5
high = 0.5
[sampling]
samples = 12
seed = 5
[optimization]
algorithm = "cobyla"
[[optimization.objective]]
output = "y"
statistic = "mean_plus_sd"
)",
                                             "parabola.toml");
  const auto s = opt::read_optimization_study(doc);
  const auto models = opt::optimization_models(s);
  REQUIRE(models.size() == 2);
  local_executor executor;
  opt::design_ensembles designs(executor, doc, s.base, 1);
  const std::vector<std::vector<double>> xs = {{0.0}, {2.5}, {-1.0}};
  for (std::size_t m = 0; m < models.size(); ++m) {
    CAPTURE(m);
    const auto problem = opt::make_robust_problem(s.base, models[m].second, s.objectives, s.constraints);
    const auto values = designs.evaluate(problem, m, xs);
    for (std::size_t k = 0; k < xs.size(); ++k) check_same(values[k], problem.evaluate(xs[k]));
  }
}
