#include "contactuq/dynamics/single_impact.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <tuple>
#include <vector>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/hysteresis_damping.hpp"
#include "contactuq/contact/material.hpp"
#include "contactuq/contact/thornton.hpp"
#include "contactuq/error.hpp"

using namespace contactuq;
using namespace contactuq::contact;
using namespace contactuq::dynamics;
using Catch::Matchers::Contains;

namespace {

const material_table& materials() {
  static const auto table = material_table::load(CONTACTUQ_SOURCE_DIR "/data/materials.toml");
  return table;
}

// A 10 mm radius AISI 1045 steel sphere dropped on a flat of the same steel.
constexpr double sphere_radius = 0.01;
contact_pair steel_sphere_on_flat() {
  const auto& steel = materials().at("steel_aisi_1045");
  return {steel, steel, sphere_radius, flat_radius, 0.0, cylinder_contact::external};
}
double sphere_mass() {
  return materials().at("steel_aisi_1045").density * 4.0 / 3.0 * std::numbers::pi *
         std::pow(sphere_radius, 3);
}

contact_law law(const std::string& name, std::map<std::string, double> values = {},
                bool with_pair = true) {
  register_builtin_laws();
  law_inputs in;
  if (with_pair) in.pair = steel_sphere_on_flat();
  in.values = std::move(values);
  return make_law(name, in);
}

impact_options options(double v0, impact_integrator integrator = impact_integrator::dopri5) {
  impact_options o;
  o.mass_1 = sphere_mass();
  o.approach_velocity = v0;
  o.integrator = integrator;
  return o;
}

const char* label(impact_integrator i) {
  return i == impact_integrator::cvode_adams ? "cvode_adams" : "dopri5";
}

// Hertz stiffness of the steel pair, K = 4/3 E sqrt(r).
double hertz_k() {
  const auto& s = materials().at("steel_aisi_1045");
  return hertz_stiffness(effective_modulus(s.modulus, s.poisson, s.modulus, s.poisson),
                         sphere_radius);
}

// Area of the force-overlap loop, trapezoids over the recorded samples.
double loop_area(const impact_result& r) {
  double area = 0.0;
  for (std::size_t i = 1; i < r.history.size(); ++i) {
    const auto& a = r.history[i - 1];
    const auto& b = r.history[i];
    area += 0.5 * (a.force + b.force) * (b.overlap - a.overlap);
  }
  return area;  // loading counts positive, unloading negative: the net work absorbed
}

}  // namespace

TEST_CASE("impact: Hertz reproduces the closed-form peak overlap and duration",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const double v0 = GENERATE(0.01, 0.1, 1.0, 10.0);
  const auto r = simulate_impact(law("hertz"), options(v0, integrator));
  REQUIRE(r.ok());
  const double m = sphere_mass();
  const double k = hertz_k();
  // Energy: 1/2 m v0^2 = 2/5 K delta_max^(5/2).
  const double delta_max = std::pow(1.25 * m * v0 * v0 / k, 0.4);
  CHECK(r.peak_overlap == Approx(delta_max).epsilon(1e-8));
  CHECK(r.peak_force == Approx(k * std::pow(delta_max, 1.5)).epsilon(1e-8));
  // Duration 2 delta_max/v0 int_0^1 (1 - x^(5/2))^(-1/2) dx = 4/5 B(2/5, 1/2) delta_max/v0
  // = 2.9432 delta_max / v0 (Johnson, Contact Mechanics, sec. 11.4).
  const double constant = 0.8 * std::beta(0.4, 0.5);
  CHECK(constant == Approx(2.94).margin(0.005));
  CHECK(r.contact_duration == Approx(constant * delta_max / v0).epsilon(1e-6));
  CHECK(r.compression_duration == Approx(0.5 * r.contact_duration).epsilon(1e-6));
  CHECK(r.restitution == Approx(1.0).margin(1e-6));
  CHECK(std::abs(r.energy_dissipated) < 1e-6 * 0.5 * m * v0 * v0);
  CHECK(r.residual_overlap < 1e-9 * delta_max);
}

