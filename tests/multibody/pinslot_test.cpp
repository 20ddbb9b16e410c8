// The validation set-up of Skrinjar et al. (003_...) Section 5, Tables 1-3 and eq. (34).
#include "contactuq/multibody/pinslot.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"

using namespace contactuq::multibody;

TEST_CASE("Table 1 and Table 2 per joint type", "[multibody]") {
  const auto pscj = pinslot_defaults(joint_type::pscj);
  CHECK(pscj.body_0_mass == 32.54e-3);
  CHECK(pscj.body_0_inertia == 20.94e-6);
  CHECK(pscj.slot_p.y() == 0.0765e-3);
  CHECK(pscj.slot_length == 2e-3);
  CHECK(pscj.pin_radius + pscj.clearance == Approx(2.5e-3));  // h^0 = 5 mm
  const auto rcj = pinslot_defaults(joint_type::rcj);
  CHECK(rcj.body_0_mass == 32.74e-3);
  CHECK(rcj.body_0_inertia == 21.40e-6);
  CHECK(rcj.slot_p.y() == 0.076e-3);
  CHECK(pinslot_defaults(joint_type::irj).body_1_inertia == 1e-6);
  const auto o = pinslot_simulation_defaults();  // Table 3
  CHECK(o.max_step == 1e-4);
  CHECK(o.contact_step == 1e-5);
  CHECK(o.penetration_tolerance == 1e-6);
  CHECK(o.end_time == 0.06);
  CHECK(o.baumgarte_alpha == 5.0);
  CHECK(pscj.contact.restitution == 0.4);
  CHECK(pscj.contact.friction_coefficient == 0.51);
}

TEST_CASE("eq. (34): the half-sine force and its impulse 2 F0 tF / pi", "[multibody]") {
  const half_sine_pulse f{2.0, 0.0391};
  CHECK(f(0.0) == 0.0);
  CHECK(f(0.0391 / 2) == Approx(2.0));
  CHECK(f(0.05) == 0.0);
  double impulse = 0.0;
  const int n = 10000;
  for (int i = 0; i < n; ++i) impulse += f((i + 0.5) * 0.0391 / n) * 0.0391 / n;
  CHECK(impulse == Approx(2 * 2.0 * 0.0391 / std::numbers::pi).epsilon(1e-6));
}

TEST_CASE("at rest the pin carries the spring preload", "[multibody]") {
  for (auto j : {joint_type::pscj, joint_type::rcj, joint_type::irj}) {
    auto p = pinslot_defaults(j);
    p.force_amplitude = 0.0;
    auto o = pinslot_simulation_defaults();
    o.end_time = 0.005;
    const auto r = simulate_pinslot(p, o);
    REQUIRE(r.ok());
    INFO(joint_type_name(j));
    // The spring pulls body 0 along -x; the pin holds it, so body 0 pushes the pin along -x.
    CHECK(r.fx.front() == Approx(-p.spring_preload).epsilon(1e-3));
    CHECK(r.fx.back() == Approx(-p.spring_preload).epsilon(1e-2));
    CHECK(r.impacts == 0);
  }
}

TEST_CASE("the IRJ reaction balances the external force over the pulse", "[multibody]") {
  // Momentum of body 0 along x: m v(T) = integral (F_ext + F_spring - F_pin) dt. For the IRJ body
  // 0 only turns (by well under a degree here), so its x momentum and the spring's change are
  // small beside the impulse of eq. (34), and the pin takes the rest.
  auto p = pinslot_defaults(joint_type::irj);
  p.spring_preload = 0.0;
  auto o = pinslot_simulation_defaults();
  o.end_time = p.force_duration;
  const auto r = simulate_pinslot(p, o);
  REQUIRE(r.ok());
  const double pulse = 2 * p.force_amplitude * p.force_duration / std::numbers::pi;
  CHECK(r.impulse_x == Approx(pulse).epsilon(0.02));
  CHECK(r.impacts == 0);
}

TEST_CASE("bad set-up values name the field", "[multibody]") {
  auto p = pinslot_defaults(joint_type::pscj);
  p.clearance = -1e-6;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("clearance"));
  p = pinslot_defaults(joint_type::pscj);
  p.spring_preload = 100.0;  // free length would be negative
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("spring_preload"));
  CHECK_THROWS_WITH(parse_joint_type("slider"), Catch::Contains("unknown joint type 'slider'"));
}
