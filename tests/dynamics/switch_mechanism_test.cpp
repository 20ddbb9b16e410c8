#include "contactuq/dynamics/switch_mechanism.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numbers>
#include <string>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/material.hpp"
#include "contactuq/dynamics/single_impact.hpp"
#include "contactuq/error.hpp"

using namespace contactuq;
using namespace contactuq::dynamics;
using Catch::Matchers::Contains;

namespace {

constexpr double inch = 0.0254;
constexpr double deg = std::numbers::pi / 180;
constexpr double lbf = 4.4482216152605;

const contact::material_table& materials() {
  static const auto table =
      contact::material_table::load(CONTACTUQ_SOURCE_DIR "/data/materials.toml");
  return table;
}

// studies/switch_nominal.toml: the receptacle of Williams Figure 25 with the fitted K, mu, d0.
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
  p.g0 = 4e-3;
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

// A 1 mm radius AISI 1045 ball on an AISI 1045 flat.
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

// Brake's six impact models (001_..., appendix); cor_thornton's e is computed in the model layer,
// here a second constant e stands in for it.
contact::contact_law six_laws(const std::string& name) {
  if (name == "cor") return law("cor", {{"restitution", 0.8}});
  if (name == "cor_low") return law("cor", {{"restitution", 0.2}});
  return law(name);
}

switch_options tight() {
  switch_options o;
  o.relative_tolerance = 1e-10;
  o.absolute_tolerance = 1e-11;
  return o;
}

// Elastic energy of the mechanism's springs at the end state [J].
double spring_energy(const switch_params& p, const switch_result& r) {
  return 0.5 * p.k12 * (r.x1 - r.x2) * (r.x1 - r.x2) + 0.5 * p.k3 * r.x3 * r.x3;
}
double kinetic_energy(const switch_params& p, const switch_result& r) {
  return 0.5 * (p.m1 * r.v1 * r.v1 + p.m2 * r.v2 * r.v2 + p.m3 * r.v3 * r.v3);
}
double drive_work(const switch_params& p, double x1) { return p.F0 * x1 - 0.5 * p.k_d * x1 * x1; }
// n K theta^2 / 2 of the arms at carrier position x2 (Williams (1.2): the arm root spring).
double arm_energy(const switch_params& p, double x2) {
  const contact::receptacle_arm arm(p.receptacle, p.d0, contact::arm_direction::engage);
  const double theta = arm.evaluate(x2, 0.0).theta;
  return 0.5 * p.arms * p.receptacle.K * theta * theta;
}

}  // namespace

TEST_CASE("switch: a restitution map reproduces its e at the stop", "[switch]") {
  // No drive spring stiffness, no linkage, an immovable stop: the slider falls under the constant
  // force F0 from rest onto the stop, v1 = sqrt(2 F0 g0 / m1), and each bounce with e leaves at
  // e times the approach speed, rising e^2 times the previous height (Brake 2014 eq. (11) with
  // m3 -> inf).
  const double e = GENERATE(0.3, 0.6, 0.9);
  switch_params p = nominal();
  p.k_d = 0, p.k12 = 0, p.c12 = 0, p.k3 = 0, p.c3 = 0, p.m3 = 1e6;
  switch_options o = tight();
  o.t_end = 0.2;  // the bounces end at t1 + 2 e v1 / (a (1 - e)) <= 0.12 s
  const switch_result r = simulate_switch(p, law("cor", {{"restitution", e}}), o);
  REQUIRE(r.ok());
  const double a = p.F0 / p.m1;
  const double v1 = std::sqrt(2 * p.F0 * p.g0 / p.m1);
  CHECK(r.impact_velocity == Approx(v1).epsilon(1e-9));
  CHECK(r.impact_time == Approx(v1 / a).epsilon(1e-9));
  CHECK(r.first_restitution == e);
  CHECK(r.rebound_amplitude == Approx(e * e * p.g0).epsilon(1e-7));
  // Approach speeds e^k v1; counted while >= 1 % of v1.
  CHECK(r.impacts == static_cast<int>(std::floor(std::log(0.01) / std::log(e))) + 1);
  CHECK(r.contacts > r.impacts);
  // At rest on the stop: the drive's work F0 g0 all went into the impacts.
  CHECK(r.x1 - r.x3 == Approx(p.g0).epsilon(1e-12));  // stuck to the (free) stop
  CHECK(r.v1 - r.v3 == 0);
  CHECK(r.energy.dissipated_contact == Approx(p.F0 * p.g0).epsilon(1e-7));
  CHECK(std::isnan(r.peak_contact_force));
  CHECK(std::isnan(r.residual_indentation));
  REQUIRE_FALSE(r.notes.empty());
  CHECK_THAT(r.notes.back(), Contains("impact map"));
}