TEST_CASE("impact: purely elastic laws return e = 1 to 1e-6", "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  using values = std::map<std::string, double>;
  const auto [name, given, with_pair] = GENERATE(table<std::string, values, bool>({
      {"hertz", values{}, true},
      {"hertz", values{{"stiffness", 1e8}, {"exponent", 1.0}}, false},
      {"kelvin_voigt", values{{"damping", 0.0}}, false},
      {"kelvin_voigt_cr", values{{"stiffness", 1e7}, {"restitution", 1.0}}, false},
      {"elastogap", values{{"damping", 0.0}}, true},
      {"elastogap_unbounded", values{{"damping", 0.0}}, true},
      {"lankarani_nikravesh", values{{"restitution", 1.0}}, true},
      {"hunt_crossley", values{{"restitution", 1.0}}, true},
      {"flores", values{{"restitution", 1.0}}, true},
      {"gonthier", values{{"restitution", 1.0}}, true},
      {"johnson_cylinder",
       values{{"modulus", 115e9}, {"radius_difference", 5e-3}, {"length", 0.01}}, false},
      {"brake", values{}, true},     // below yield at this speed
      {"thornton", values{}, true},  // below yield at this speed
      {"etsion", values{}, true},    // below yield at this speed
  }));
  INFO(name);
  for (double v0 : {0.001, 0.004}) {
    const auto r = simulate_impact(law(name, given, with_pair), options(v0, integrator));
    REQUIRE(r.ok());
    CHECK(r.restitution == Approx(1.0).margin(1e-6));
    CHECK(r.residual_overlap < 1e-6 * r.peak_overlap);
  }
}

TEST_CASE("impact: the elastic-plastic laws coincide with Hertz below yield",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const std::string name = GENERATE("brake", "thornton", "etsion");
  INFO(name);
  // Thornton's yield velocity of this pair is about 6 mm/s; stay below the smallest onset.
  const double v0 = 0.002;
  const auto hertz = simulate_impact(law("hertz"), options(v0, integrator));
  const auto r = simulate_impact(law(name), options(v0, integrator));
  REQUIRE(r.ok());
  CHECK(r.peak_overlap == Approx(hertz.peak_overlap).epsilon(1e-8));
  CHECK(r.peak_force == Approx(hertz.peak_force).epsilon(1e-8));
  CHECK(r.contact_duration == Approx(hertz.contact_duration).epsilon(1e-7));
  CHECK(r.restitution == Approx(hertz.restitution).epsilon(1e-7));
}

TEST_CASE("impact: Thornton's simulated restitution matches his closed form",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const auto pair = steel_sphere_on_flat();
  const thornton_params p{effective_modulus(pair.body_1.modulus, pair.body_1.poisson,
                                            pair.body_2.modulus, pair.body_2.poisson),
                          sphere_radius, pair.body_1.yield_strength};
  const double vy = thornton_yield_velocity(p, sphere_mass());
  const double ratio = GENERATE(0.5, 1.0, 1.1, 2.0, 5.0, 20.0, 300.0);
  const auto r = simulate_impact(law("thornton"), options(ratio * vy, integrator));
  REQUIRE(r.ok());
  CHECK(r.restitution == Approx(thornton_restitution(vy, ratio * vy)).epsilon(1e-6));
  if (ratio > 1) CHECK(r.residual_overlap > 0.0);
}

