// Forward dynamics with Baumgarte stabilisation and located contact events, Skrinjar et al.
// (003_...) eqs. (1)-(5), (32)-(33), Table 3.
#include "contactuq/multibody/simulation.hpp"

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"
#include "contactuq/multibody/pinslot.hpp"

using namespace contactuq::multibody;

namespace {

// A 0.1 m pendulum (body 0) hinged by an IRJ to a fixed body 1, under gravity, released at 60 deg.
planar_system pendulum() {
  planar_system s;
  const double l = 0.1, theta = std::acos(-1.0) / 3;
  body rod{"rod", 0.2, 0.2 * l * l / 12};
  rod.position = {l / 2 * std::sin(theta), -l / 2 * std::cos(theta)};
  rod.angle = theta;
  body ground{"ground", 1.0, 1.0};
  s.add_body(rod);
  s.add_body(ground);
  s.add_constraint(fixed_body{1, vec2::Zero(), 0.0});
  // The rod's axis is its local y axis; the hinge is at its top end.
  s.add_constraint(revolute_joint{"hinge", 0, 1, {0.0, l / 2}, vec2::Zero()});
  s.set_gravity({0.0, -9.81});
  return s;
}

double max_between(const simulation_result& r, double from, double to) {
  double m = 0.0;
  for (std::size_t i = 0; i < r.samples(); ++i)
    if (r.time[i] >= from && r.time[i] <= to) m = std::max(m, r.constraint_violation[i]);
  return m;
}

}  // namespace

TEST_CASE("IRJ drift stays bounded with Baumgarte and grows without it", "[multibody]") {
  const auto sys = pendulum();
  simulation_options o;
  o.end_time = 2.0;
  o.sample_interval = 1e-3;
  o.max_step = 1e-2;
  o.contact_step = 1e-2;
  o.relative_tolerance = 1e-5;  // loose, so that the drift shows within two seconds
  o.absolute_tolerance = 1e-8;
  o.baumgarte_alpha = o.baumgarte_beta = 0.0;
  const auto free = simulate(sys, o);
  REQUIRE(free.ok());
  o.baumgarte_alpha = o.baumgarte_beta = 20.0;
  const auto stabilised = simulate(sys, o);
  REQUIRE(stabilised.ok());
  // Eq. (1): the position error is integrated twice and accumulates.
  const double free_early = max_between(free, 0.0, 0.5), free_late = max_between(free, 1.5, 2.0);
  CHECK(free_late > 3 * free_early);
  // Eq. (3): the error is fed back and stays at its early level.
  const double stab_early = max_between(stabilised, 0.0, 0.5);
  const double stab_late = max_between(stabilised, 1.5, 2.0);
  CHECK(stab_late < 2 * stab_early + 1e-12);
  CHECK(stab_late < 0.1 * free_late);
  // The hinge carries the pendulum: at the bottom of the swing, beyond its weight.
  double peak_y = 0.0;
  for (std::size_t i = 0; i < stabilised.samples(); ++i) peak_y = std::min(peak_y, stabilised.force_y[i]);
  // omega^2 = 3 g (1 - cos 60 deg) / l at the bottom: F = m g + m omega^2 l / 2 = 1.75 m g.
  CHECK(-peak_y == Approx(1.75 * 0.2 * 9.81).epsilon(1e-3));
}

TEST_CASE("a free pin bouncing in the slot keeps its energy with Hertz and no friction",
          "[multibody]") {
  auto p = pinslot_defaults(joint_type::pscj);
  p.contact.law = GENERATE(std::string("hertz"), std::string("johnson_cylinder"));
  p.contact.friction = friction_model::none;
  auto sys = build_pinslot_system(p);
  // Only the two bodies and the joint: no spring, no force; the slot body moves off obliquely.
  planar_system free;
  auto b0 = sys.bodies()[0];
  b0.position.x() += 20e-6;  // off the R end, where the preload pressed it
  b0.velocity = {-0.05, 0.02};
  b0.angular_velocity = 0.3;
  free.add_body(b0);
  free.add_body(sys.bodies()[1]);
  free.add_constraint(fixed_body{1, vec2::Zero(), 0.0});
  free.add_clearance_joint(sys.clearance_joints()[0]);
  simulation_options o;
  o.end_time = 0.1;
  o.sample_interval = 1e-4;
  o.relative_tolerance = 1e-9;
  o.absolute_tolerance = 1e-12;
  const auto r = simulate(free, o);
  REQUIRE(r.ok());
  INFO(p.contact.law);
  CHECK(r.impacts.size() >= 4);
  const double e0 = r.energy.front();
  double worst = 0.0;
  std::size_t free_samples = 0;
  for (std::size_t i = 0; i < r.samples(); ++i) {
    if (r.in_contact[i]) continue;
    ++free_samples;
    worst = std::max(worst, std::abs(r.energy[i] - e0) / e0);
  }
  CHECK(free_samples > r.samples() / 2);
  CHECK(worst < 1e-4);  // the ends and flats have different stiffness: a contact that slides
                        // from one onto the other is not exactly conservative

  // The same bounce with Lankarani-Nikravesh (c_r = 0.4) loses energy at every impact.
  free = planar_system{};
  free.add_body(b0);
  free.add_body(sys.bodies()[1]);
  free.add_constraint(fixed_body{1, vec2::Zero(), 0.0});
  auto joint = sys.clearance_joints()[0];
  joint.contact.law = "lankarani_nikravesh";
  free.add_clearance_joint(joint);
  const auto damped = simulate(free, o);
  REQUIRE(damped.ok());
  CHECK(damped.energy.back() < 0.8 * e0);
}