TEST_CASE("switch: without friction and dampers the energy is conserved", "[switch]") {
  // Hertz contact, mu = 0, c12 = c3 = 0: drive work = kinetic + springs + arms (n K theta^2 / 2,
  // Williams (1.2)) + contact (2/5 K delta^(5/2), Hertz, Brake 2014 eq. (13)), all from the end
  // state; nothing may be dissipated, not even by the receptacle's quasi-static arms.
  switch_params p = nominal();
  p.receptacle.mu = 0, p.c12 = 0, p.c3 = 0;
  const double t_end = GENERATE(0.006, 0.012, 0.03);  // before, during and after the impacts
  switch_options o = tight();
  o.t_end = t_end;
  const switch_result r = simulate_switch(p, law("hertz"), o);
  REQUIRE(r.ok());
  const auto c = pair();
  const double stiffness =
      contact::hertz_stiffness(contact::effective_modulus(c.body_1.modulus, c.body_1.poisson,
                                                          c.body_2.modulus, c.body_2.poisson),
                               c.radius_1);
  const double delta = std::max(0.0, r.x1 - r.x3 - p.g0);
  const double contact_energy = 0.4 * stiffness * std::pow(delta, 2.5);
  const double work = drive_work(p, r.x1);
  const double held =
      kinetic_energy(p, r) + spring_energy(p, r) + arm_energy(p, r.x2) + contact_energy;
  CHECK(held == Approx(work).epsilon(1e-7));
  CHECK(r.energy.dissipated() == Approx(0).margin(1e-7 * work));
  if (t_end > 0.01) CHECK(r.contacts > 0);
}

TEST_CASE("switch: energy balance with an elastic-plastic contact, friction and dampers",
          "[switch]") {
  // Thornton: drive work = kinetic + stored + dissipated within the integration tolerance; the
  // contact's stored energy is that of its Hertzian unloading curve (Brake 2014 eq. (42)),
  // 2/5 F (delta - delta_bar), with delta_bar the residual indentation.
  const switch_params p = nominal();
  switch_options o = tight();
  o.t_end = GENERATE(0.0075, 0.04);  // just after the first impact; at rest
  const switch_result r = simulate_switch(p, law("thornton"), o);
  REQUIRE(r.ok());
  const auto& en = r.energy;
  CHECK(en.drive_work == Approx(drive_work(p, r.x1)).epsilon(1e-12));
  CHECK(en.kinetic + en.stored + en.dissipated() == Approx(en.drive_work).epsilon(1e-8));
  const double delta = r.x1 - r.x3 - p.g0;
  const double contact_stored = delta > r.residual_indentation
                                    ? 0.4 * r.contact_force * (delta - r.residual_indentation)
                                    : 0.0;
  CHECK(en.stored ==
        Approx(spring_energy(p, r) + arm_energy(p, r.x2) + contact_stored).epsilon(1e-6));
  CHECK(en.dissipated_contact > 0);
  CHECK(en.dissipated_dampers > 0);
  CHECK(en.dissipated_receptacle > 0);
  CHECK(r.residual_indentation > 0);
}

TEST_CASE("switch: the first impact in the mechanism is the free two-body impact", "[switch]") {
  // The contact lasts microseconds and carries tens of newtons: the springs and the drive (about
  // 1 N) barely act, so the mechanism's first restitution is that of m1 on m3 alone at the same
  // speed (dynamics::simulate_impact). The mount damper (10 N*s/m at the stop's 0.5 m/s) is
  // taken out: it would take its percent.
  const std::string name = GENERATE("kelvin_voigt", "brake", "etsion", "thornton", "hertz");
  switch_params p = nominal();
  p.c3 = 0;
  const auto l = law(name);
  const switch_result r = simulate_switch(p, l);
  REQUIRE(r.ok());
  impact_options io;
  io.mass_1 = p.m1;
  io.mass_2 = p.m3;
  io.approach_velocity = r.impact_velocity;
  const impact_result free = simulate_impact(l, io);
  REQUIRE(free.ok());
  INFO(name);
  CHECK(r.first_restitution == Approx(free.restitution).margin(0.005));
  // Peak force and dent of the first impact alone: stop 100 us after it began (it lasts about
  // 20 us; the next one comes milliseconds later).
  switch_options first;
  first.t_end = r.impact_time + 1e-4;
  const switch_result one = simulate_switch(p, l, first);
  REQUIRE(one.ok());
  CHECK(one.contacts == 1);
  CHECK(one.first_restitution == Approx(r.first_restitution).epsilon(1e-5));
  CHECK(one.peak_contact_force == Approx(free.peak_force).epsilon(0.005));
  if (name == "brake" || name == "etsion" || name == "thornton")
    CHECK(one.residual_indentation == Approx(free.residual_overlap).epsilon(0.005));
  else
    CHECK(one.residual_indentation == 0);
}

