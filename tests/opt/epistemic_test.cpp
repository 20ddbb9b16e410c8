// Optimising under several models: regret matrix and the design over all models.
#include "contactuq/opt/epistemic.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "analytic_models.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/opt/optimization_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

// x in [-2, 6] from 0, xi ~ U(-0.5, 0.5), minimise mean(y); y = (x - c)^2 + xi.
opt::optimization_study parabola_study(const std::string& algorithm,
                                       const std::string& sense = "minimize") {
  opt_test::register_models();
  return opt::read_optimization_study(io::study_document::parse(R"([model]
type = "test_shifted_parabola"
c = 1
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
samples = 32
seed = 5
[optimization]
algorithm = ")" + algorithm + R"("
population = 12
generations = 30
[[optimization.objective]]
output = "y"
statistic = "mean"
sense = ")" + sense + R"("
)",
                                                                  "parabola.toml"));
}

std::vector<std::pair<std::string, model::model>> three_models() {
  return {{"c=1", model::model(opt_test::shifted_parabola{1.0})},
          {"c=3", model::model(opt_test::shifted_parabola{3.0})},
          {"c=2.5", model::model(opt_test::shifted_parabola{2.5})}};
}

}  // namespace

TEST_CASE("the regret matrix has a zero diagonal and the squared distances of the optima") {
  const auto algorithm = GENERATE(std::string("hybrid"), std::string("cobyla"), std::string("de"));
  CAPTURE(algorithm);
  const auto s = parabola_study(algorithm);
  opt::history log;
  const auto r = opt::optimize_over_models(three_models(), s.base, s.objectives, s.constraints,
                                           s.optimizer, log);
  const std::vector<double> c{1.0, 3.0, 2.5};
  REQUIRE(r.optima.size() == 3);
  REQUIRE(r.regret.rows() == 3);
  for (Eigen::Index i = 0; i < 3; ++i) {
    CHECK(r.optima[static_cast<std::size_t>(i)].x[0] ==
          Approx(c[static_cast<std::size_t>(i)]).margin(1e-3));
    // The optimum evaluated again under its own model: the same bits (CRN), so exactly 0.
    CHECK(r.regret(i, i) == 0.0);
    for (Eigen::Index j = 0; j < 3; ++j) {
      const double d = c[static_cast<std::size_t>(i)] - c[static_cast<std::size_t>(j)];
      CHECK(r.regret(i, j) == Approx(d * d).margin(1e-2));
      CHECK(r.cross_feasible(i, j) == 1);
    }
  }
  // Min-max regret: halfway between the extreme optima, x = 2, regret 1 under c = 1 and c = 3.
  REQUIRE(r.has_robust);
  CHECK(r.robust.x[0] == Approx(2.0).margin(2e-3));
  CHECK(r.robust_regret[0] == Approx(1.0).margin(1e-2));
  CHECK(r.robust_regret[1] == Approx(1.0).margin(1e-2));
  CHECK(r.robust_regret[2] == Approx(0.25).margin(1e-2));
  CHECK(r.robust.value.objectives[0] == Approx(1.0).margin(1e-2));
  // Every model was evaluated on the same parts: the cross phase is in the history.
  CHECK(std::count_if(log.records().begin(), log.records().end(),
                      [](const auto& rec) { return rec.stage == opt::phase::cross; }) == 18);
  // Each search met its tolerance and no other optimum beat it: all converged.
  if (algorithm != "de")
    for (const auto& o : r.optima) CHECK(o.converged);
  for (const auto& o : r.optima) {
    CHECK(o.last_improvement >= 1);
    CHECK(o.last_improvement <= o.evaluations);
  }
}

TEST_CASE("a maximised objective's regret on the diagonal is 0, not -0") {
  // maximising (x - c)^2 on [-2, 6]: the optima are the ends; an optimum under its own model has
  // a regret of exactly 0, which a sign flip of (value - own) printed as -0
  const auto s = parabola_study("de", "maximize");
  opt::history log;
  const auto r = opt::optimize_over_models(three_models(), s.base, s.objectives, s.constraints,
                                           s.optimizer, log);
  REQUIRE(r.regret.rows() == 3);
  for (Eigen::Index i = 0; i < 3; ++i) {
    CHECK(r.regret(i, i) == 0.0);
    CHECK_FALSE(std::signbit(r.regret(i, i)));
    for (Eigen::Index j = 0; j < 3; ++j) CHECK(r.regret(i, j) >= 0.0);
  }
}

