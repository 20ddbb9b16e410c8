// Geometry and laws of the clearance joints, Skrinjar et al. (003_...) eqs. (10)-(23).
#include "contactuq/multibody/clearance_joint.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/error.hpp"

using namespace contactuq::multibody;

namespace {

// Slot of Table 2 (PSCJ): P = (-49, 0.0765) mm, R = P + (2, 0) mm, ends of 2.5 mm, pin 2.45 mm.
slot_geometry table_2_slot(double radius_r = 2.5e-3) {
  slot_geometry s;
  s.centre_p = {-49e-3, 0.0765e-3};
  s.centre_r = {-47e-3, 0.0765e-3};
  s.radius_p = 2.5e-3;
  s.radius_r = radius_r;
  s.pin_radius = 2.45e-3;
  return s;
}

// Pin centre given in the slot's frame, for a slot body at pose (position, theta).
vec2 global(const vec2& position, double theta, const vec2& local) {
  return point_position(position, theta, local);
}

}  // namespace

TEST_CASE("RCJ: delta = e - c and n along the eccentricity, eqs. (16)-(19)", "[multibody]") {
  const vec2 hole(0.01, 0.02);
  const vec2 pin = hole + vec2(3e-5, 4e-5);  // e = 50 um
  const auto w = hole_contact(hole, 2.5e-3, pin, 2.45e-3);
  CHECK(w.overlap == Approx(50e-6 - 50e-6).margin(1e-15));
  CHECK(w.normal.x() == Approx(0.6));
  CHECK(w.normal.y() == Approx(0.8));
  CHECK(w.tangent.dot(w.normal) == Approx(0.0).margin(1e-15));
  CHECK(w.tangent.x() == Approx(-0.8));  // eq. (20): counter-clockwise
  const auto deeper = hole_contact(hole, 2.5e-3, hole + vec2(0.0, 52e-6), 2.45e-3);
  CHECK(deeper.overlap == Approx(2e-6).epsilon(1e-9));
}

TEST_CASE("PSCJ: the active feature switches from flat to end at the tangent points",
          "[multibody]") {
  const double theta = GENERATE(0.0, 0.3);
  const vec2 position(0.05, -0.002);
  const auto slot = table_2_slot();
  const double y = 0.0765e-3 + 0.049e-3;  // 1 um short of the +w flat (c = 50 um)
  const double eps = 1e-9;
  struct probe {
    double x;
    clearance_feature expected;
  };
  for (const probe& p : {probe{-49e-3 + eps, clearance_feature::flat_plus},
                         probe{-49e-3 - eps, clearance_feature::arc_p},
                         probe{-47e-3 - eps, clearance_feature::flat_plus},
                         probe{-47e-3 + eps, clearance_feature::arc_r}}) {
    const auto w = slot_contact(slot, position, theta, global(position, theta, {p.x, y}));
    INFO("x = " << p.x << ", theta = " << theta);
    CHECK(w.feature == p.expected);
    CHECK(w.overlap == Approx(-1e-6).margin(1e-10));  // continuous across the boundary
    // n is the outward normal of the +w flat, turned with the body.
    CHECK(w.normal.x() == Approx(-std::sin(theta)).margin(1e-4));
    CHECK(w.normal.y() == Approx(std::cos(theta)).margin(1e-4));
  }
  // Below the axis: the other flat; beyond the ends along the axis: the ends.
  auto at = [&](double x, double yy) {
    return slot_contact(slot, position, theta, global(position, theta, {x, yy}));
  };
  CHECK(at(-48e-3, 0.0765e-3 - 0.03e-3).feature == clearance_feature::flat_minus);
  CHECK(at(-49.02e-3, 0.0765e-3).feature == clearance_feature::arc_p);
  CHECK(at(-46.98e-3, 0.0765e-3).feature == clearance_feature::arc_r);
  CHECK(at(-46.95e-3, 0.0765e-3).overlap == Approx(0.0).margin(1e-12));
}