TEST_CASE("switch: the nominal design closes without chatter with every law", "[switch]") {
  const std::string name =
      GENERATE("cor", "cor_low", "kelvin_voigt", "brake", "etsion", "thornton");
  const switch_params p = nominal();
  const switch_result r = simulate_switch(p, six_laws(name));
  INFO(name);
  REQUIRE(r.ok());
  CHECK(r.closed);
  CHECK_FALSE(r.chatter);
  CHECK(r.closure_time < r.impact_time);  // on the barrel before the slider hits the stop
  CHECK(r.closure_margin > 0.5e-3);       // and at least 0.5 mm onto it ever after
  CHECK(r.impacts >= 1);
  CHECK(r.impact_velocity > 0.5);
  CHECK(r.impact_velocity <
        std::sqrt(2 * drive_work(p, p.g0) / (p.m1 + p.m2)));  // friction, arms took some
  CHECK(r.first_restitution > 0);
  CHECK(r.first_restitution <= 1);
  CHECK(r.rebound_amplitude >= 0);
  CHECK(r.rebound_amplitude < p.g0 - r.closure_position);
  CHECK(r.settling_time > r.impact_time);
  CHECK(r.settling_time < 0.9 * switch_options{}.t_end);
  CHECK(std::abs(r.x1 - r.x3 - p.g0) < 1e-4);  // resting on the stop
}

TEST_CASE("switch: a too weak drive spring does not close", "[switch]") {
  switch_params p = nominal();
  p.F0 = 0.1;  // below the 0.14 N peak insertion force
  const switch_result r = simulate_switch(p, law("thornton"));
  REQUIRE(r.ok());
  CHECK_FALSE(r.closed);
  CHECK_FALSE(r.chatter);
  CHECK(std::isnan(r.closure_time));
  CHECK(std::isnan(r.closure_margin));
  CHECK(std::isnan(r.impact_velocity));
  CHECK(std::isnan(r.rebound_amplitude));
  CHECK(r.impacts == 0);
  CHECK(r.peak_contact_force == 0);
  CHECK(r.x2 < r.closure_position);
  REQUIRE(r.notes.size() >= 2);
  CHECK_THAT(r.notes[0], Contains("never reached the pin barrel"));
  CHECK_THAT(r.notes[1], Contains("never reached the stop"));
}

TEST_CASE("switch: too little over-travel chatters", "[switch]") {
  // g0 = 3 mm leaves 0.25 mm beyond x_cr,4: the carrier, swinging back on its linkage after the
  // slider stops, falls off the barrel.
  const std::string name = GENERATE("cor", "kelvin_voigt", "brake", "etsion", "thornton");
  switch_params p = nominal();
  p.g0 = 3e-3;
  const switch_result r = simulate_switch(p, six_laws(name));
  INFO(name);
  REQUIRE(r.ok());
  CHECK(r.chatter);
  CHECK(r.chatter_time > r.impact_time);
  CHECK(r.closure_margin < -0.1e-3);
}

TEST_CASE("switch: curves on the fixed time grid", "[switch]") {
  switch_options o;
  o.curve_points = 101;
  const switch_params p = nominal();
  const switch_result r = simulate_switch(p, law("brake"), o);
  REQUIRE(r.ok());
  REQUIRE(r.time.size() == 101);
  for (const auto* c : {&r.slider, &r.carrier, &r.stop, &r.force}) REQUIRE(c->size() == 101);
  CHECK(r.time.front() == 0);
  CHECK(r.time.back() == 0.04);
  CHECK(r.time[50] == Approx(0.02));
  CHECK(r.slider.front() == 0);
  CHECK(r.slider.back() == r.x1);
  CHECK(r.carrier.back() == r.x2);
  CHECK(r.force.back() == r.contact_force);
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    CHECK(r.force[k] >= 0);
    CHECK(r.slider[k] - r.stop[k] <= p.g0 + 1e-4);  // never through the stop
  }
  o.curve_points = 0;
  const switch_result bare = simulate_switch(p, law("brake"), o);
  CHECK(bare.time.empty());
  CHECK(bare.closure_time == r.closure_time);  // curves do not change the integration
  CHECK(bare.settling_time == r.settling_time);
}