TEST_CASE("impact: hysteresis-damping laws deliver the restitution of the exact relation (H)",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const std::string name = GENERATE("lankarani_nikravesh", "hunt_crossley", "flores", "gonthier");
  const double e = GENERATE(0.3, 0.5, 0.7, 0.9, 0.99);
  const double v0 = GENERATE(0.05, 2.0);
  INFO(name << " e = " << e << " v0 = " << v0);
  const auto r = simulate_impact(law(name, {{"restitution", e}}), options(v0, integrator));
  REQUIRE(r.ok());
  // chi' v0 of each law, Skrinjar eq. (26) and the laws' headers.
  const double x = name == "lankarani_nikravesh" ? 0.75 * (1 - e * e)
                   : name == "hunt_crossley"     ? 1.5 * (1 - e)
                   : name == "flores"            ? 1.6 * (1 - e) / e
                                                 : (1 - e * e) / e;
  CHECK(r.restitution == Approx(hysteresis_restitution(x)).epsilon(1e-6));
  CHECK(r.residual_overlap < 1e-6 * r.peak_overlap);
  // The published behaviour: Flores within a few percent for e >= 0.7 (and -15 % at 0.3);
  // Lankarani-Nikravesh only near e = 1.
  if (name == "flores" && e >= 0.7) CHECK(r.restitution == Approx(e).epsilon(0.025));
  if (name == "flores" && e == 0.3) CHECK(r.restitution == Approx(0.256).margin(0.001));
  if (name == "lankarani_nikravesh" && e >= 0.95) CHECK(r.restitution == Approx(e).epsilon(0.005));
  if (name == "lankarani_nikravesh" && e <= 0.5) CHECK(r.restitution > e + 0.2);
}

TEST_CASE("impact: kelvin_voigt matches the clipped damped oscillator", "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  // Brake 2014 defaults K = 1e7 N/m, C = 280 N*s/m. Until release, delta = v0/w_d e^(-z w t)
  // sin(w_d t); the clipped force K delta + C delta' reaches zero where delta'' = 0.
  const double m = sphere_mass();
  const double k = 1e7, c = 280.0, v0 = 0.5;
  const double w = std::sqrt(k / m), z = c / (2 * std::sqrt(k * m)), wd = w * std::sqrt(1 - z * z);
  // delta'' = 0: tan(wd t) = 2 z w wd / (z^2 w^2 - wd^2), on the branch after the peak overlap.
  const double t_release = (std::atan2(2 * z * w * wd, z * z * w * w - wd * wd)) / wd;
  const double rate = v0 / wd * std::exp(-z * w * t_release) *
                      (wd * std::cos(wd * t_release) - z * w * std::sin(wd * t_release));
  const auto r = simulate_impact(law("kelvin_voigt", {}, false), options(v0, integrator));
  REQUIRE(r.ok());
  CHECK(r.contact_duration == Approx(t_release).epsilon(1e-6));
  CHECK(r.restitution == Approx(-rate / v0).epsilon(1e-6));
  CHECK(r.residual_overlap > 0.0);  // the damper lets go before the overlap closes
  // Peak force: the largest -m delta'' of the closed form, by a fine scan.
  double peak = 0.0;
  for (int i = 0; i <= 200000; ++i) {
    const double t = t_release * i / 200000;
    const double accel =
        v0 / wd * std::exp(-z * w * t) *
        ((z * z * w * w - wd * wd) * std::sin(wd * t) - 2 * z * w * wd * std::cos(wd * t));
    peak = std::max(peak, -m * accel);
  }
  CHECK(r.peak_force == Approx(peak).epsilon(1e-6));
  CHECK(r.peak_force >
        k * r.peak_overlap);  // the damper adds to the spring before the peak overlap
}

TEST_CASE("impact: kelvin_voigt_cr returns sqrt(c_r), not c_r", "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const double cr = GENERATE(0.2, 0.5, 0.9);
  const auto r =
      simulate_impact(law("kelvin_voigt_cr", {{"stiffness", 1e7}, {"restitution", cr}}, false),
                      options(0.3, integrator));
  REQUIRE(r.ok());
  CHECK(r.restitution == Approx(std::sqrt(cr)).epsilon(1e-6));
}