TEST_CASE("penetration at every located contact onset is at most delta_0", "[multibody]") {
  auto p = pinslot_defaults(GENERATE(joint_type::pscj, joint_type::rcj));
  p.contact.law = GENERATE(std::string("lankarani_nikravesh"), std::string("kelvin_voigt_cr"));
  auto o = pinslot_simulation_defaults();
  o.end_time = 0.03;
  o.penetration_tolerance = GENERATE(1e-6, 1e-8);
  const auto r = simulate_pinslot(p, o);
  REQUIRE(r.ok());
  INFO(joint_type_name(p.joint) << " " << p.contact.law << " delta_0 = " << o.penetration_tolerance);
  REQUIRE(r.impacts >= 2);
  for (const auto& e : r.simulation.impacts) {
    CHECK(e.overlap >= 0);
    CHECK(e.overlap <= o.penetration_tolerance);
    CHECK(e.approach_velocity > 0);
  }
  // Without location the step that crosses the wall would end deeper: a free flight of H_max at
  // the approach speed of the fastest impact.
  double fastest = 0.0;
  for (const auto& e : r.simulation.impacts) fastest = std::max(fastest, e.approach_velocity);
  CHECK(fastest * o.max_step > o.penetration_tolerance);
}

TEST_CASE("the RCJ approaches the IRJ as the clearance vanishes", "[multibody]") {
  auto o = pinslot_simulation_defaults();
  o.end_time = 0.03;
  const auto irj = simulate_pinslot(pinslot_defaults(joint_type::irj), o);
  REQUIRE(irj.ok());
  auto difference = [&](double clearance) {
    auto p = pinslot_defaults(joint_type::rcj);
    p.clearance = p.clearance_r = clearance;
    const auto rcj = simulate_pinslot(p, o);
    REQUIRE(rcj.ok());
    double d = 0.0;
    for (std::size_t i = 0; i < irj.fx.size(); ++i)
      d = std::max(d, std::hypot(rcj.fx_filtered[i] - irj.fx_filtered[i], rcj.fy_filtered[i] - irj.fy_filtered[i]));
    return d;
  };
  const double coarse = difference(50e-6), fine = difference(0.5e-6);
  CHECK(fine < 0.5 * coarse);
  CHECK(fine < 0.05 * irj.peak_force_filtered);
}

TEST_CASE("the PSCJ with slot length 0 is the RCJ", "[multibody]") {
  auto o = pinslot_simulation_defaults();
  o.end_time = 0.03;
  const auto rcj_params = pinslot_defaults(joint_type::rcj);
  auto pscj_params = rcj_params;  // same masses and hole position
  pscj_params.joint = joint_type::pscj;
  pscj_params.slot_length = 0.0;
  const auto rcj = simulate_pinslot(rcj_params, o);
  const auto pscj = simulate_pinslot(pscj_params, o);
  REQUIRE(rcj.ok());
  REQUIRE(pscj.ok());
  REQUIRE(rcj.impacts > 0);
  CHECK(pscj.impacts == rcj.impacts);
  CHECK(pscj.peak_force == Approx(rcj.peak_force).epsilon(1e-6));
  for (std::size_t i = 0; i < rcj.fx.size(); ++i) {
    CHECK(pscj.fx[i] == Approx(rcj.fx[i]).margin(1e-6 * rcj.peak_force));
    CHECK(pscj.fy[i] == Approx(rcj.fy[i]).margin(1e-6 * rcj.peak_force));
  }
}

TEST_CASE("the centred moving average keeps constants and lines and shrinks at the ends",
          "[multibody]") {
  std::vector<double> line;
  for (int i = 0; i < 50; ++i) line.push_back(2.0 + 0.5 * i);
  const auto avg = centred_moving_average(line, 7);
  for (std::size_t i = 0; i < line.size(); ++i) CHECK(avg[i] == Approx(line[i]));
  const std::vector<double> spike{0, 0, 0, 9, 0, 0, 0};
  const auto s = centred_moving_average(spike, 3);
  CHECK(s[2] == Approx(3.0));
  CHECK(s[0] == 0.0);
  CHECK(centred_moving_average(spike, 1) == spike);
  CHECK_THROWS_AS(centred_moving_average(spike, 4), contactuq::parameter_error);
}

TEST_CASE("bad simulation options name the field", "[multibody]") {
  simulation_options o;
  o.contact_step = 2 * o.max_step;
  CHECK_THROWS_WITH(o.validate(), Catch::Contains("contact_step"));
  o = {};
  o.penetration_tolerance = 0;
  CHECK_THROWS_WITH(o.validate(), Catch::Contains("penetration_tolerance"));
}
