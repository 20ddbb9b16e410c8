// Threaded starts simulated per second, single thread (threaded/threaded_insertion.hpp): an
// M8x1.25 6g steel bolt under the default RCC grasp, 4 gripper turns at 2 rev/s, 32 points per
// turn per probe curve (default 32), CVODE BDF at rtol 1e-4.
//   nominal:    in phase, coaxial (no contact: the cost of the free start)
//   misaligned: 0.3 mm lateral offset, 1 deg tilt, 60 deg phase error (contacts all the way)
//   misaligned_thesis_sampling: the same at the thesis's 400 points per turn (the reference)
// bench/run_threaded.sh turns them into RATIO lines.
// Counters: integrator steps, right-hand side evaluations, outcome code.

#include <benchmark/benchmark.h>

#include <numbers>

#include "contactuq/threaded/threaded_insertion.hpp"

using namespace contactuq::threaded;

namespace {

constexpr double deg = std::numbers::pi / 180;

void run(benchmark::State& state, const insertion_params& p) {
  insertion_result r;
  for (auto _ : state) {
    r = simulate_insertion(p);
    benchmark::DoNotOptimize(r.engagement_margin);
  }
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["rhs"] = static_cast<double>(r.rhs_evaluations);
  state.counters["outcome"] = static_cast<double>(static_cast<int>(r.outcome));
}

void nominal(benchmark::State& state) { run(state, insertion_params{}); }

insertion_params misaligned_start() {
  insertion_params p;
  p.lateral_offset = 0.3e-3;
  p.tilt = 1 * deg;
  p.phase = 60 * deg;
  return p;
}

void misaligned(benchmark::State& state) { run(state, misaligned_start()); }

// The reference: the same start with the probe curves sampled at the thesis's 400 points per turn
// (Nicolson §3.4.2) instead of 32.
void misaligned_thesis_sampling(benchmark::State& state) {
  insertion_params p = misaligned_start();
  p.points_per_turn = 400;
  run(state, p);
}

}  // namespace

BENCHMARK(nominal)->Unit(benchmark::kMillisecond);
BENCHMARK(misaligned)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(misaligned_thesis_sampling)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
