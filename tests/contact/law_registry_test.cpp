#include "contactuq/contact/law_registry.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

namespace {

const std::vector<std::string> builtin = {"brake",
                                          "cor",
                                          "elastogap",
                                          "elastogap_clipped",
                                          "elastogap_unbounded",
                                          "etsion",
                                          "flores",
                                          "gonthier",
                                          "hertz",
                                          "hunt_crossley",
                                          "johnson_cylinder",
                                          "kelvin_voigt",
                                          "kelvin_voigt_cr",
                                          "lankarani_nikravesh",
                                          "thornton"};

material steel() { return {"steel", "", 205e9, 0.29, 530e6, 7870, brinell_to_pascal(163), "test", ""}; }
material aluminium() { return {"aluminium", "", 68.9e9, 0.33, 276e6, 2700, brinell_to_pascal(95), "test", ""}; }

// A 10 mm steel sphere on a steel flat, and what each law needs beyond the pair.
law_inputs inputs_for(const std::string& name) {
  law_inputs in;
  in.pair = contact_pair{steel(), steel(), 0.01, flat_radius, 0.0, cylinder_contact::external};
  if (name == "johnson_cylinder") {
    in.pair->radius_2 = 0.02;
    in.pair->length = 0.01;
  }
  if (name == "cor" || name == "kelvin_voigt_cr" || name == "lankarani_nikravesh" ||
      name == "hunt_crossley" || name == "flores" || name == "gonthier")
    in.values["restitution"] = 0.6;
  if (name == "kelvin_voigt_cr") in.values["stiffness"] = 1e7;
  if (name.rfind("elastogap", 0) == 0) in.values["damping"] = 50.0;
  return in;
}

}  // namespace

TEST_CASE("registry: builtin laws are registered once and listed", "[contact][registry]") {
  register_builtin_laws();
  register_builtin_laws();  // idempotent
  CHECK(registered_laws() == builtin);
  CHECK_THROWS_AS(register_law("hertz", nullptr), std::logic_error);
}

TEST_CASE("registry: an unknown law is an error listing the known ones", "[contact][registry]") {
  register_builtin_laws();
  CHECK_THROWS_AS(make_law("hertzian"), contactuq::parameter_error);
  CHECK_THROWS_WITH(make_law("hertzian"), Contains("unknown contact law 'hertzian'") &&
                                              Contains("brake") && Contains("thornton"));
}

TEST_CASE("registry: every builtin law builds from a contact pair and keeps the invariants",
          "[contact][registry]") {
  register_builtin_laws();
  const std::string name = GENERATE(from_range(builtin));
  INFO(name);
  auto law = make_law(name, inputs_for(name));
  CHECK(law.name() == name);
  CHECK(law.is_impact_map() == (name == "cor"));
  // Start of contact, then a loading/unloading sweep on the committed path.
  CHECK(law.force(0.0, 0.5) == 0.0);
  const double dm = 2e-6;
  double last = 0.0;
  for (int i = 1; i <= 50; ++i) {
    const double d = dm * i / 50;
    const double f = law.force(d, 0.5);
    if (name != "cor") CHECK(f > last);
    CHECK(law.release_margin(d, 0.5) > 0);
    last = f;
  }
  for (int i = 49; i >= 0; --i) {
    const double d = dm * i / 50;
    const double peek = law.peek_force(d, -0.5);
    CHECK(law.force(d, -0.5) == peek);
    if (name != "elastogap_unbounded") CHECK(peek >= 0.0);  // only the naive variant pulls
  }
  CHECK(law.force(0.0, -0.5) == 0.0);
  if (name == "elastogap_unbounded") CHECK(law.peek_force(1e-9, -0.5) < 0.0);
}

TEST_CASE("registry: parameters come from the pair unless given", "[contact][registry]") {
  register_builtin_laws();
  law_inputs in;
  in.pair = contact_pair{steel(), aluminium(), 0.005, 0.01, 0.0, cylinder_contact::external};
  auto hertz = make_law("hertz", in);
  const double e = 1 / ((1 - 0.29 * 0.29) / 205e9 + (1 - 0.33 * 0.33) / 68.9e9);
  const double r = 1 / (1 / 0.005 + 1 / 0.01);
  CHECK(hertz.force(1e-6, 0) == Approx(4.0 / 3.0 * e * std::sqrt(r) * 1e-9).epsilon(1e-13));
  in.values["stiffness"] = 1e9;
  in.values["exponent"] = 1.0;
  CHECK(make_law("hertz", in).force(1e-6, 0) == Approx(1e3));
  // Etsion takes nu and H = 2.8 sigma_y (Tabor) of the body that yields first (aluminium).
  law_inputs only_values;
  only_values.values = {{"modulus", e}, {"radius", r}, {"poisson", 0.33}, {"hardness", 2.8 * 276e6}};
  law_inputs pair_only;
  pair_only.pair = in.pair;
  auto from_pair = make_law("etsion", pair_only);
  auto from_values = make_law("etsion", only_values);
  for (double d : {1e-7, 1e-6, 1e-5, 1e-4})
    CHECK(from_pair.force(d, 1) == Approx(from_values.force(d, 1)).epsilon(1e-13));
  // Brake: nu of the body that yields first, p0 of eq. (19) = the softer body's hardness.
  auto brake_pair = make_law("brake", pair_only);
  auto brake_values = make_law(
      "brake", {{},
                {{"modulus", e},
                 {"radius", r},
                 {"yield_strength", 276e6},
                 {"poisson", 0.33},
                 {"hardness", 95 * 9.80665e6}}});
  for (double d : {1e-7, 1e-6, 1e-5, 1e-4})
    CHECK(brake_pair.force(d, 1) == Approx(brake_values.force(d, 1)).epsilon(1e-13));
}

