#include "contactuq/contact/material.hpp"

#include <catch2/catch.hpp>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/error.hpp"

using namespace contactuq::contact;
using Catch::Matchers::Contains;

namespace {
const std::string table_path = CONTACTUQ_SOURCE_DIR "/data/materials.toml";
}

TEST_CASE("materials: the shipped table loads and covers the families the laws need",
          "[contact][material]") {
  const auto table = material_table::load(table_path);
  const auto names = table.names();
  for (const char* family : {"steel", "stainless", "aluminium", "brass", "beryllium_copper",
                             "phosphor_bronze", "nickel"}) {
    INFO(family);
    CHECK(std::any_of(names.begin(), names.end(),
                      [&](const std::string& n) { return n.rfind(family, 0) == 0; }));
  }
  for (const auto& name : names) {
    INFO(name);
    const auto& m = table.at(name);
    CHECK_NOTHROW(m.validate());
    CHECK(!m.source.empty());
    CHECK(!m.description.empty());
    // Tabor: Brinell hardness is roughly 2.5-3.5 sigma_y for work-hardened metals and higher for
    // annealed ones; a value outside 1.5-8 sigma_y would be a unit slip.
    CHECK(m.hardness / m.yield_strength > 1.5);
    CHECK(m.hardness / m.yield_strength < 8.0);
  }
  const auto& al = table.at("aluminium_6061_t6");
  CHECK(al.modulus == Approx(68.9e9));
  CHECK(al.yield_strength == Approx(276e6));
  CHECK(al.density == Approx(2700));
  CHECK(al.hardness == brinell_to_pascal(95));  // HB 95, converted once when read
  CHECK(al.hardness == Approx(95 * 9.80665e6));
}

TEST_CASE("materials: errors name the file, line and key", "[contact][material]") {
  const std::string good = R"(
[steel]
modulus = "205 GPa"
poisson = 0.29
yield_strength = "370 MPa"
density = "7870 kg/m^3"
brinell_hardness = 126
source = "a handbook"
)";
  CHECK(material_table::parse(good, "t.toml").at("steel").modulus == Approx(205e9));
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  CHECK_THROWS_WITH(material_table::parse(with("\"205 GPa\"", "\"205 mm\""), "t.toml"),
                    Contains("t.toml:3: steel.modulus") && Contains("length"));
  CHECK_THROWS_WITH(material_table::parse(with("\"205 GPa\"", "205e9"), "t.toml"),
                    Contains("t.toml:3: steel.modulus") && Contains("units"));
  CHECK_THROWS_WITH(material_table::parse(with("poisson = 0.29", "poisson = 0.6"), "t.toml"),
                    Contains("t.toml:4: steel.poisson = 0.6") && Contains("[0, 0.5)"));
  CHECK_THROWS_WITH(material_table::parse(with("\"370 MPa\"", "\"-1 MPa\""), "t.toml"),
                    Contains("t.toml:5: steel.yield_strength"));
  CHECK_THROWS_WITH(material_table::parse(with("density = \"7870 kg/m^3\"\n", ""), "t.toml"),
                    Contains("t.toml:2: steel.density: missing"));
  CHECK_THROWS_WITH(material_table::parse(with("= 126", "= 0"), "t.toml"),
                    Contains("t.toml:7: steel.brinell_hardness") && Contains("positive"));
  CHECK_THROWS_WITH(material_table::parse(with("source", "sauce"), "t.toml"),
                    Contains("t.toml:8: steel.sauce: unknown key"));
  CHECK_THROWS_WITH(material_table::parse("[steel\nmodulus = 1", "t.toml"), Contains("t.toml:1"));
  CHECK_THROWS_WITH(material_table::load("/nonexistent/m.toml"),
                    Contains("/nonexistent/m.toml: cannot open"));
}

TEST_CASE("materials: an unknown name lists the known ones", "[contact][material]") {
  const auto table = material_table::load(table_path);
  CHECK_THROWS_AS(table.at("unobtainium"), contactuq::parameter_error);
  CHECK_THROWS_WITH(table.at("unobtainium"), Contains("unknown material 'unobtainium'") &&
                                                 Contains("aluminium_6061_t6") &&
                                                 Contains("nickel_200"));
}