TEST_CASE("PSCJ with non-parallel flats: the flat is the common tangent of both ends",
          "[multibody]") {
  const auto slot = table_2_slot(2.48e-3);  // R end 20 um narrower
  const vec2 origin = vec2::Zero();
  const double sin_phi = (2.5e-3 - 2.48e-3) / 2e-3;
  const double cos_phi = std::sqrt(1 - sin_phi * sin_phi);
  const vec2 n_plus(sin_phi, cos_phi);
  // Tangent points T_P = P + R_P N, T_R = R + R_R N; a pin touching the flat midway between them.
  const vec2 tp = slot.centre_p + slot.radius_p * n_plus;
  const vec2 tr = slot.centre_r + slot.radius_r * n_plus;
  const vec2 mid = 0.5 * (tp + tr) - slot.pin_radius * n_plus;
  const auto w = slot_contact(slot, origin, 0.0, mid);
  CHECK(w.feature == clearance_feature::flat_plus);
  CHECK(w.overlap == Approx(0.0).margin(1e-12));
  CHECK(w.normal.x() == Approx(sin_phi));
  // At either tangent point the end and the flat give the same overlap and normal.
  for (const auto& [t, centre, radius] :
       {std::tuple{tp, slot.centre_p, slot.radius_p}, std::tuple{tr, slot.centre_r, slot.radius_r}}) {
    const vec2 pin = t - (slot.pin_radius + 1e-6) * n_plus;  // 1 um gap
    const auto flat = slot_contact(slot, origin, 0.0, pin);
    const auto end = hole_contact(centre, radius, pin, slot.pin_radius);
    CHECK(flat.overlap == Approx(end.overlap).margin(1e-12));
    CHECK(flat.normal.dot(end.normal) == Approx(1.0).margin(1e-9));
  }
}

TEST_CASE("PSCJ with L = 0 is the RCJ at every pin position", "[multibody]") {
  slot_geometry slot;
  slot.centre_p = slot.centre_r = {0.001, -0.002};
  slot.radius_p = slot.radius_r = 2.5e-3;
  slot.pin_radius = 2.45e-3;
  const vec2 position(0.02, 0.01);
  const double theta = 0.25;
  for (int i = 0; i < 24; ++i) {
    const double a = 0.2618 * i;
    const double e = 40e-6 + 1e-6 * i;
    const vec2 centre = point_position(position, theta, slot.centre_p);
    const vec2 pin = centre + e * vec2(std::cos(a), std::sin(a));
    const auto s = slot_contact(slot, position, theta, pin);
    const auto h = hole_contact(centre, slot.radius_p, pin, slot.pin_radius);
    CHECK(s.overlap == Approx(h.overlap).margin(1e-15));
    CHECK(s.normal.dot(h.normal) == Approx(1.0).margin(1e-12));
  }
}

TEST_CASE("eqs. (22)-(23): Hertz stiffness of the pin in an end and on a flat", "[multibody]") {
  contact_options o;  // Table 3: E = 69 GPa, nu = 0.35 for both bodies
  const double h = (1 - 0.35 * 0.35) / 69e9;
  const double ri = 2.5e-3, rj = 2.45e-3;
  CHECK(clearance_hertz_stiffness(o, ri, rj) ==
        Approx(4 / (3 * 2 * h) * std::sqrt(ri * rj / (ri - rj))));
  CHECK(clearance_hertz_stiffness(o, contactuq::contact::flat_radius, rj) ==
        Approx(4 / (3 * 2 * h) * std::sqrt(rj)));
}

TEST_CASE("every clearance law pushes and never pulls", "[multibody]") {
  contact_options o;
  o.law = GENERATE(from_range(clearance_laws()));
  auto law = make_clearance_law(o, 2.5e-3, 2.45e-3);
  law.force(0.0, 0.05);  // first touch at 5 cm/s
  INFO(o.law);
  CHECK(law.peek_force(1e-7, 0.05) > 0);
  CHECK(law.peek_force(2e-7, 0.0) > law.peek_force(1e-7, 0.0));
  CHECK(law.peek_force(1e-7, -1.0) >= 0);
  CHECK(law.peek_force(-1e-7, 0.05) == 0);
}

TEST_CASE("bad clearance options name the field", "[multibody]") {
  contact_options o;
  o.law = "brake";
  CHECK_THROWS_WITH(o.validate(), Catch::Contains("unknown clearance-joint contact law 'brake'"));
  o = {};
  o.restitution = 0;
  CHECK_THROWS_WITH(o.validate(), Catch::Contains("restitution"));
  o = {};
  o.minimum_impact_velocity = 1e-12;  // eq. (26)'s damping ~ 1/delta'_0: a run without end
  CHECK_THROWS_WITH(o.validate(), Catch::Contains("minimum_impact_velocity") && Catch::Contains(">= 1e-6"));
  auto slot = table_2_slot();
  slot.radius_p = 2.4e-3;  // smaller than the pin
  CHECK_THROWS_WITH(slot.validate(), Catch::Contains("radius_p"));
}
