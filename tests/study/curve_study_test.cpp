#include "contactuq/study/curve_study.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/study/curve_output.hpp"

using namespace contactuq;
using namespace contactuq::study;
using Catch::Matchers::Contains;

namespace {

const std::string source_dir = CONTACTUQ_SOURCE_DIR;
constexpr double inch = 0.0254;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The bifurcated study with one line replaced, parsed under the same file name.
curve_study_options with_line(const std::string& from, const std::string& to) {
  std::string text = read_text(source_dir + "/studies/williams_bifurcated.toml");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return read_curve_study(io::study_document::parse(text, "williams_bifurcated.toml"));
}

}  // namespace

TEST_CASE("every shipped Williams study reads and runs", "[curve_study]") {
  for (const auto& entry : std::filesystem::directory_iterator(source_dir + "/studies")) {
    if (entry.path().filename().string().rfind("williams_", 0) != 0) continue;
    INFO(entry.path());
    const auto options = read_curve_study(io::study_document::load(entry.path()));
    const auto cases = run_curve_study(options);
    REQUIRE_FALSE(cases.empty());
    CHECK(cases.front().figure(curve_figure::peak_insertion) > 0.0);
  }
}

TEST_CASE("the bifurcated study reproduces Table 1 in SI", "[curve_study]") {
  const auto options = read_curve_study(io::study_document::load(source_dir + "/studies/williams_bifurcated.toml"));
  CHECK(options.model.L == Approx(0.300 * inch));
  CHECK(options.model.phi == Approx(15 * std::numbers::pi / 180));
  CHECK(options.model.K == Approx(0.004 * 4.4482216152605 * inch * 180 / std::numbers::pi));
  REQUIRE(options.arms.size() == 2);
  CHECK(options.arms[1].direction == contact::arm_direction::disengage);
  CHECK(options.arms[1].count == 2);
  CHECK(options.stroke.points == 500);
  const auto cases = run_curve_study(options);
  CHECK(cases[0].figure(0, group_figure::peak_theta) * 180 / std::numbers::pi == Approx(1.3374).margin(5e-4));
}

TEST_CASE("bad curve studies give file, line, key and what is allowed", "[curve_study]") {
  CHECK_THROWS_WITH(with_line("L = \"0.300 in\"", "L = \"-0.300 in\""),
                    Contains("williams_bifurcated.toml:") && Contains("model.L = \"-0.300 in\"") &&
                        Contains("must be > 0"));
  CHECK_THROWS_WITH(with_line("K = \"0.004 lbf*in/deg\"", "K = \"0 lbf*in/deg\""), Contains("must be > 0"));
  CHECK_THROWS_WITH(with_line("phi = \"15 deg\"", "phi = \"95 deg\""), Contains("model.phi") && Contains("(0, 90) deg"));
  CHECK_THROWS_WITH(with_line("mu = 0.020", "mu = -0.1"), Contains("model.mu = -0.1") && Contains(">= 0"));
  CHECK_THROWS_WITH(with_line("Rt = \"0.003 in\"", "Rt = \"0.05 in\""), Contains("[model]") && Contains("cone length"));
  CHECK_THROWS_WITH(with_line("h = \"0.026 in\"", "h = \"0.5 in\""), Contains("no real root"));
  CHECK_THROWS_WITH(with_line("type = \"receptacle_pin\"", "type = \"receptacle\""),
                    Contains("unknown model type") && Contains("receptacle_pin"));
  CHECK_THROWS_WITH(with_line("mu = 0.020", "muu = 0.020"), Contains("model.muu") && Contains("unknown key"));
  CHECK_THROWS_WITH(with_line("direction = \"engage\"", "direction = \"in\""),
                    Contains("model.arms[1].direction = \"in\": must be one of: engage, disengage"));
  CHECK_THROWS_WITH(with_line("count = 2", "count = 0"), Contains("model.arms[1].count = 0"));
  CHECK_THROWS_WITH(with_line("points = 500", "points = 1"), Contains("stroke.points = 1"));
  CHECK_THROWS_WITH(with_line("to = \"0.21 in\"", "to = \"0.21 deg\""), Contains("stroke.to") && Contains("expected a length"));
  CHECK_THROWS_WITH(with_line("[output]", "[sweep]\nparameter = \"mass\"\nvalues = [1]\n[output]"),
                    Contains("sweep.parameter = \"mass\"") && Contains("theta0"));
  CHECK_THROWS_WITH(with_line("[output]", "[sweep]\nparameter = \"phi\"\nvalues = [\"15 deg\", \"91 deg\"]\n[output]"),
                    Contains("sweep.values") && Contains("phi"));
  CHECK_THROWS_WITH(with_line("force = \"grf\"", "force = \"gram\""), Contains("unknown unit 'gram'"));
  CHECK_THROWS_WITH(with_line("force = \"grf\"", "force = \"in\""), Contains("expected a force"));
}

TEST_CASE("output units label and convert every column", "[curve_study]") {
  output_units u{"in", "lbf", "deg"};
  CHECK(u.unit_for(units::torsional_stiffness) == "lbf*in/deg");
  CHECK(u.unit_for(units::dimensionless).empty());
  CHECK(u.from_si(0.0254, units::length) == Approx(1.0));
  CHECK(u.from_si(u.from_si(1.0, units::torsional_stiffness), units::dimensionless) ==
        Approx(1.0 / (4.4482216152605 * 0.0254 * 180 / std::numbers::pi)));
}

