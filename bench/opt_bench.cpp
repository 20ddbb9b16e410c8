// Evaluations per second of the robust objective: one design = the model on every sample of
// the CRN set, then the measures. The receptacle-pin robust design of
// studies/receptacle_robust_design.toml (stroke of 100 points per direction), on 1 and 2
// threads, N = 100 and 400 parts; and the same measures on a trivial model, for the overhead.
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <string>

#include "contactuq/model/registry.hpp"
#include "contactuq/opt/robust_objective.hpp"
#include "contactuq/opt/optimization_study.hpp"

using namespace contactuq;

namespace {

std::string study_text(int samples) {
  return R"(
[model]
type = "receptacle_pin"
Rr = "0.060 in"
Rp = "0.015 in"
phi = "15 deg"
Rt = "0.003 in"
h = "0.026 in"
R = "0.025 in"
b = "-0.007 in"
L = "0.300 in"
K = "0.004 lbf*in/deg"
mu = 0.020
theta0 = "0 deg"
[[model.arms]]
d0 = "0.429 in"
direction = "engage"
count = 2
[[model.arms]]
d0 = "0.222 in"
direction = "disengage"
count = 2
[model.stroke]
from = "0 in"
to = "0.21 in"
points = 100
v_norm = 10
[parameters.K]
role = "design"
low = "0.002 lbf*in/deg"
high = "0.008 lbf*in/deg"
[parameters.g1_d0]
role = "design"
low = "0.400 in"
high = "0.440 in"
[parameters.mu]
role = "aleatoric"
distribution = "uniform"
low = 0.02
high = 0.21
[parameters.theta0]
role = "aleatoric"
distribution = "normal"
mean = "0 deg"
sd = "0.5 deg"
[sampling]
samples = )" +
         std::to_string(samples) +
         R"(
seed = 2026
[optimization]
[[optimization.objective]]
output = "peak_insertion"
statistic = "mean_plus_sd"
[[optimization.constraint]]
output = "peak_withdrawal"
statistic = "probability"
below = "0.5 grf"
smoothing = "0.02 grf"
max = "1 %"
)";
}

opt::robust_problem receptacle_problem(int samples) {
  model::register_builtin_models();
  const auto s =
      opt::read_optimization_study(io::study_document::parse(study_text(samples), "bench.toml"));
  return opt::make_robust_problem(s.base, s.base.model, s.objectives, s.constraints);
}

void robust_objective_receptacle(benchmark::State& state) {
  const auto p = receptacle_problem(static_cast<int>(state.range(0)));
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(state.range(1)));
  const std::vector<double> x{0.0423, 0.0105};  // near the optimum of the study
  for (auto _ : state) benchmark::DoNotOptimize(p.evaluate(x));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["model runs/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}
BENCHMARK(robust_objective_receptacle)
    ->Args({100, 1})
    ->Args({100, 2})
    ->Args({400, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// y = (x1 - 2)^2 + xi x1: the cost of the CRN machinery itself.
struct trivial {
  std::vector<model::variable> inputs() const {
    return {{"x1", units::dimensionless, 0.0}, {"xi", units::dimensionless, 0.0}};
  }
  std::vector<model::variable> outputs() const { return {{"y", units::dimensionless}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    return {{(x[0] - 2) * (x[0] - 2) + x[1] * x[0]}, {}};
  }
};

void robust_objective_trivial(benchmark::State& state) {
  const auto n = static_cast<Eigen::Index>(state.range(0));
  io::sample_matrix samples(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) samples(i, 1) = std::sin(static_cast<double>(i));
  opt::robust_problem p(model::model(trivial{}), samples, {0}, {-1}, {4},
                        {{{"y", opt::statistic::mean_plus_sd}}}, {});
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(state.range(1)));
  const std::vector<double> x{1.0};
  for (auto _ : state) benchmark::DoNotOptimize(p.evaluate(x));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(robust_objective_trivial)
    ->Args({100, 1})
    ->Args({100, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