TEST_CASE("impact: energy lost equals the area of the force-overlap loop", "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  using values = std::map<std::string, double>;
  const auto [name, given] = GENERATE(table<std::string, values>({
      {"brake", values{}},
      {"thornton", values{}},
      {"etsion", values{}},
      {"kelvin_voigt", values{}},
      {"kelvin_voigt_cr", values{{"stiffness", 1e7}, {"restitution", 0.5}}},
      {"flores", values{{"restitution", 0.5}}},
      {"hunt_crossley", values{{"restitution", 0.7}}},
      {"elastogap", values{{"damping", 30.0}}},
      {"elastogap_clipped", values{{"damping", 30.0}}},
      {"elastogap_unbounded", values{{"damping", 30.0}}},
  }));
  INFO(name);
  auto o = options(3.0, integrator);
  o.record_history = true;
  o.samples_per_step = 40;
  const auto r =
      simulate_impact(law(name, given, name != "kelvin_voigt" && name != "kelvin_voigt_cr"), o);
  REQUIRE(r.ok());
  const double kinetic = 0.5 * sphere_mass() * 9.0;
  CHECK(r.energy_dissipated > 1e-3 * kinetic);
  CHECK(loop_area(r) == Approx(r.energy_dissipated).margin(2e-5 * kinetic));
  if (name == "elastogap_unbounded") {  // the naive variant pulls before it lets go
    CHECK(std::any_of(r.history.begin(), r.history.end(),
                      [](const impact_sample& s) { return s.force < 0; }));
  } else {
    CHECK(std::all_of(r.history.begin(), r.history.end(),
                      [](const impact_sample& s) { return s.force >= 0; }));
  }
}

TEST_CASE("impact: brake and etsion dissipate where their printed unloading would not",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  // At 1 m/s Brake's peak overlap falls just past delta_p (p0/sigma_y = 3.0, delta_p = 9.1 delta_y
  // for this steel), where eqs. (26)-(27) as printed unload above loading (e = 1.07 before the
  // admissibility bound); at 0.04 m/s Etsion's falls just past yield, where the fits' jump did.
  for (const auto& [name, v0] : {std::pair{"brake", 1.0}, std::pair{"etsion", 0.04}}) {
    INFO(name);
    auto o = options(v0, integrator);
    o.record_history = true;
    o.samples_per_step = 40;
    const auto r = simulate_impact(law(name), o);
    REQUIRE(r.ok());
    const double kinetic = 0.5 * sphere_mass() * v0 * v0;
    CHECK(r.restitution < 1.0);
    CHECK(r.energy_dissipated > 0.0);
    CHECK(r.residual_overlap > 0.0);
    CHECK(loop_area(r) == Approx(r.energy_dissipated).margin(2e-5 * kinetic));
  }
  CHECK(simulate_impact(law("brake"), options(0.1, integrator)).restitution < 0.9);
  CHECK(simulate_impact(law("brake"), options(10.0, integrator)).restitution < 0.75);
}

