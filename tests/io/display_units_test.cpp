// [output] units: presets, base units, units by variable name, and the messages for bad ones.
#include <catch2/catch.hpp>

#include "contactuq/io/display_units.hpp"

namespace io = contactuq::io;
namespace u = contactuq::units;
using Catch::Matchers::Contains;

namespace {

const std::vector<io::named_dimension> variables = {
    {"peak_force", u::force}, {"settling_time", u::duration}, {"K", u::torsional_stiffness}};

io::display_units read(const std::string& units_value) {
  const auto doc = io::study_document::parse("[output]\nunits = " + units_value + "\n", "s.toml");
  return io::read_display_units(doc.root().table("output"), variables);
}

}  // namespace

TEST_CASE("display units: SI by default, presets and base units compose every dimension", "[io][units]") {
  const io::display_units si;
  CHECK(si.base.is_si());
  CHECK(si.unit_for("peak_force", u::force) == "N");
  CHECK(si.unit_for("x", u::energy) == "J");
  CHECK(si.unit_for("e", u::dimensionless).empty());
  CHECK(si.factor("peak_force", u::force) == 1.0);

  const auto inch = read("\"in-lbf\"");
  CHECK(inch.unit_for("x", u::length) == "in");
  CHECK(inch.unit_for("K", u::torsional_stiffness) == "lbf*in/deg");
  CHECK(inch.unit_for("v", u::velocity) == "in/s");
  CHECK(inch.unit_for("e", u::dimensionless).empty());
  CHECK(inch.factor("x", u::length) == Approx(1.0 / 0.0254).epsilon(1e-14));
  CHECK(inch.factor("F", u::force) == Approx(1.0 / 4.4482216152605).epsilon(1e-12));

  const auto mixed = read("{ length = \"mm\", time = \"ms\" }");
  CHECK(mixed.unit_for("v", u::velocity) == "mm/ms");
  CHECK(mixed.factor("v", u::velocity) == Approx(1.0).epsilon(1e-14));
  CHECK(mixed.unit_for("F", u::force) == "N");
}

TEST_CASE("display units: a variable's own unit wins over the base units", "[io][units]") {
  const auto d = read("{ force = \"lbf\", peak_force = \"grf\", settling_time = \"ms\" }");
  CHECK(d.unit_for("peak_force", u::force) == "grf");
  CHECK(d.factor("peak_force", u::force) == Approx(1.0 / 9.80665e-3).epsilon(1e-12));
  CHECK(d.unit_for("other_force", u::force) == "lbf");
  CHECK(d.factor("settling_time", u::duration) == Approx(1e3).epsilon(1e-14));
}

TEST_CASE("display units: unknown names, wrong dimensions and unknown units are errors at the key", "[io][units]") {
  CHECK_THROWS_WITH(read("{ peak_forse = \"lbf\" }"),
                    Contains("s.toml:2") && Contains("peak_forse") && Contains("peak_force, settling_time, K"));
  CHECK_THROWS_WITH(read("{ peak_force = \"in\" }"), Contains("output.units.peak_force") && Contains("a force"));
  CHECK_THROWS_WITH(read("{ length = \"furlong\" }"), Contains("furlong"));
  CHECK_THROWS_WITH(read("\"imperial\""), Contains("in-lbf"));
}