TEST_CASE("switch: invalid parameters name the field", "[switch]") {
  const auto l = law("thornton");
  auto fails_on = [&](const std::string& field, auto change) {
    switch_params p = nominal();
    switch_options o;
    change(p, o);
    CHECK_THROWS_MATCHES(
        simulate_switch(p, l, o), parameter_error,
        Catch::Predicate<parameter_error>(
            [&](const parameter_error& e) { return e.field() == field; }, "field " + field));
  };
  fails_on("m1", [](switch_params& p, switch_options&) { p.m1 = 0; });
  fails_on("g0", [](switch_params& p, switch_options&) { p.g0 = -1e-3; });
  fails_on("v_t", [](switch_params& p, switch_options&) { p.v_t = 0; });
  fails_on("mu", [](switch_params& p, switch_options&) { p.receptacle.mu = -0.1; });
  fails_on("arms", [](switch_params& p, switch_options&) { p.arms = 0; });
  fails_on("curve_points", [](switch_params&, switch_options& o) { o.curve_points = 1; });
  fails_on("t_end", [](switch_params&, switch_options& o) { o.t_end = 0; });
}

TEST_CASE("switch: every sphere contact law of the registry closes the nominal design",
          "[switch]") {
  // Beyond Brake's six: the Skrinjar and Modelica laws, with a restitution of 0.8 or a damping of
  // 30 N*s/m where they need one (studies/impact_models.toml); johnson_cylinder is a line contact.
  // kelvin_voigt_cr's force jumps with the sign of delta' (Skrinjar eq. (24)): a contact at rest
  // switches branch at every step (a sliding mode no integrator resolves), and the simulation
  // must stop with too_many_steps rather than hang.
  contact::register_builtin_laws();
  const std::string name = GENERATE(from_range(contact::registered_laws()));
  if (name == "johnson_cylinder") return;
  if (name == "kelvin_voigt_cr") {
    switch_options o;
    o.max_steps = 20000;
    const switch_result r =
        simulate_switch(nominal(), law(name, {{"stiffness", 1e7}, {"restitution", 0.64}}), o);
    CHECK(r.status == switch_status::too_many_steps);
    CHECK_THAT(r.message, Contains("max_steps = 20000"));
    return;
  }
  std::map<std::string, double> values;
  if (name == "cor" || name == "lankarani_nikravesh" || name == "hunt_crossley" ||
      name == "flores" || name == "gonthier")
    values["restitution"] = 0.8;
  if (name.starts_with("elastogap")) values["damping"] = 30;
  INFO(name);
  const switch_result r = simulate_switch(nominal(), law(name, values));
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.closed);
  CHECK(r.impacts >= 1);
  CHECK(r.energy.kinetic + r.energy.stored + r.energy.dissipated() ==
        Approx(r.energy.drive_work).epsilon(1e-5));
  CHECK(r.energy.dissipated_contact >= -1e-5 * r.energy.drive_work);
}

TEST_CASE("switch: closure_margin is chatter's continuous margin over the whole over-travel range", "[switch]") {
  // Reliability methods need a signed margin where the outcome is 0/1: a closed switch
  // chattered exactly when its closure_margin is negative, from chattering over-travels
  // (g0 = 3 mm) to comfortable ones, under every law.
  const std::string name = GENERATE("cor", "kelvin_voigt", "brake", "etsion", "thornton");
  int chattered = 0, held = 0;
  for (int k = 0; k <= 8; ++k) {
    switch_params p = nominal();
    p.g0 = 3e-3 + 0.25e-3 * k;
    const switch_result r = simulate_switch(p, six_laws(name));
    INFO(name << " g0 = " << p.g0);
    REQUIRE(r.ok());
    if (std::isnan(r.closure_time)) continue;  // never closed: no margin (NaN), no chatter
    CHECK(r.chatter == (r.closure_margin < 0));
    (r.chatter ? chattered : held) += 1;
  }
  INFO(name);
  CHECK(chattered > 0);
  CHECK(held > 0);
}