TEST_CASE("impact: every law is admissible for every material and speed",
          "[dynamics][impact][admissible]") {
  // Every sphere law of studies/impact_models.toml x every built-in material (10 mm sphere on a
  // flat of the same material) x 40 log-spaced speeds from 1 mm/s to 10 m/s:
  //   0 <= e <= 1, energy lost = area of the force-overlap loop, and e from the velocities equal
  //   to e from that loop, sqrt(1 - W / (1/2 m v0^2)).
  // Tolerances follow from the integrator's: at rtol 1e-8 (tightened atol) the elastic laws
  // return e = 1 within 2e-7 (measured), so e <= 1 + 1e-6 leaves noise and nothing else; the
  // loop area is a trapezoid sum over 8 dense-output samples per step, good to ~1e-5 of the
  // kinetic energy, and 1e-4 bounds it.
  using values = std::map<std::string, double>;
  const std::vector<std::tuple<std::string, values, bool>> laws = {
      {"cor", values{{"restitution", 0.8}}, false},
      {"kelvin_voigt", values{{"stiffness", 1e7}, {"damping", 280.0}}, false},
      {"brake", values{}, true},
      {"etsion", values{}, true},
      {"thornton", values{}, true},
      {"hertz", values{}, true},
      {"kelvin_voigt_cr", values{{"stiffness", 1e7}, {"restitution", 0.64}}, false},
      {"lankarani_nikravesh", values{{"restitution", 0.8}}, true},
      {"hunt_crossley", values{{"restitution", 0.8}}, true},
      {"flores", values{{"restitution", 0.8}}, true},
      {"gonthier", values{{"restitution", 0.8}}, true},
      {"elastogap", values{{"damping", 30.0}}, true},
      {"elastogap_unbounded", values{{"damping", 30.0}}, true},
      {"elastogap_clipped", values{{"damping", 30.0}}, true},
  };
  constexpr int speeds = 40;
  register_builtin_laws();
  impact_simulator simulator;
  long impacts = 0;
  for (const auto& [name, given, with_pair] : laws) {
    double worst_e = 0.0, worst_loop = 0.0, worst_agreement = 0.0;
    std::string at_e, at_loop, at_agreement;
    for (const auto& material_name : materials().names()) {
      const auto& m = materials().at(material_name);
      law_inputs in;
      if (with_pair) in.pair = contact_pair{m, m, sphere_radius, flat_radius, 0.0,
                                            cylinder_contact::external};
      in.values = given;
      const auto contact = make_law(name, in);
      const double mass = m.density * 4.0 / 3.0 * std::numbers::pi * std::pow(sphere_radius, 3);
      for (int i = 0; i < speeds; ++i) {
        const double v0 = 1e-3 * std::pow(1e4, i / (speeds - 1.0));
        impact_options o;
        o.mass_1 = mass;
        o.approach_velocity = v0;
        o.relative_tolerance = 1e-8;
        o.absolute_tolerance = 1e-10;
        o.record_history = true;
        o.samples_per_step = 8;
        const auto r = simulator.run(contact, o);
        ++impacts;
        const std::string where = material_name + " at " + std::to_string(v0) + " m/s";
        INFO(name << ", " << where << ": " << r.message);
        REQUIRE(r.ok());
        const double kinetic = 0.5 * mass * v0 * v0;
        CHECK(r.restitution >= 0.0);
        if (r.restitution > worst_e) {
          worst_e = r.restitution;
          at_e = where;
        }
        if (contact.is_impact_map()) continue;  // no loop: the jump of eq. (11)
        const double loop = loop_area(r) / kinetic;
        const double mismatch = std::abs(loop - r.energy_dissipated / kinetic);
        if (mismatch > worst_loop) {
          worst_loop = mismatch;
          at_loop = where;
        }
        const double e_loop = std::sqrt(std::max(0.0, 1 - loop));
        if (std::abs(e_loop - r.restitution) > worst_agreement) {
          worst_agreement = std::abs(e_loop - r.restitution);
          at_agreement = where;
        }
      }
    }
    INFO(name << ": largest e 1 + " << worst_e - 1 << " (" << at_e << "), loop mismatch " << worst_loop
              << " KE (" << at_loop << "), |e_velocity - e_loop| " << worst_agreement << " ("
              << at_agreement << ")");
    CHECK(worst_e <= 1.0 + 1e-6);
    CHECK(worst_loop <= 1e-4);
    CHECK(worst_agreement <= 1e-4);
  }
  CHECK(impacts == 14L * static_cast<long>(materials().names().size()) * speeds);
}

