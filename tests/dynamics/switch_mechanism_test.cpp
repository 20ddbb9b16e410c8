#include "contactuq/dynamics/switch_mechanism.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <iostream>
#include <numbers>
#include <fmt/format.h>

#include "contactuq/contact/material.hpp"

using namespace contactuq;
using namespace contactuq::dynamics;

namespace {

constexpr double inch = 0.0254;
constexpr double deg = std::numbers::pi / 180;
constexpr double lbf = 4.4482216152605;

const contact::material_table& materials() {
  static const auto table = contact::material_table::load(CONTACTUQ_SOURCE_DIR "/data/materials.toml");
  return table;
}

switch_params nominal() {
  switch_params p;
  p.m1 = 4e-3;
  p.m2 = 1.5e-3;
  p.m3 = 8e-3;
  p.k_d = 100;
  p.F0 = 1.0;
  p.k12 = 2000;
  p.c12 = 0.35;
  p.k3 = 50000;
  p.c3 = 10;
  p.g0 = 4.0e-3;
  auto& q = p.receptacle;
  q.Rr = 0.060 * inch;
  q.Rp = 0.015 * inch;
  q.phi = 15 * deg;
  q.Rt = 0.003 * inch;
  q.h = 0.0375 * inch;
  q.R = 0.025 * inch;
  q.b = 0.0045 * inch;
  q.L = 0.316 * inch;
  q.K = 0.0116 * lbf * inch / deg;
  q.mu = 0.21;
  q.theta0 = 0;
  p.d0 = 0.369 * inch;
  p.arms = 2;
  p.v_t = 0.01;
  return p;
}

contact::contact_pair pair() {
  contact::register_builtin_laws();
  contact::contact_pair c;
  c.body_1 = materials().at("steel_aisi_1045");
  c.body_2 = materials().at("steel_aisi_1045");
  c.radius_1 = 1e-3;
  c.radius_2 = contact::flat_radius;
  return c;
}

contact::contact_law law(const std::string& name, std::map<std::string, double> values = {}) {
  return contact::make_law(name, contact::law_inputs{pair(), std::move(values)});
}

}  // namespace

TEST_CASE("switch: explore", "[.explore]") {
  for (auto [name, values] : std::vector<std::pair<std::string, std::map<std::string, double>>>{
           {"cor", {{"restitution", 0.8}}},
           {"kelvin_voigt", {}},
           {"brake", {}},
           {"etsion", {}},
           {"thornton", {}},
           {"hertz", {}},
           {"hunt_crossley", {{"restitution", 0.8}}}}) {
    const auto l = law(name, values);
    auto t0 = std::chrono::steady_clock::now();
    switch_result r;
    int reps = 20;
    for (int i = 0; i < reps; ++i) r = simulate_switch(nominal(), l);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
    std::cout << name << " status " << int(r.status) << " " << r.message << " closed " << r.closed << " tclose "
              << r.closure_time << " timp " << r.impact_time << " vimp " << r.impact_velocity << " e1 "
              << r.first_restitution << " impacts " << r.impacts << " contacts " << r.contacts << " rebound "
              << r.rebound_amplitude << " settle " << r.settling_time << " chatter " << r.chatter << " margin " << r.closure_margin << " Fpk "
              << r.peak_contact_force << " res " << r.residual_indentation << " steps " << r.steps << " rhs "
              << r.rhs_evaluations << " restarts " << r.restarts << " ms " << ms << "\n";
    const auto& en = r.energy;
    std::cout << "   W " << en.drive_work << " K " << en.kinetic << " U " << en.stored << " Dc "
              << en.dissipated_contact << " Dd " << en.dissipated_dampers << " Dr " << en.dissipated_receptacle
              << " balance " << (en.drive_work - en.kinetic - en.stored - en.dissipated()) / en.drive_work
              << " x1 " << r.x1 << " x2 " << r.x2 << " x3 " << r.x3 << " xcr4 " << r.closure_position << "\n";
    for (const auto& n : r.notes) std::cout << "   note: " << n << "\n";
  }
}

TEST_CASE("switch: explore variants", "[.explore2]") {
  auto show = [](const std::string& tag, const switch_result& r) {
    std::cout << tag << " status " << int(r.status) << " " << r.message << " closed " << r.closed << " tclose "
              << r.closure_time << " vimp " << r.impact_velocity << " e1 " << r.first_restitution << " impacts "
              << r.impacts << " rebound " << r.rebound_amplitude << " settle " << r.settling_time << " chatter "
              << r.chatter << " margin " << r.closure_margin << " Fpk " << r.peak_contact_force << " steps " << r.steps << " x2 " << r.x2 << "\n";
    const auto& en = r.energy;
    std::cout << "   W " << en.drive_work << " K " << en.kinetic << " U " << en.stored << " Dc " << en.dissipated_contact
              << " Dd " << en.dissipated_dampers << " Dr " << en.dissipated_receptacle << "\n";
    for (const auto& n : r.notes) std::cout << "   note: " << n << "\n";
  };
  for (double F0 : {0.05, 0.1, 0.15, 0.2, 1.0, 1.5, 2.0, 3.0}) {
    auto p = nominal();
    p.F0 = F0;
    for (const char* name : {"brake", "thornton", "etsion", "kelvin_voigt"})
      show(fmt::format("F0={} {}", F0, name), simulate_switch(p, law(name)));
  }
  {
    auto p = nominal();
    p.receptacle.mu = 0;
    p.c12 = 0;
    p.c3 = 0;
    show("conservative hertz", simulate_switch(p, law("hertz")));
  }
}

TEST_CASE("switch: dump", "[.dump]") {
  auto p = nominal();
  switch_options o;
  o.curve_points = 2001;
  const auto r = simulate_switch(p, law("brake"), o);
  std::FILE* f = std::fopen("/tmp/switch_dump.csv", "w");
  for (std::size_t k = 0; k < r.time.size(); ++k)
    std::fprintf(f, "%g,%g,%g,%g,%g\n", r.time[k], r.slider[k], r.carrier[k], r.stop[k], r.force[k]);
  std::fclose(f);
}

TEST_CASE("switch: tolerances", "[.tol]") {
  for (const char* name : {"cor", "kelvin_voigt", "brake", "etsion", "thornton"}) {
    std::map<std::string, double> v;
    if (std::string(name) == "cor") v["restitution"] = 0.8;
    const auto l = law(name, v);
    for (auto [rt, at] : std::vector<std::pair<double, double>>{{1e-10, 1e-11}, {1e-8, 1e-9}, {1e-7, 1e-8}, {1e-6, 1e-7}, {1e-6, 1e-6}}) {
      switch_options o;
      o.relative_tolerance = rt;
      o.absolute_tolerance = at;
      o.curve_points = 0;
      auto t0 = std::chrono::steady_clock::now();
      switch_result r;
      for (int i = 0; i < 10; ++i) r = simulate_switch(nominal(), l, o);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 10;
      std::cout << fmt::format("{:13s} rt {:g} at {:g}: vimp {:.6f} e1 {:.5f} imp {} cont {} reb {:.4g} settle {:.4g} margin {:.5g} Fpk {:.5g} res {:.4g} diss {:.6g} steps {} restarts {} ms {:.2f}\n",
                               name, rt, at, r.impact_velocity, r.first_restitution, r.impacts, r.contacts, r.rebound_amplitude, r.settling_time, r.closure_margin, r.peak_contact_force, r.residual_indentation, r.energy.dissipated(), r.steps, r.restarts, ms);
    }
  }
}
