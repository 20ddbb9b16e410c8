// Every optimiser against analytic robust problems whose CRN optimum is known in closed form.
#include "contactuq/opt/optimizer.hpp"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <memory>

#include "analytic_models.hpp"
#include "contactuq/opt/optimization_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

struct setup {
  opt::optimization_study study;
  opt::robust_problem problem;
};

setup make(const std::string& optimization, int samples = 64) {
  opt_test::register_models();
  auto s = opt::read_optimization_study(io::study_document::parse(
      opt_test::quadratic_study(optimization, samples), "quadratic.toml"));
  auto p = opt::make_robust_problem(s.base, s.base.model, s.objectives, s.constraints);
  return {std::move(s), std::move(p)};
}

// Sample mean and sd (N - 1) of the xi column.
std::pair<double, double> moments(const opt::robust_problem& p) {
  const auto xi = p.samples().col(2);
  const auto n = static_cast<double>(xi.size());
  double m = 0, ss = 0;
  for (Eigen::Index i = 0; i < xi.size(); ++i) m += xi(i);
  m /= n;
  for (Eigen::Index i = 0; i < xi.size(); ++i) ss += (xi(i) - m) * (xi(i) - m);
  return {m, std::sqrt(ss / (n - 1))};
}

opt::optimizer_options options_for(opt::algorithm a) {
  opt::optimizer_options o;
  o.method = a;
  o.seed = 11;
  o.population = 24;
  o.generations = a == opt::algorithm::sga ? 150 : 60;
  o.evaluations = 300;
  o.xtol = 1e-8;
  o.global = opt::algorithm::cmaes;
  o.generations = a == opt::algorithm::hybrid ? 10 : o.generations;
  return o;
}

double tolerance_for(opt::algorithm a) {
  switch (a) {
    case opt::algorithm::sga:
      return 0.08;  // a plain GA converges slowly near the optimum
    case opt::algorithm::de:
    case opt::algorithm::cmaes:
      return 2e-3;
    default:
      return 2e-4;
  }
}

}  // namespace

TEST_CASE("every optimiser finds the robust optimum of mean + 3 sd, away from the nominal one") {
  const auto a = GENERATE(opt::algorithm::sga, opt::algorithm::de, opt::algorithm::cmaes,
                          opt::algorithm::slsqp, opt::algorithm::mma, opt::algorithm::lbfgs,
                          opt::algorithm::cobyla, opt::algorithm::bobyqa, opt::algorithm::hybrid);
  CAPTURE(opt::to_string(a));
  auto [s, p] = make(R"([[optimization.objective]]
output = "y"
statistic = "mean_plus_sd"
kappa = 3
)");
  const auto [m, sd] = moments(p);
  // J = (x1-2)^2 + (x2-1)^2 + (x1+x2)(m + 3 sd)/2 for x1 + x2 > 0: stationary where
  // 2 (x1 - 2) + (m + 3 sd)/2 = 0, and likewise for x2.
  const double shift = (m + 3 * sd) / 4;
  const std::vector<double> expected{2 - shift, 1 - shift};
  const double j_star = 2 * shift * shift + (expected[0] + expected[1]) * (m + 3 * sd) / 2;

  opt::history log;
  const auto r = opt::optimize(p, s.start(), options_for(a), log);
  CHECK(r.status == "optimal");
  CHECK(r.feasible);
  CHECK(r.x[0] == Approx(expected[0]).margin(tolerance_for(a)));
  CHECK(r.x[1] == Approx(expected[1]).margin(tolerance_for(a)));
  CHECK(r.value.objectives[0] ==
        Approx(j_star).margin(tolerance_for(a) * tolerance_for(a) * 4 + 1e-9));
  // The robust optimum is not the nominal one (2, 1).
  CHECK(std::hypot(r.x[0] - 2, r.x[1] - 1) > 0.9);
  // Every evaluation is in the history, and the reported design is one of them.
  CHECK(r.evaluations == log.records().size());
  CHECK(std::any_of(log.records().begin(), log.records().end(),
                    [&](const auto& rec) { return rec.x == r.x; }));
  CHECK(log.records().front().x == s.start());
}

