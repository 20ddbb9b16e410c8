// Cost of the sampling layer next to a study's model evaluations: designs, Iman-Conover and
// the bootstrap summary at the sizes of the ensemble benchmark (10^5 samples, 4 inputs).

#include <benchmark/benchmark.h>

#include <vector>

#include "contactuq/uq/design.hpp"
#include "contactuq/uq/distribution.hpp"
#include "contactuq/uq/rank_correlation.hpp"
#include "contactuq/uq/statistics.hpp"

using namespace contactuq::uq;

namespace {

void design(benchmark::State& state, design_kind kind) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const design_options options{.kind = kind, .seed = 1, .maximin_iterations = 10000};
  for (auto _ : state) benchmark::DoNotOptimize(unit_design(n, 4, options));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_monte_carlo(benchmark::State& state) { design(state, design_kind::monte_carlo); }
void bm_latin_hypercube(benchmark::State& state) { design(state, design_kind::latin_hypercube); }
void bm_maximin(benchmark::State& state) { design(state, design_kind::maximin_latin_hypercube); }

void bm_map_to_inputs(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Eigen::MatrixXd u = unit_design(n, 4, {});
  const std::vector<distribution> inputs = {make_normal(0.21, 0.02), make_lognormal(1e-3, 0.1),
                                            make_truncated_normal(0.26, 0.02, 0.2, 0.3),
                                            make_weibull(2.0, 1.0)};
  for (auto _ : state) benchmark::DoNotOptimize(map_to_inputs(u, inputs));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_iman_conover(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Eigen::MatrixXd u = unit_design(n, 4, {});
  Eigen::MatrixXd target = Eigen::MatrixXd::Identity(4, 4);
  target(0, 1) = target(1, 0) = 0.6;
  for (auto _ : state) benchmark::DoNotOptimize(impose_rank_correlation(u, target, 1));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_summarize(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Eigen::MatrixXd u = unit_design(n, 1, {.kind = design_kind::monte_carlo});
  const std::vector<double> values(u.data(), u.data() + u.size());
  for (auto _ : state) benchmark::DoNotOptimize(summarize(values, {.bootstrap_resamples = 1000}));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(bm_monte_carlo)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_latin_hypercube)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_maximin)->Arg(200)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_map_to_inputs)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_iman_conover)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_summarize)->Arg(100000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