TEST_CASE("registry: etsion picks the body that yields first, not the more compliant one",
          "[contact][registry]") {
  register_builtin_laws();
  // A soft-yielding stiff body (E 205 GPa, sigma_y 200 MPa) on a hard-yielding compliant one
  // (E 71.7 GPa, sigma_y 503 MPa): the stiff one yields first.
  const material soft_steel{"soft", "", 205e9, 0.29, 200e6, 7870, brinell_to_pascal(60), "test", ""};
  const material hard_alu{"hard", "", 71.7e9, 0.33, 503e6, 2810, brinell_to_pascal(150), "test", ""};
  law_inputs pair_only;
  pair_only.pair = contact_pair{hard_alu, soft_steel, 0.01, flat_radius, 0.0,
                                cylinder_contact::external};
  const double e = 1 / ((1 - 0.29 * 0.29) / 205e9 + (1 - 0.33 * 0.33) / 71.7e9);
  auto from_pair = make_law("etsion", pair_only);
  auto from_values = make_law(
      "etsion", {{}, {{"modulus", e}, {"radius", 0.01}, {"poisson", 0.29}, {"hardness", 560e6}}});
  for (double d : {1e-7, 1e-6, 1e-5, 1e-4})
    CHECK(from_pair.force(d, 1) == Approx(from_values.force(d, 1)).epsilon(1e-13));
}

TEST_CASE("registry: bad or missing parameters are named", "[contact][registry]") {
  register_builtin_laws();
  CHECK_THROWS_WITH(make_law("hertz"),
                    Contains("hertz: missing parameter 'stiffness'") && Contains("contact pair"));
  CHECK_THROWS_WITH(make_law("cor"), Contains("cor: missing parameter 'restitution'"));
  CHECK_THROWS_WITH(make_law("cor", {{}, {{"restitution", 1.5}}}),
                    Contains("cor: restitution = 1.5") && Contains("(0, 1]"));
  CHECK_THROWS_WITH(
      make_law("kelvin_voigt", {{}, {{"stifness", 1e7}}}),
      Contains("kelvin_voigt: unknown parameter 'stifness'") && Contains("stiffness, damping"));
  CHECK_THROWS_WITH(
      make_law("thornton", {{}, {{"modulus", 1e11}, {"radius", 0.01}, {"yield_strength", -5}}}),
      Contains("thornton: yield_strength = -5 Pa"));
  law_inputs bad_pair;
  bad_pair.pair =
      contact_pair{steel(), steel(), -0.01, flat_radius, 0.0, cylinder_contact::external};
  CHECK_THROWS_WITH(make_law("hertz", bad_pair),
                    Contains("hertz: contact pair: radius_1 = -0.01 m"));
  bad_pair.pair->radius_1 = 0.01;
  bad_pair.pair->body_2.poisson = 0.7;
  CHECK_THROWS_WITH(make_law("hertz", bad_pair), Contains("steel.poisson = 0.7"));
  try {
    make_law("brake", {{}, {{"modulus", 1e11}}});
    FAIL("expected a parameter_error");
  } catch (const contactuq::parameter_error& e) {
    CHECK(e.field() == "radius");
  }
}

TEST_CASE("registry: a law is a value, copies carry the history and peeks leave it alone",
          "[contact][registry]") {
  register_builtin_laws();
  auto law =
      make_law("thornton", {{}, {{"modulus", 115e9}, {"radius", 0.01}, {"yield_strength", 500e6}}});
  const double dm = 2e-5;  // well past yield
  const double loading_at_half = law.force(0.5 * dm, 1.0);
  law.peek_force(10 * dm, 1.0);  // a trial state far beyond: must not move delta_m
  law.force(dm, 1.0);
  auto copy = law;
  const double unloading_at_half = copy.force(0.5 * dm, -1.0);
  CHECK(unloading_at_half < loading_at_half);
  CHECK(law.peek_force(0.5 * dm, -1.0) == unloading_at_half);
  CHECK(copy.release_margin(0.5 * dm, -1.0) < 0.5 * dm);  // residual overlap > 0
  law.reset();
  CHECK(law.force(0.5 * dm, 1.0) == loading_at_half);
  auto cor = make_law("cor", {{}, {{"restitution", 0.8}}});
  CHECK(cor.is_impact_map());
  CHECK(cor.restitution() == 0.8);
  CHECK(law.restitution() == 0.0);
}
