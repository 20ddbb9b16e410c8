#include "contactuq/units/quantity.hpp"

#include <catch2/catch.hpp>

#include <numbers>
#include <stdexcept>

using namespace contactuq::units;
using Catch::Matchers::Contains;

TEST_CASE("quantities convert to SI", "[units]") {
  CHECK(to_si("0.300 in", length) == Approx(0.00762).epsilon(1e-15));
  CHECK(to_si("15 deg", angle) == Approx(15 * std::numbers::pi / 180).epsilon(1e-15));
  CHECK(to_si("2 grf", force) == Approx(2 * 9.80665e-3).epsilon(1e-15));
  CHECK(to_si("1 lbf", force) == Approx(4.4482216152605).epsilon(1e-15));
  // 0.004 lbf*in/deg, the receptacle stiffness of Williams Table 1, in N*m/rad.
  CHECK(to_si("0.004 lbf*in/deg", torsional_stiffness) ==
        Approx(0.004 * 4.4482216152605 * 0.0254 * 180 / std::numbers::pi).epsilon(1e-14));
  CHECK(to_si("10 N/mm", stiffness) == Approx(1e4));
  CHECK(to_si("280 N*s/m", damping) == Approx(280));
  CHECK(to_si("9.81 m/s^2", length / (duration * duration)) == Approx(9.81));
  CHECK(to_si("9.81 m/s/s", length / (duration * duration)) == Approx(9.81));
  CHECK(to_si("7850 kg/m^3", density) == Approx(7850));
  CHECK(to_si("210 GPa", pressure) == Approx(2.1e11));
  CHECK(to_si("15deg", angle) == Approx(to_si("15 deg", angle)));
  CHECK(to_si("-0.007 in", length) == Approx(-0.007 * 0.0254));
  CHECK(to_si("0.2", dimensionless) == 0.2);
  CHECK(to_si("5 %", dimensionless) == Approx(0.05));
}

TEST_CASE("unit conversion round-trips", "[units]") {
  const auto [text, unit_text, dim] = GENERATE(table<const char*, const char*, dimension>({
      {"0.300 in", "in", length},
      {"0.0116 lbf*in/deg", "lbf*in/deg", torsional_stiffness},
      {"2 grf", "grf", force},
      {"1.5 deg", "deg", angle},
      {"3 ksi", "ksi", pressure},
      {"12 mil", "mil", length},
  }));
  const double si = to_si(text, dim);
  const double back = from_si(si, unit_text, dim);
  CHECK(back == Approx(parse_quantity(std::string(text).substr(0, std::string(text).find(' ')))
                           .si)
                    .epsilon(1e-14));
  CHECK(to_si(std::to_string(back) + " " + unit_text, dim) == Approx(si).epsilon(1e-6));
  // And through a different unit of the same dimension.
  CHECK(from_si(si, si_unit(dim), dim) == Approx(si).epsilon(1e-15));
}

TEST_CASE("bad quantities say what is wrong and what is allowed", "[units]") {
  CHECK_THROWS_WITH(to_si("15 in", angle), Contains("is a length") && Contains("expected an angle") &&
                                              Contains("deg"));
  CHECK_THROWS_WITH(to_si("0.3", length), Contains("has no unit") && Contains("in"));
  CHECK_THROWS_WITH(to_si("0.3 inch", length), Contains("unknown unit 'inch'") && Contains("mil"));
  CHECK_THROWS_WITH(to_si("abc in", length), Contains("not a number"));
  CHECK_THROWS_WITH(to_si("1 m/s^x", velocity), Contains("bad power"));
  CHECK_THROWS_WITH(to_si("0.004 lbf*in", torsional_stiffness),
                    Contains("is an energy") && Contains("torsional stiffness"));
  CHECK_THROWS_WITH(from_si(1.0, "deg", length), Contains("expected a length"));
}

TEST_CASE("dimensions are described by name", "[units]") {
  CHECK(describe(torsional_stiffness) == "a torsional stiffness");
  CHECK(si_unit(torsional_stiffness) == "N*m/rad");
  CHECK(si_unit(length * length) == "m^2");
  CHECK(describe(length * length) == "a quantity in m^2");
}

TEST_CASE("every SI unit the library writes parses back to its dimension", "[units]") {
  for (int l = -3; l <= 3; ++l)
    for (int m = -2; m <= 2; ++m)
      for (int t = -3; t <= 3; ++t)
        for (int a = -2; a <= 2; ++a) {
          const dimension d{l, m, t, a};
          const std::string text = si_unit(d);
          INFO(text);
          const unit u = parse_unit(text);
          CHECK(u.dim == d);
          CHECK(u.to_si == 1.0);
        }
  CHECK(parse_unit("m*kg/(s^2*rad)").dim == force / angle);
  CHECK(si_unit(force / angle) == "N/rad");  // named, not m*kg/(s^2*rad)
  CHECK(parse_unit("N/(m*s)").to_si == 1.0);
  CHECK_THROWS_WITH(parse_unit("N/(m*(s))"), Contains("nested parentheses"));
  CHECK_THROWS_WITH(parse_unit("N/(m*s"), Contains("unbalanced"));
  CHECK_THROWS_WITH(parse_unit("N/(m*s)^2"), Contains("power of a parenthesised group"));
}
