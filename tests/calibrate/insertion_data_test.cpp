#include "contactuq/calibrate/insertion_data.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "contactuq/units/quantity.hpp"
#include "io/scratch_dir.hpp"

namespace cal = contactuq::calibrate;
namespace u = contactuq::units;
using Catch::Matchers::Contains;

namespace {

cal::insertion_data parse(const std::string& text) {
  return cal::parse_insertion_csv(text, "bench.csv");
}

}  // namespace

TEST_CASE(
    "insertion CSV: units from the header, strokes grouped by insertion and direction, SI inside") {
  const auto d = parse(
      "# bench run 12, 25 g load cell\n"
      "insertion,direction,x [in],F [grf]\n"
      "A,forward,0,0\n"
      "A,forward,0.1,-2.5\n"
      "B,forward,0,0.01\n"
      "A,reverse,0.1,1.5\n"
      "A,reverse,0,0\n"
      "B,forward,0.1,-2.4\n");
  REQUIRE(d.strokes.size() == 3);
  CHECK(d.insertions() == std::vector<std::string>{"A", "B"});
  CHECK(d.comments == std::vector<std::string>{"bench run 12, 25 g load cell"});
  CHECK(d.length_unit == "in");
  CHECK(d.force_unit == "grf");
  CHECK(d.points() == 6);
  const auto& a_fwd = d.strokes[0];
  CHECK(a_fwd.insertion == "A");
  CHECK(a_fwd.direction == cal::stroke_direction::forward);
  CHECK(a_fwd.x[1] == Approx(0.00254).epsilon(1e-15));                // 0.1 in = 2.54 mm exactly
  CHECK(a_fwd.force[1] == Approx(-2.5 * 9.80665e-3).epsilon(1e-15));  // gram-force
  CHECK(a_fwd.line == std::vector<int>{3, 4});
  CHECK(d.strokes[1].insertion == "A");
  CHECK(d.strokes[1].direction == cal::stroke_direction::reverse);
  CHECK(d.strokes[2].insertion == "B");
  CHECK(d.strokes[2].weight == std::vector<double>{1.0, 1.0});
}

TEST_CASE(
    "insertion CSV without insertion and direction columns: one insertion per file, turning at the "
    "largest x") {
  const auto d =
      cal::parse_insertion_csv("x [mm],F [N],weight\n0,0,1\n1,-0.1,2\n2,-0.2,0.5\n1,0.1,1\n0,0,1\n",
                               "runs/insertion_07.csv");
  REQUIRE(d.strokes.size() == 2);
  CHECK(d.strokes[0].insertion == "insertion_07");
  CHECK(d.strokes[0].x.size() == 3);  // up to and including x = 2 mm
  CHECK(d.strokes[1].direction == cal::stroke_direction::reverse);
  CHECK(d.strokes[1].x == std::vector<double>{1e-3, 0.0});
  CHECK(d.strokes[0].weight == std::vector<double>{1.0, 2.0, 0.5});
}

TEST_CASE("insertion CSV: forces positive while inserting are turned into the model's convention") {
  const std::string text = "direction,x [mm],F [N]\nforward,0,0\nforward,1,0.3\n";
  const auto as_model =
      cal::parse_insertion_csv(text, "a.csv", cal::force_convention::on_receptacle);
  const auto flipped =
      cal::parse_insertion_csv(text, "a.csv", cal::force_convention::insertion_positive);
  CHECK(as_model.strokes[0].force[1] == 0.3);
  CHECK(flipped.strokes[0].force[1] == -0.3);
}

TEST_CASE("insertion CSV: bad data gives a message naming file, line and the problem") {
  using E = cal::data_error;
  CHECK_THROWS_MATCHES(
      parse(""), E,
      Catch::Matchers::Message("bench.csv: the file is empty: expected a header such as "
                               "\"insertion,direction,x [in],F [grf]\" and data rows"));
  CHECK_THROWS_WITH(parse("# only a comment\n\n"), Contains("bench.csv: the file is empty"));
  CHECK_THROWS_WITH(parse("x [in],F [grf]\n"),
                    Contains("bench.csv: no data rows after the header"));
  CHECK_THROWS_WITH(
      parse("x [in],F [grf]\n0.1,-2\n"),
      Contains("bench.csv:2:") && Contains("a single point; a stroke needs at least 2 points"));
  CHECK_THROWS_WITH(parse("direction,x [in],F [grf]\nforward,0,0\nforward,0.1,-1\nreverse,0.1,1\n"),
                    Contains("bench.csv:4: insertion bench, reverse stroke: a single point"));
  CHECK_THROWS_WITH(parse("x [in],F [grf]\n0,0\n0.1,nan\n0.2,-1\n"),
                    Contains("bench.csv:3: F [grf] = nan is not a finite number"));
  CHECK_THROWS_WITH(parse("x [in],F [grf]\n0,0\n0.1,inf\n"),
                    Contains("bench.csv:3: F [grf] = inf is not a finite"));
  CHECK_THROWS_WITH(parse("x [in],F [grf]\n0,0\n0.1,\n"),
                    Contains("bench.csv:3: F [grf]: empty cell"));
  CHECK_THROWS_WITH(parse("x [in],F [grf]\n0,0\n0.1,1.2.3\n"),
                    Contains("bench.csv:3: F [grf] = \"1.2.3\" is not a number"));
  CHECK_THROWS_WITH(parse("x [furlong],F [grf]\n0,0\n"),
                    Contains("bench.csv:1: column \"x [furlong]\"") &&
                        Contains("unknown unit 'furlong'") && Contains("known units:"));
  CHECK_THROWS_WITH(parse("x,F [grf]\n0,0\n"),
                    Contains("bench.csv:1: column \"x\" has no unit") && Contains("x [in]"));
  CHECK_THROWS_WITH(parse("x [grf],F [grf]\n0,0\n"),
                    Contains("[grf] is a force, expected a length"));
  CHECK_THROWS_WITH(parse("x [in],F [grf],temperature [K]\n0,0,1\n"),
                    Contains("unknown column \"temperature [K]\"") &&
                        Contains("optionally insertion, direction, weight"));
  CHECK_THROWS_WITH(parse("x [in]\n0\n"),
                    Contains("needs a displacement column x [unit] and a force column F [unit]"));
  CHECK_THROWS_WITH(parse("direction,x [in],F [grf]\nin,0,0\n"),
                    Contains("bench.csv:2: direction = \"in\": must be forward or reverse"));
  CHECK_THROWS_WITH(parse("x [in],F [grf]\n0,0,7\n"),
                    Contains("bench.csv:2: 3 cells, the header has 2 columns"));
  CHECK_THROWS_WITH(parse("x [in],F [grf],weight\n0,0,-1\n0.1,0,1\n"),
                    Contains("bench.csv:2: weight = -1: must be >= 0"));
  CHECK_THROWS_WITH(cal::read_insertion_csv("/nonexistent/run.csv"),
                    Contains("/nonexistent/run.csv: cannot open the file"));
}