TEST_CASE("the CSV has the documented columns, units and values", "[curve_study]") {
  const auto options = read_curve_study(io::study_document::load(source_dir + "/studies/williams_sweep_mu.toml"));
  const auto cases = run_curve_study(options);
  const auto path = std::filesystem::temp_directory_path() / "contactuq_curve_test.csv";
  write_curve_csv(path, options, cases);
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("mu,x [in],g1_Fx [grf],g1_Fy [grf],g1_Fn [grf],g1_Ft [grf],g1_theta [deg],g1_alpha [deg],"
                     "g1_Lmn [in],g1_Lmt [in],g2_Fx [grf]", 0) == 0);
  CHECK(header.substr(header.size() - 29) == "Fx_total [grf],Fy_total [grf]");
  std::size_t rows = 0;
  std::string line, last;
  while (std::getline(in, line)) {
    ++rows;
    last = line;
  }
  CHECK(rows == 5 * 1000);
  // Last row: mu = 0.5, back at x = 0; the disengaging arm is on the barrel, the engaging arm is off the pin.
  CHECK(last.rfind("0.5,0,0,0,0,0,0,,,", 0) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("the HDF5 output holds the study, the curves and the summary in output units", "[curve_study]") {
  const auto doc = io::study_document::load(source_dir + "/studies/williams_sweep_theta0.toml");
  const auto options = read_curve_study(doc);
  const auto cases = run_curve_study(options);
  const auto path = std::filesystem::temp_directory_path() / "contactuq_curve_test.h5";
  write_curve_hdf5(path, doc, options, cases);

  io::hdf5::file f(path, io::hdf5::file_mode::read_only);
  CHECK(f.open_dataset("study").read_text() == doc.text());
  const auto fx = f.open_dataset("Fx_total");
  REQUIRE(fx.shape() == std::vector<std::size_t>{5, 1000});
  CHECK(fx.string_attribute("units") == "grf");
  const auto values = fx.read_doubles();
  constexpr double grf = 9.80665e-3;
  for (std::size_t c = 0; c < 5; ++c)
    for (std::size_t i = 0; i < 1000; i += 97) CHECK(values[c * 1000 + i] == Approx(cases[c].Fx_total()[i] / grf));
  const auto sweep = f.open_dataset("sweep");
  CHECK(sweep.string_attribute("parameter") == "theta0");
  CHECK(sweep.read_doubles() == std::vector<double>{-0.5, -0.25, 0.0, 0.25, 0.5});
  const auto theta = f.open_group("groups").open_group("g1").open_dataset("theta").read_doubles();
  CHECK(*std::max_element(theta.begin() + 2000, theta.begin() + 3000) == Approx(1.3374).margin(5e-4));
  CHECK(f.open_group("groups").open_group("g2").string_attribute("direction") == "disengage");
  const auto peak = f.open_group("summary").open_dataset("peak_insertion").read_doubles();
  for (std::size_t c = 0; c < 5; ++c) CHECK(peak[c] == Approx(cases[c].figure(curve_figure::peak_insertion) / grf));
  f.close();
  std::filesystem::remove(path);
}

TEST_CASE("a curve study through the model gives the contact functions' values bit for bit", "[curve_study]") {
  const auto options = read_curve_study(io::study_document::load(source_dir + "/studies/williams_sweep_mu.toml"));
  const auto cases = run_curve_study(options);
  REQUIRE(cases.size() == options.sweep->values.size());
  for (std::size_t c = 0; c < cases.size(); ++c) {
    contact::receptacle_pin_params p = options.model;
    p.mu = options.sweep->values[c];
    const contact::receptacle r(p, options.arms);
    const auto curve = contact::evaluate_curve(r, options.stroke);
    const auto summary = summarize(r, curve);
    CHECK(*cases[c].sweep_value == p.mu);
    CHECK(cases[c].Fx_total() == curve.Fx_total);
    CHECK(cases[c].Fy_total() == curve.Fy_total);
    for (std::size_t g = 0; g < options.arms.size(); ++g) {
      const auto& states = curve.group_states[g];
      for (std::size_t i = 0; i < states.size(); i += 37) {
        CHECK(cases[c].arm(g, arm_field::Fn)[i] == states[i].Fn);
        CHECK(cases[c].arm(g, arm_field::theta)[i] == states[i].theta);
        CHECK(std::isnan(cases[c].arm(g, arm_field::Lmt)[i]) == std::isnan(states[i].Lmt));
      }
      CHECK(cases[c].figure(g, group_figure::peak_theta) == summary.groups[g].peak_theta);
      CHECK(cases[c].figure(g, group_figure::x_cr4) == summary.groups[g].x_cr[3]);
      CHECK(static_cast<contact::pin_region>(cases[c].figure(g, group_figure::first_contact)) ==
            summary.groups[g].first_contact);
    }
    CHECK(cases[c].figure(curve_figure::peak_withdrawal_x) == summary.peak_withdrawal_x);
  }
}

TEST_CASE("the curve model is a model like any other: named inputs, outputs and curves", "[curve_study]") {
  const auto options = read_curve_study(io::study_document::load(source_dir + "/studies/williams_bifurcated.toml"));
  const model::model m = curve_model(options);
  CHECK(m.name() == "receptacle_pin");
  CHECK(m.find_input("theta0") < m.inputs().size());
  CHECK(m.find_input("g2_d0") < m.inputs().size());
  CHECK(m.outputs().size() == 4 + 7 * options.arms.size());
  CHECK(m.outputs()[4 + 7].name == "g2_x_c");
  REQUIRE(m.curves().size() == 2 + 8 * options.arms.size());
  CHECK(m.curves()[2 + 8 + 4].name == "g2_theta");
  CHECK(m.curves().front().abscissa == options.stroke.positions());
}
