// Impacts simulated per second, single thread: a 10 mm AISI 1045 steel sphere on a steel flat at
// 1 m/s (the case bench/peers/impact_peer.py computes with SciPy), rtol 1e-10, atol 1e-12 of the
// state scales, with the default integrator (dopri5) and with CVODE (the _cvode variants).
// Counters report the restitution so that bench/run_impact_peer.sh can check both sides computed
// the same thing.

#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/dynamics/single_impact.hpp"

using namespace contactuq::contact;
using namespace contactuq::dynamics;

namespace {

// AISI 1045, cold drawn (data/materials.toml).
material steel() { return {"steel_aisi_1045", "", 205e9, 0.29, 530e6, 7870, 163, "", ""}; }

contact_law make(const std::string& name, std::map<std::string, double> values = {}) {
  register_builtin_laws();
  law_inputs in;
  in.pair = contact_pair{steel(), steel(), 0.01, flat_radius, 0.0, cylinder_contact::external};
  in.values = std::move(values);
  return make_law(name, in);
}

impact_options options(double v0, impact_integrator integrator) {
  impact_options o;
  o.integrator = integrator;
  o.mass_1 = 7870 * 4.0 / 3.0 * std::numbers::pi * 1e-6;
  o.approach_velocity = v0;
  o.relative_tolerance = 1e-10;
  o.absolute_tolerance = 1e-12;
  return o;
}

void run(benchmark::State& state, const contact_law& law,
         impact_integrator integrator = impact_integrator::dopri5) {
  impact_simulator simulator;
  const auto o = options(1.0, integrator);
  impact_result r;
  for (auto _ : state) {
    r = simulator.run(law, o);
    // The whole struct: DoNotOptimize on a lone double corrupts it with this (Debian 1.7)
    // Google Benchmark under GCC.
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["restitution"] = r.restitution;
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["rhs"] = static_cast<double>(r.rhs_evaluations);
}

void BM_impact_hertz(benchmark::State& s) { run(s, make("hertz")); }
void BM_impact_thornton(benchmark::State& s) { run(s, make("thornton")); }
void BM_impact_brake(benchmark::State& s) { run(s, make("brake")); }
void BM_impact_etsion(benchmark::State& s) { run(s, make("etsion")); }
void BM_impact_flores(benchmark::State& s) { run(s, make("flores", {{"restitution", 0.7}})); }
void BM_impact_kelvin_voigt(benchmark::State& s) { run(s, make("kelvin_voigt")); }
constexpr auto cvode = impact_integrator::cvode_adams;
void BM_impact_hertz_cvode(benchmark::State& s) { run(s, make("hertz"), cvode); }
void BM_impact_thornton_cvode(benchmark::State& s) { run(s, make("thornton"), cvode); }
void BM_impact_brake_cvode(benchmark::State& s) { run(s, make("brake"), cvode); }

// A fresh simulator per impact: what simulate_impact() costs (CVODE allocation included).
void BM_impact_hertz_fresh_simulator(benchmark::State& state) {
  const auto law = make("hertz");
  const auto o = options(1.0, impact_integrator::dopri5);
  for (auto _ : state) {
    auto r = simulate_impact(law, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_impact_hertz);
BENCHMARK(BM_impact_thornton);
BENCHMARK(BM_impact_brake);
BENCHMARK(BM_impact_etsion);
BENCHMARK(BM_impact_flores);
BENCHMARK(BM_impact_kelvin_voigt);
BENCHMARK(BM_impact_hertz_cvode);
BENCHMARK(BM_impact_thornton_cvode);
BENCHMARK(BM_impact_brake_cvode);
BENCHMARK(BM_impact_hertz_fresh_simulator);

BENCHMARK_MAIN();
