// Simulations per second of the 60 ms pin-slot validation case of Skrinjar et al. (003_...,
// Section 5, Table 3 settings), single thread, per joint type and contact law. Counters report the
// impacts and steps so that runs can be compared.

#include <benchmark/benchmark.h>

#include "contactuq/multibody/pinslot.hpp"

using namespace contactuq::multibody;

namespace {

void run(benchmark::State& state, joint_type joint, const char* law) {
  auto p = pinslot_defaults(joint);
  p.contact.law = law;
  const auto o = pinslot_simulation_defaults();
  pinslot_result r;
  for (auto _ : state) {
    r = simulate_pinslot(p, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["impacts"] = static_cast<double>(r.impacts);
  state.counters["steps"] = static_cast<double>(r.simulation.steps);
  state.counters["peak_force"] = r.peak_force;
}

void BM_pinslot_pscj_ln(benchmark::State& s) { run(s, joint_type::pscj, "lankarani_nikravesh"); }
void BM_pinslot_rcj_ln(benchmark::State& s) { run(s, joint_type::rcj, "lankarani_nikravesh"); }
void BM_pinslot_irj(benchmark::State& s) { run(s, joint_type::irj, "lankarani_nikravesh"); }
void BM_pinslot_pscj_hertz(benchmark::State& s) { run(s, joint_type::pscj, "hertz"); }
void BM_pinslot_pscj_johnson(benchmark::State& s) { run(s, joint_type::pscj, "johnson_cylinder"); }
void BM_pinslot_pscj_kelvin_voigt(benchmark::State& s) { run(s, joint_type::pscj, "kelvin_voigt_cr"); }

}  // namespace

BENCHMARK(BM_pinslot_pscj_ln)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pinslot_rcj_ln)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pinslot_irj)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pinslot_pscj_hertz)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pinslot_pscj_johnson)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pinslot_pscj_kelvin_voigt)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