TEST_CASE("insertion CSV: written data read back give the same SI values in any unit system") {
  contactuq::testing::scratch_dir dir;
  cal::insertion_data d;
  cal::measured_stroke s;
  s.insertion = "7";
  s.x = {0.0, 1.234567e-3, 4.5e-3};
  s.force = {0.0, -0.0123456789, -0.05};
  s.weight = {1.0, 1.0, 0.25};
  d.strokes.push_back(s);
  for (const auto& [len, force] : {std::pair{"in", "grf"}, {"mm", "mN"}, {"m", "lbf"}}) {
    cal::write_insertion_csv(dir / "d.csv", d, len, force, {"synthetic test"});
    const auto back = cal::read_insertion_csv(dir / "d.csv");
    REQUIRE(back.strokes.size() == 1);
    CHECK(back.length_unit == len);
    CHECK(back.comments.front() == "synthetic test");
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(back.strokes[0].x[i] == Approx(s.x[i]).epsilon(1e-15).margin(1e-300));
      CHECK(back.strokes[0].force[i] == Approx(s.force[i]).epsilon(1e-15));
      CHECK(back.strokes[0].weight[i] == s.weight[i]);
    }
  }
}

TEST_CASE("insertion CSV: several files are joined, repeated insertion labels rejected") {
  contactuq::testing::scratch_dir dir;
  cal::insertion_data d;
  cal::measured_stroke s;
  s.insertion = "1";
  s.x = {0.0, 1e-3};
  s.force = {0.0, -0.01};
  s.weight = {1.0, 1.0};
  d.strokes.push_back(s);
  cal::write_insertion_csv(dir / "a.csv", d, "mm", "N", {});
  d.strokes[0].insertion = "2";
  cal::write_insertion_csv(dir / "b.csv", d, "in", "grf", {});
  const auto both = cal::read_insertion_csvs({dir / "a.csv", dir / "b.csv"});
  CHECK(both.insertions() == std::vector<std::string>{"1", "2"});
  CHECK(both.length_unit == "mm");
  CHECK(both.strokes[1].x[1] == Approx(1e-3).epsilon(1e-15));
  CHECK_THROWS_WITH(cal::read_insertion_csvs({dir / "a.csv", dir / "a.csv"}),
                    Contains("insertion \"1\" also appears in an earlier file"));
}

TEST_CASE("insertion CSV: CR-only and CRLF line endings and a UTF-8 byte order mark read as plain lines") {
  const std::string lines[] = {"# bench", "insertion,direction,x [in],F [grf]", "A,forward,0,0", "A,forward,0.1,-2.5",
                               "A,reverse,0.1,1.5", "A,reverse,0,0"};
  for (const std::string end : {"\n", "\r\n", "\r"}) {
    for (const std::string bom : {"", "\xEF\xBB\xBF"}) {
      std::string text = bom;
      for (const auto& l : lines) text += l + end;
      const auto d = parse(text);
      REQUIRE(d.strokes.size() == 2);
      CHECK(d.strokes[0].x[1] == Approx(0.00254).epsilon(1e-15));
      CHECK(d.strokes[1].line == std::vector<int>{5, 6});
      CHECK(d.comments == std::vector<std::string>{"bench"});
    }
  }
}

TEST_CASE("insertion CSV: errors show binary bytes escaped, devices and non-finite values are refused") {
  try {
    parse(std::string("x [in],F [grf]\n0,1\n\x01\x02\xFF,3\n"));
    FAIL("no error");
  } catch (const cal::data_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Contains("bench.csv:3") && Contains("\\x01\\x02\\xFF"));
    CHECK(std::none_of(what.begin(), what.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }));
  }
  CHECK_THROWS_WITH(cal::read_insertion_csv("/dev/zero"), Contains("/dev/zero: not a regular file"));
  contactuq::testing::scratch_dir dir;
  cal::insertion_data d;
  cal::measured_stroke s;
  s.insertion = "1";
  s.x = {0.0, 1e-3};
  s.force = {0.0, std::numeric_limits<double>::infinity()};
  s.weight = {1.0, 1.0};
  d.strokes.push_back(s);
  CHECK_THROWS_WITH(cal::write_insertion_csv(dir / "inf.csv", d, "in", "grf", {}),
                    Contains("inf.csv") && Contains("point 2") && Contains("not finite"));
  CHECK_FALSE(std::filesystem::exists(dir / "inf.csv"));
}