TEST_CASE("optimisers meet a chance constraint at its CRN boundary") {
  // min mean(y) subject to P(x1 + xi > 1) <= 0.1: unconstrained x1 = 2 - m/4 is infeasible, so
  // x1 sits on the boundary. Sharp indicator (global methods): at most 10 of the 100 samples
  // may exceed, x1 <= 1 - xi_(90) (ascending, 1-based). Smoothed with width w (local methods):
  // (1/N) sum_i 1 / (1 + exp(-(x1 + xi_i - 1) / w)) = 0.1, solved here by bisection.
  const auto a = GENERATE(opt::algorithm::de, opt::algorithm::cmaes, opt::algorithm::slsqp,
                          opt::algorithm::mma, opt::algorithm::cobyla, opt::algorithm::lbfgs,
                          opt::algorithm::bobyqa);
  CAPTURE(opt::to_string(a));
  const bool smooth = !opt::is_global(a);
  const double w = 0.05;
  auto [s, p] = make(std::string(R"([[optimization.objective]]
output = "y"
statistic = "mean"
[[optimization.constraint]]
output = "g"
statistic = "probability"
above = 1.0
max = 0.1
)") + (smooth ? "smoothing = 0.05\n" : ""),
                     100);
  std::vector<double> xi;
  for (Eigen::Index i = 0; i < p.samples().rows(); ++i) xi.push_back(p.samples()(i, 2));
  std::sort(xi.begin(), xi.end());
  double boundary = 1 - xi[89];
  if (smooth) {
    double lo = -1, hi = 1;
    for (int k = 0; k < 100; ++k) {
      const double mid = (lo + hi) / 2;
      double prob = 0;
      for (double v : xi) prob += 1 / (1 + std::exp(-(mid + v - 1) / w));
      (prob / 100 > 0.1 ? hi : lo) = mid;
    }
    boundary = lo;
  }
  const auto [m, sd] = moments(p);
  auto o = options_for(a);
  o.evaluations = 400;
  opt::history log;
  const auto r = opt::optimize(p, s.start(), o, log);
  CHECK(r.feasible);
  CHECK(r.value.constraints[0] <= 0.1 + 1e-6);
  CHECK(r.x[0] == Approx(boundary).margin(smooth ? 2e-3 : 0.01));
  if (!smooth) CHECK(r.x[0] <= boundary);
  CHECK(r.x[1] == Approx(1 - m / 4).margin(smooth ? 2e-3 : 0.01));
}

TEST_CASE("an infeasible problem is reported as infeasible with the least-violating design") {
  // mean(h) = x1^2 + x2^2 + 1 + 0.1 m > 0.5 everywhere; least violation at (0, 0).
  const auto a = GENERATE(opt::algorithm::de, opt::algorithm::slsqp, opt::algorithm::cobyla,
                          opt::algorithm::hybrid);
  CAPTURE(opt::to_string(a));
  auto [s, p] = make(R"([[optimization.objective]]
output = "y"
statistic = "mean"
[[optimization.constraint]]
output = "h"
statistic = "mean"
max = 0.5
)");
  auto o = options_for(a);
  o.generations = 30;
  opt::history log;
  const std::vector<double> start{3.0, 2.0};
  const auto r = opt::optimize(p, start, o, log);
  CHECK(r.status == "infeasible");
  CHECK_FALSE(r.feasible);
  CHECK(r.value.violation > 0.9);  // (1 - 0.5) / 0.5, at least
  CHECK(r.x[0] == Approx(0).margin(0.02));
  CHECK(r.x[1] == Approx(0).margin(0.02));
  // No evaluated design has less violation.
  for (const auto& rec : log.records()) CHECK(rec.value.violation >= r.value.violation);
}

TEST_CASE("nsga2 finds the Pareto front of two objectives") {
  auto [s, p] = make(R"(algorithm = "nsga2"
population = 40
[[optimization.objective]]
output = "a"
statistic = "mean"
[[optimization.objective]]
output = "b"
statistic = "mean"
)",
                     16);
  auto o = s.optimizer;
  o.generations = 60;
  opt::history log;
  const auto r = opt::optimize(p, s.start(), o, log);
  REQUIRE(r.pareto_objectives.size() >= 10);
  for (const auto& f : r.pareto_objectives)
    CHECK(std::sqrt(f[0]) + std::sqrt(f[1]) == Approx(2).margin(0.05));
  CHECK(r.pareto_objectives.front()[0] < 0.05);
  CHECK(r.pareto_objectives.back()[1] < 0.05);
  CHECK(std::is_sorted(r.pareto_objectives.begin(), r.pareto_objectives.end()));
  // A single objective for nsga2, or two for another algorithm, is an error.
  o.method = opt::algorithm::de;
  CHECK_THROWS_WITH(opt::optimize(p, s.start(), o, log), Contains("nsga2"));
}

