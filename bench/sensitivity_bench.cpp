// Cost of the sensitivity estimators next to the model evaluations they summarise: Sobol
// indices with bootstrap intervals from a pick-freeze design, and the model-form variance
// decomposition of a nested study (6 model forms, as in Brake 2014), at study sizes.

#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "contactuq/uq/design.hpp"
#include "contactuq/uq/epistemic.hpp"
#include "contactuq/uq/sensitivity.hpp"

using namespace contactuq::uq;

namespace {

// A smooth output with interactions, so the estimators do their usual work.
std::vector<double> outputs(const pick_freeze_design& design) {
  const Eigen::MatrixXd p = design.points();
  std::vector<double> y(static_cast<std::size_t>(p.rows()));
  for (Eigen::Index r = 0; r < p.rows(); ++r) {
    double s = 0.0;
    for (Eigen::Index i = 0; i < p.cols(); ++i) s += std::sin(3.0 * p(r, i)) * (1.0 + p(r, 0));
    y[static_cast<std::size_t>(r)] = s;
  }
  return y;
}

// N rows, 8 inputs, B = 1000 resamples.
void bm_sobol_indices(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const pick_freeze_design design = make_pick_freeze_design(n, 8, {.seed = 1});
  const std::vector<double> y = outputs(design);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sobol_indices(y, design.layout(), {.bootstrap_resamples = 1000}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_pick_freeze_points(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(make_pick_freeze_design(n, 8, {}).points());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

Eigen::MatrixXd nested(std::size_t n) {
  Eigen::MatrixXd y = unit_design(n, 6, {.seed = 2}).transpose();
  for (Eigen::Index k = 0; k < y.rows(); ++k) {
    y.row(k) = (y.row(k).array() * (1.0 + 0.1 * static_cast<double>(k))).matrix();
  }
  return y;
}

// 6 model forms x N aleatoric samples, B = 1000 resamples.
void bm_decompose_model_form(benchmark::State& state) {
  const Eigen::MatrixXd y = nested(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(decompose_model_form(y, {}, {.bootstrap_resamples = 1000}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_probability_box(benchmark::State& state) {
  const Eigen::MatrixXd y = nested(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(make_probability_box(y, std::size_t{200}));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(bm_sobol_indices)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pick_freeze_points)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_decompose_model_form)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_probability_box)->Arg(10000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