TEST_CASE("impact: cor is a velocity jump, eq. (11)", "[dynamics][impact]") {
  auto o = options(2.0);
  o.mass_2 = 3 * o.mass_1;
  const auto r = simulate_impact(law("cor", {{"restitution", 0.6}}, false), o);
  REQUIRE(r.ok());
  CHECK(r.restitution == 0.6);
  CHECK(r.contact_duration == 0.0);
  CHECK(std::isnan(r.peak_force));
  CHECK(r.velocity_1 - r.velocity_2 == Approx(-0.6 * 2.0));
  CHECK(o.mass_1 * r.velocity_1 + o.mass_2 * r.velocity_2 == Approx(o.mass_1 * 2.0));
  CHECK(r.energy_dissipated == Approx(0.5 * (0.75 * o.mass_1) * 4.0 * (1 - 0.36)));
}

TEST_CASE("impact: two free bodies share momentum through the effective mass",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  auto o = options(1.0, integrator);
  o.mass_2 = 2 * o.mass_1;
  const auto free = simulate_impact(law("thornton"), o);
  auto fixed = options(1.0, integrator);
  fixed.mass_1 = o.mass_1 * o.mass_2 / (o.mass_1 + o.mass_2);
  const auto equivalent = simulate_impact(law("thornton"), fixed);
  REQUIRE(free.ok());
  CHECK(free.restitution == Approx(equivalent.restitution).epsilon(1e-12));
  CHECK(free.peak_force == Approx(equivalent.peak_force).epsilon(1e-12));
  CHECK(o.mass_1 * free.velocity_1 + o.mass_2 * free.velocity_2 ==
        Approx(o.mass_1 * 1.0).epsilon(1e-12));
  CHECK(free.velocity_1 - free.velocity_2 == Approx(-free.restitution).epsilon(1e-12));
}

TEST_CASE("impact: repeated runs are bit-identical and leave the given law untouched",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const auto brake = law("brake");
  impact_simulator simulator;
  const auto a = simulator.run(brake, options(0.7, integrator));
  const auto b = simulator.run(brake, options(0.7, integrator));
  const auto c = simulate_impact(brake, options(0.7, integrator));
  CHECK(a.restitution == b.restitution);
  CHECK(a.peak_force == b.peak_force);
  CHECK(a.restitution == c.restitution);
  CHECK(a.contact_duration == c.contact_duration);
  CHECK(brake.peek_force(0.5 * a.peak_overlap, -1.0) > 0.0);  // still virgin: loading curve
  CHECK(brake.release_margin(1e-9, -1.0) == 1e-9);
}

TEST_CASE("impact: bad options and unanswerable states are reported by name",
          "[dynamics][impact]") {
  const auto integrator = GENERATE(impact_integrator::dopri5, impact_integrator::cvode_adams);
  INFO(label(integrator));
  const auto hertz = law("hertz");
  auto o = options(1.0, integrator);
  o.mass_1 = 0;
  CHECK_THROWS_WITH(simulate_impact(hertz, o), Contains("mass_1 = 0 kg"));
  o = options(-1.0, integrator);
  CHECK_THROWS_WITH(simulate_impact(hertz, o), Contains("approach_velocity = -1 m/s"));
  o = options(1.0, integrator);
  o.relative_tolerance = 0.1;
  CHECK_THROWS_WITH(simulate_impact(hertz, o), Contains("relative_tolerance = 0.1"));
  o = options(1.0, integrator);
  o.samples_per_step = 0;
  CHECK_THROWS_WITH(simulate_impact(hertz, o), Contains("samples_per_step = 0"));
  // Johnson's model carries at most delta* = 4 dR/e^2 = 2.7 um here; a 10 m/s impact overshoots.
  const auto johnson =
      law("johnson_cylinder", {{"modulus", 115e9}, {"radius_difference", 5e-6}, {"length", 1e-3}},
          false);
  const auto r = simulate_impact(johnson, options(10.0, integrator));
  CHECK(r.status == impact_status::model_error);
  CHECK_THAT(r.message, Contains("exceeds"));
  o = options(1.0, integrator);
  o.max_steps = 10;
  const auto short_run = simulate_impact(hertz, o);
  CHECK(short_run.status == impact_status::too_many_steps);
  CHECK_THAT(short_run.message, Contains("max_steps"));
}
