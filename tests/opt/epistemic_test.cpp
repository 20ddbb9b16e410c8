// Optimising under several models: regret matrix and the design over all models.
#include "contactuq/opt/epistemic.hpp"

#include <catch2/catch.hpp>

#include "analytic_models.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/opt/optimization_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

// x in [-2, 6] from 0, xi ~ U(-0.5, 0.5), minimise mean(y); y = (x - c)^2 + xi.
opt::optimization_study parabola_study(const std::string& algorithm) {
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
                      [](const auto& rec) { return rec.stage == opt::phase::cross; }) == 9);
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
