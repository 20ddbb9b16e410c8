// Switch closings simulated per second, single thread: the nominal design of
// studies/switch_nominal.toml (40 ms after release, rtol 1e-6, atol 1e-7 of the state scales)
// with each of the six contact models of Brake 2014's comparison, through the model interface
// as a sampling study calls it (law built from the inputs, simulation, outputs). The _curves
// variant also fills the four 201-point curves. Counters: integrator steps, right-hand side
// evaluations and impacts of one evaluation.

#include <benchmark/benchmark.h>

#include <numbers>
#include <string>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/model/switch_model.hpp"

using namespace contactuq;

namespace {

constexpr double inch = 0.0254;
constexpr double deg = std::numbers::pi / 180;
constexpr double lbf = 4.4482216152605;

// AISI 1045, cold drawn (data/materials.toml).
contact::material steel() { return {"steel_aisi_1045", "", 205e9, 0.29, 530e6, 7870, 163, "", ""}; }

model::switch_setup nominal(const std::string& law, int curve_points) {
  model::switch_setup s;
  s.law = law;
  auto& p = s.params;
  p.m1 = 4e-3, p.m2 = 1.5e-3, p.m3 = 8e-3;
  p.k_d = 100, p.F0 = 1.0;
  p.k12 = 2000, p.c12 = 0.35;
  p.k3 = 50000, p.c3 = 10;
  p.g0 = 4e-3;
  p.receptacle = {0.060 * inch,
                  0.015 * inch,
                  15 * deg,
                  0.003 * inch,
                  0.0375 * inch,
                  0.025 * inch,
                  0.316 * inch,
                  0.0045 * inch,
                  0.0116 * lbf * inch / deg,
                  0.21,
                  0.0};
  p.d0 = 0.369 * inch;
  p.arms = 2;
  p.v_t = 0.01;
  s.radius = 1e-3;
  s.sphere = steel();
  s.flat = steel();
  if (law == "cor") s.law_parameters["restitution"] = 0.8;
  s.options.curve_points = curve_points;
  return s;
}

void run(benchmark::State& state, const std::string& law, int curve_points = 0) {
  const model::switch_model m(nominal(law, curve_points));
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  model::evaluation e;
  for (auto _ : state) {
    e = m.evaluate(x);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
  const auto r = m.simulate(x);
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["rhs"] = static_cast<double>(r.rhs_evaluations);
  state.counters["impacts"] = r.impacts;
}

void BM_switch_cor(benchmark::State& s) { run(s, "cor"); }
void BM_switch_cor_thornton(benchmark::State& s) { run(s, "cor_thornton"); }
void BM_switch_kelvin_voigt(benchmark::State& s) { run(s, "kelvin_voigt"); }
void BM_switch_brake(benchmark::State& s) { run(s, "brake"); }
void BM_switch_etsion(benchmark::State& s) { run(s, "etsion"); }
void BM_switch_thornton(benchmark::State& s) { run(s, "thornton"); }
void BM_switch_thornton_curves(benchmark::State& s) { run(s, "thornton", 201); }

}  // namespace

BENCHMARK(BM_switch_cor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_switch_cor_thornton)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_switch_kelvin_voigt)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_switch_brake)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_switch_etsion)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_switch_thornton)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_switch_thornton_curves)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
