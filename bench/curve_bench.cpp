// Google Benchmark: receptacle–pin curve evaluation (Williams Table 1, bifurcated receptacle).
#include <benchmark/benchmark.h>

#include <numbers>

#include "contactuq/contact/receptacle_pin.hpp"

namespace {

using namespace contactuq::contact;
constexpr double inch = 0.0254;
constexpr double deg = std::numbers::pi / 180;

receptacle table1_receptacle() {
  receptacle_pin_params p;
  p.Rr = 0.060 * inch;
  p.Rp = 0.015 * inch;
  p.phi = 15 * deg;
  p.Rt = 0.003 * inch;
  p.h = 0.026 * inch;
  p.R = 0.025 * inch;
  p.b = -0.007 * inch;
  p.L = 0.300 * inch;
  p.K = 0.004 * 4.4482216152605 * inch / deg;
  p.mu = 0.02;
  return receptacle(p, {{0.429 * inch, arm_direction::engage, 2}, {0.222 * inch, arm_direction::disengage, 2}});
}

void curve_500_points(benchmark::State& state) {
  const receptacle r = table1_receptacle();
  const stroke s{0.0, 0.21 * inch, 250, 10.0, true};
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_curve(r, s));
  state.SetItemsProcessed(state.iterations() * 500);
}
BENCHMARK(curve_500_points);

void arm_point(benchmark::State& state) {
  const receptacle r = table1_receptacle();
  const auto& arm = r.arms()[0];
  double x = 0.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(arm.evaluate(x, 10.0));
    x = x > 0.21 * inch ? 0.0 : x + 1e-6;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(arm_point);

void build_receptacle(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(table1_receptacle());
}
BENCHMARK(build_receptacle);

}  // namespace

BENCHMARK_MAIN();