TEST_CASE("a run replayed from an interrupted history goes on exactly as an uninterrupted one") {
  const auto a = GENERATE(opt::algorithm::hybrid, opt::algorithm::cmaes, opt::algorithm::slsqp);
  CAPTURE(opt::to_string(a));
  auto [s, p] = make(R"([[optimization.objective]]
output = "y"
statistic = "mean_plus_sd"
[[optimization.constraint]]
output = "g"
statistic = "probability"
above = 2.0
smoothing = 0.01
max = 0.05
)");
  auto o = options_for(a);
  o.generations = 8;
  opt::history full;
  const auto r = opt::optimize(p, s.start(), o, full);

  opt::history first;
  first.max_new = full.records().size() / 2;
  CHECK_THROWS_AS(opt::optimize(p, s.start(), o, first), opt::interrupted);
  REQUIRE(first.records().size() <= first.max_new);
  REQUIRE(!first.records().empty());

  opt::history resumed(first.records());
  const auto again = opt::optimize(p, s.start(), o, resumed);
  CHECK(resumed.replayed() == first.records().size());
  CHECK(resumed.computed() == full.records().size() - first.records().size());
  CHECK_FALSE(resumed.diverged());
  REQUIRE(resumed.records().size() == full.records().size());
  for (std::size_t i = 0; i < full.records().size(); ++i) {
    const auto& x = full.records()[i];
    const auto& y = resumed.records()[i];
    CHECK((x.x == y.x && x.stage == y.stage && x.value.objectives == y.value.objectives &&
           x.value.constraints == y.value.constraints));
  }
  CHECK(again.x == r.x);
  CHECK(again.value.objectives == r.value.objectives);
}

TEST_CASE("options are validated with the field named") {
  opt::optimizer_options o;
  o.method = opt::algorithm::nsga2;
  o.population = 22;
  CHECK_THROWS_WITH(o.validate(), Contains("population") && Contains("multiple of 4"));
  o = {};
  o.global = opt::algorithm::slsqp;
  CHECK_THROWS_WITH(o.validate(), Contains("global"));
  o = {};
  o.gradient_step = 0;
  CHECK_THROWS_WITH(o.validate(), Contains("gradient_step"));
  CHECK_THROWS_WITH(opt::parse_algorithm("simplex"), Contains("bobyqa"));
  auto [s, p] = make(R"([[optimization.objective]]
output = "y"
statistic = "mean"
)");
  opt::history log;
  CHECK_THROWS_WITH(opt::optimize(p, std::vector<double>{5.0, 0.0}, {}, log), Contains("outside"));
}

namespace {
// y = (x - 1)^2 + xi; declares no thread safety and counts how many calls overlap.
struct unsafe_parabola {
  std::shared_ptr<std::atomic<int>> active = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> most = std::make_shared<std::atomic<int>>(0);
  std::vector<model::variable> inputs() const {
    return {{"x", units::dimensionless, 0.0}, {"xi", units::dimensionless, 0.0}};
  }
  std::vector<model::variable> outputs() const { return {{"y", units::dimensionless}}; }
  model::evaluation evaluate(std::span<const double> x) const {
    const int now = ++*active;
    int seen = most->load();
    while (now > seen && !most->compare_exchange_weak(seen, now)) {
    }
    volatile double work = 0;
    for (int i = 0; i < 2000; ++i) work = work + std::sqrt(static_cast<double>(i));
    --*active;
    return {{(x[0] - 1) * (x[0] - 1) + x[1]}, {}};
  }
};
}  // namespace

TEST_CASE("a model that is not thread safe is never evaluated by two threads at once") {
  unsafe_parabola m;
  io::sample_matrix samples(16, 2);
  for (Eigen::Index i = 0; i < 16; ++i) samples(i, 1) = 0.01 * static_cast<double>(i);
  opt::robust_problem p(model::model(m), samples, {0}, {-2}, {3}, {{{"y"}}}, {});
  opt::optimizer_options o;
  o.method = opt::algorithm::de;
  o.population = 16;
  o.generations = 5;
  opt::history log;
  const auto r = opt::optimize(p, std::vector<double>{0.0}, o, log);
  CHECK(*m.most == 1);
  CHECK(r.x[0] == Approx(1.0).margin(0.2));
}