TEST_CASE("searches stopped short are seeded with the other optima: no regret is negative") {
  // A local search with a budget of a few evaluations stops far from each optimum, so
  // another model's optimum can beat a model's own; seeding and polishing must remove every
  // negative regret and report the search as not converged.
  const auto budget = GENERATE(2, 3, 4, 6);
  const auto algorithm = GENERATE(std::string("cobyla"), std::string("slsqp"));
  CAPTURE(budget, algorithm);
  auto s = parabola_study(algorithm);
  s.optimizer.evaluations = static_cast<std::size_t>(budget);
  const std::vector<std::pair<std::string, model::model>> models{
      {"c=0.4", model::model(opt_test::shifted_parabola{0.4})},
      {"c=1", model::model(opt_test::shifted_parabola{1.0})},
      {"c=5", model::model(opt_test::shifted_parabola{5.0})},
      {"c=5.5", model::model(opt_test::shifted_parabola{5.5})}};
  opt::history log;
  const auto r =
      opt::optimize_over_models(models, s.base, s.objectives, s.constraints, s.optimizer, log);
  for (Eigen::Index i = 0; i < r.regret.rows(); ++i)
    for (Eigen::Index j = 0; j < r.regret.cols(); ++j) CHECK(r.regret(i, j) >= 0.0);
  // The design over all models is judged against optima no design evaluated beats.
  for (double regret : r.robust_regret) CHECK(regret >= 0.0);
  std::size_t seeded = 0;
  for (const auto& o : r.optima) {
    if (o.convergence.find("stopped short") != std::string::npos) {
      CHECK_FALSE(o.converged);
      ++seeded;
    }
    if (o.converged) CHECK(o.convergence.starts_with("converged"));
  }
  // With two SLSQP calls the searches of c = 5 and c = 5.5 stop short of each other's optimum.
  if (budget == 2 && algorithm == "slsqp") CHECK(seeded > 0);
}

TEST_CASE("a model whose search ran out of evaluations is seeded from a better optimum") {
  // c = 1 and c = 1.05 from x = 0 with one local step: the second model's search is cut off
  // short of the first one's optimum, which is closer to its own.
  auto s = parabola_study("cobyla");
  s.optimizer.evaluations = 3;
  const std::vector<std::pair<std::string, model::model>> models{
      {"far", model::model(opt_test::shifted_parabola{4.0})},
      {"near", model::model(opt_test::shifted_parabola{0.3})}};
  opt::history log;
  const auto r =
      opt::optimize_over_models(models, s.base, s.objectives, s.constraints, s.optimizer, log);
  CHECK(r.regret(0, 1) >= 0.0);
  CHECK(r.regret(1, 0) >= 0.0);
  for (const auto& o : r.optima) {
    CHECK_FALSE(o.converged);
    CHECK_THAT(o.convergence, Contains("not converged"));
  }
}

TEST_CASE("the mean-regret design minimises the average regret") {
  auto s = parabola_study("cobyla");
  s.optimizer.over_models = opt::model_aggregate::mean;
  opt::history log;
  const auto r = opt::optimize_over_models(three_models(), s.base, s.objectives, s.constraints,
                                           s.optimizer, log);
  // mean_j (x - c_j)^2 is least at the mean of the c_j.
  CHECK(r.robust.x[0] == Approx((1.0 + 3.0 + 2.5) / 3).margin(2e-3));
}

TEST_CASE("one model: a 1 x 1 regret matrix and no design over models, and bad lists are rejected") {
  const auto s = parabola_study("cobyla");
  opt::history log;
  const auto r = opt::optimize_over_models({{"only", s.base.model}}, s.base, s.objectives,
                                           s.constraints, s.optimizer, log);
  CHECK(r.regret.size() == 1);
  CHECK(r.regret(0, 0) == 0.0);
  CHECK_FALSE(r.has_robust);
  CHECK_THROWS_WITH(opt::optimize_over_models({{"a", s.base.model}, {"a", s.base.model}}, s.base,
                                              s.objectives, s.constraints, s.optimizer, log),
                    Contains("used twice"));
}
