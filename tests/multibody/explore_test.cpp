#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include "contactuq/multibody/pinslot.hpp"
using namespace contactuq::multibody;
TEST_CASE("explore", "[.explore]") {
  for (auto j : {joint_type::pscj, joint_type::rcj, joint_type::irj}) {
    auto p = pinslot_defaults(j);
    if (const char* f0 = std::getenv("F0")) p.force_amplitude = std::atof(f0);
    if (const char* k = std::getenv("K")) p.spring_stiffness = std::atof(k);
    if (const char* k = std::getenv("P")) p.spring_preload = std::atof(k);
    if (const char* k = std::getenv("LAW")) p.contact.law = k;
    auto o = pinslot_simulation_defaults();
    auto t0 = std::chrono::steady_clock::now();
    auto r = simulate_pinslot(p, o);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s status %d %s time %.3f s steps %ld rhs %ld impacts %ld peak %.3f peakf %.3f imp %.5f maxov %.3g onset %.3g\n",
      joint_type_name(j), (int)r.simulation.status, r.simulation.message.c_str(), dt, r.simulation.steps, r.simulation.rhs_evaluations, r.impacts, r.peak_force, r.peak_force_filtered, r.impulse, r.max_overlap, r.max_onset_overlap);
    for (auto& e : r.simulation.impacts) std::printf("   impact t=%.5f f=%s v=%.4f\n", e.time, feature_name(e.feature), e.approach_velocity);
    for (std::size_t i = 0; i < r.fx.size(); i += 128) std::printf("   t=%.4f x0=%.4f y0=%.5f th=%.4f fx=%.3f fy=%.3f fxf=%.3f fyf=%.3f\n", r.simulation.time[i], r.simulation.positions[i*6]*1e3, r.simulation.positions[i*6+1]*1e3, r.simulation.positions[i*6+2], r.fx[i], r.fy[i], r.fx_filtered[i], r.fy_filtered[i]);
  }
}
