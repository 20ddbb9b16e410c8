// Time of a calibration (contactuq fit) on data like the shipped
// data/insertion/williams_synthetic.csv: five insertions of 250 points per stroke with noise,
// position scatter, misalignment and ripple, K, mu, d0 free; one Levenberg–Marquardt start and
// eight, on one thread.
#include <benchmark/benchmark.h>

#include "contactuq/calibrate/fit.hpp"
#include "contactuq/calibrate/synthetic.hpp"
#include "contactuq/units/quantity.hpp"

namespace {

namespace cal = contactuq::calibrate;
namespace u = contactuq::units;

struct setup {
  cal::insertion_model model;
  cal::insertion_data data;
  cal::fit_options options;
};

setup make_setup(int starts) {
  const double in = 0.0254, k = u::to_si("1 lbf*in/deg", u::torsional_stiffness);
  contactuq::contact::receptacle_pin_params p;
  p.Rr = 0.060 * in;
  p.Rp = 0.015 * in;
  p.phi = u::to_si("15 deg", u::angle);
  p.Rt = 0.003 * in;
  p.h = 0.0375 * in;
  p.R = 0.025 * in;
  p.b = 0.0045 * in;
  p.L = 0.316 * in;
  p.K = 0.0116 * k;
  p.mu = 0.21;
  const std::vector<contactuq::contact::arm_group> arms = {
      {0.369 * in, contactuq::contact::arm_direction::engage, 2}};
  cal::synthetic_options s;
  s.insertions = 5;
  s.to = 0.25 * in;
  s.points = 250;
  s.seed = 2011;
  s.noise_sd = 0.05 * 9.80665e-3;
  s.position_sd = 0.002 * in;
  s.misalignment_sd = 0.001 * in;
  s.ripple = 0.06;
  s.ripple_wavelength = 0.01 * in;
  setup out{{p, arms, 10.0}, cal::make_synthetic(p, arms, s).data, {}};
  out.model.params.K = 0.008 * k;  // first start as in studies/fit_williams.toml
  out.model.params.mu = 0.1;
  out.model.groups[0].d0 = 0.36 * in;
  out.options.parameters = {{"K", 0.004 * k, 0.03 * k, std::nullopt},
                            {"mu", 0.0, 0.45, std::nullopt},
                            {"g1_d0", 0.34 * in, 0.40 * in, std::nullopt}};
  out.options.starts = starts;
  out.options.parallel = false;
  return out;
}

void fit_williams(benchmark::State& state) {
  const setup s = make_setup(static_cast<int>(state.range(0)));
  int sweeps = 0;
  for (auto _ : state) {
    const auto r = cal::fit(s.model, s.data, s.options);
    sweeps = r.evaluations;
    benchmark::DoNotOptimize(r.cost);
  }
  state.counters["model_sweeps"] = sweeps;
  state.counters["points"] = static_cast<double>(s.data.points());
}
BENCHMARK(fit_williams)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
