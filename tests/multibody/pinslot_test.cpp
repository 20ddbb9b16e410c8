// The validation set-up of Skrinjar et al. (003_...) Section 5, Tables 1-3 and eq. (34).
#include "contactuq/multibody/pinslot.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

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

namespace {

// The 60 ms run of the shipped studies (studies/pinslot_validation.toml,
// studies/pinslot_contact_laws.toml): Table 3 settings, the assumed F0 = 3 N, spring 3000 N/m with
// 1 N preload, the 301-point filter.
pinslot_result run_case(joint_type joint, const std::string& law = "lankarani_nikravesh",
                        double force_amplitude = 3.0) {
  auto p = pinslot_defaults(joint);
  p.contact.law = law;
  p.force_amplitude = force_amplitude;
  const auto r = simulate_pinslot(p, pinslot_simulation_defaults());
  REQUIRE(r.ok());
  return r;
}

double rms_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());  // the same uniform sample grid
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum / static_cast<double>(a.size()));
}

// Mean filtered F_x over the last 5 ms: the force the joint carries at the end of the run.
double final_fx(const pinslot_result& r) {
  double sum = 0.0;
  int n = 0;
  for (std::size_t i = 0; i < r.fx_filtered.size(); ++i)
    if (r.simulation.time[i] > 0.055) {
      sum += r.fx_filtered[i];
      ++n;
    }
  return sum / n;
}

// Whether the pin ever pressed on the arc at P, the slot end it slides towards (feature 0).
bool touches_p_end(const pinslot_result& r) {
  for (std::size_t i = 0; i < r.simulation.feature.size(); ++i)
    if (r.simulation.in_contact[i] && r.simulation.feature[i] == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("Section 6, joints: the slot lowers the force the pin carries (docs/pinslot.md)",
          "[multibody][pinslot_claims]") {
  const auto defaults = pinslot_defaults(joint_type::pscj);
  REQUIRE(defaults.force_amplitude == 3.0);  // the assumed set-up the docs report
  REQUIRE(defaults.spring_preload == 1.0);
  const auto pscj = run_case(joint_type::pscj);
  const auto rcj = run_case(joint_type::rcj);
  const auto irj = run_case(joint_type::irj);
  // Filtered peaks and impulses: PSCJ < RCJ < IRJ (1.01 < 1.78 < 1.97 N; 26 < 58 < 65 mN*s).
  CHECK(pscj.peak_force_filtered < rcj.peak_force_filtered);
  CHECK(rcj.peak_force_filtered < irj.peak_force_filtered);
  CHECK(pscj.impulse < 0.6 * rcj.impulse);
  CHECK(rcj.impulse < irj.impulse);
  CHECK(rcj.impacts > pscj.impacts);
  CHECK(irj.impacts == 0);
  // With F0 = 3 N the pulse lifts body 0 off the pin (the pin slides towards P and back without
  // reaching it): the filtered PSCJ force never rises above the 1 N preload.
  CHECK_FALSE(touches_p_end(pscj));
  CHECK(pscj.peak_force_filtered < 1.02 * defaults.spring_preload);
  CHECK(pscj.peak_force_filtered > 0.98 * defaults.spring_preload);
}

TEST_CASE("Section 6, contact laws: what the shipped set-up shows and what it does not",
          "[multibody][pinslot_claims]") {
  const auto ln = run_case(joint_type::pscj, "lankarani_nikravesh");
  const auto hertz = run_case(joint_type::pscj, "hertz");
  const auto kv = run_case(joint_type::pscj, "kelvin_voigt_cr");
  const auto johnson = run_case(joint_type::pscj, "johnson_cylinder");
  const auto damped = run_case(joint_type::pscj, "johnson_cylinder_damped");
  const auto rms_x = [&](const pinslot_result& r) { return rms_difference(r.fx_filtered, ln.fx_filtered); };
  const auto max_fy = [](const pinslot_result& r) {
    double m = 0.0;
    for (double v : r.fy_filtered) m = std::max(m, std::abs(v));
    return m;
  };
  // Kelvin-Voigt and elastic Johnson rattle chaotically: inputs that differ in the last binary
  // digit give Kelvin-Voigt 66 to 233 impacts and Johnson a filtered peak of 1.42 to 1.98 N. Only
  // statements that held for every such perturbation tried are checked here (and made in the
  // docs).
  // Holds: Kelvin-Voigt chatters (the most impacts) and carries the largest filtered y force.
  for (const auto* other : {&ln, &hertz, &johnson, &damped}) {
    CHECK(kv.impacts > other->impacts);
    CHECK(max_fy(kv) > max_fy(*other));
  }
  // Holds: Johnson with Lankarani-Nikravesh dissipation is the closest to Lankarani-Nikravesh;
  // elastic Johnson the furthest, with the largest filtered peak.
  for (const auto* other : {&hertz, &kv, &johnson}) CHECK(rms_x(damped) < rms_x(*other));
  for (const auto* other : {&hertz, &kv, &damped}) {
    CHECK(rms_x(johnson) > rms_x(*other));
    CHECK(johnson.peak_force_filtered > other->peak_force_filtered);
  }
  CHECK(johnson.peak_force_filtered > 1.3 * ln.peak_force_filtered);
  // Not reproduced (the paper says otherwise): by the RMS of the filtered F_x Kelvin-Voigt is
  // closer to Lankarani-Nikravesh than Hertz is, and Hertz ends with the smaller steady force.
  CHECK(rms_x(kv) < rms_x(hertz));
  CHECK(std::abs(final_fx(hertz)) < std::abs(final_fx(ln)));
}

TEST_CASE("Section 6, contact laws: the orderings among laws depend on the assumed F0",
          "[multibody][pinslot_claims]") {
  // With F0 = 6 N the pin crosses the slot and strikes its far end; then Hertz is closer to
  // Lankarani-Nikravesh than Kelvin-Voigt and ends with the larger steady force, as the paper
  // says, and the filtered force exceeds the preload. At 4 N Kelvin-Voigt is again
  // the closest (docs/pinslot.md): no ordering among laws is robust to F0.
  const auto ln = run_case(joint_type::pscj, "lankarani_nikravesh", 6.0);
  const auto hertz = run_case(joint_type::pscj, "hertz", 6.0);
  const auto kv = run_case(joint_type::pscj, "kelvin_voigt_cr", 6.0);
  const auto rms_x = [&](const pinslot_result& r) { return rms_difference(r.fx_filtered, ln.fx_filtered); };
  CHECK(rms_x(hertz) < rms_x(kv));
  CHECK(std::abs(final_fx(hertz)) > std::abs(final_fx(ln)));
  CHECK(ln.peak_force_filtered > 2.0);
  CHECK(touches_p_end(ln));
  const auto rcj = run_case(joint_type::rcj, "lankarani_nikravesh", 6.0);
  const auto irj = run_case(joint_type::irj, "lankarani_nikravesh", 6.0);
  CHECK(ln.peak_force_filtered < rcj.peak_force_filtered);
  CHECK(rcj.peak_force_filtered < irj.peak_force_filtered);
  const auto kv4 = run_case(joint_type::pscj, "kelvin_voigt_cr", 4.0);
  const auto ln4 = run_case(joint_type::pscj, "lankarani_nikravesh", 4.0);
  const auto hertz4 = run_case(joint_type::pscj, "hertz", 4.0);
  CHECK_FALSE(touches_p_end(ln4));
  CHECK(rms_difference(kv4.fx_filtered, ln4.fx_filtered) <
        rms_difference(hertz4.fx_filtered, ln4.fx_filtered));
}
