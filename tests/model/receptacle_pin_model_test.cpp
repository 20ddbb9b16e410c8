#include "contactuq/model/receptacle_pin_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <sstream>

#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/curve_study.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

const std::string source_dir = CONTACTUQ_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The quickstart study with one piece of text replaced.
io::study_document quickstart(const std::string& from = "", const std::string& to = "") {
  std::string text = read_text(source_dir + "/studies/quickstart.toml");
  if (!from.empty()) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return io::study_document::parse(text, "quickstart.toml");
}

model::model quickstart_model(const std::string& from = "", const std::string& to = "") {
  model::register_builtin_models();
  return model::make_model(quickstart(from, to).root().table("model"));
}

std::vector<double> nominal(const model::model& m) {
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  return x;
}

constexpr double deg = std::numbers::pi / 180;

}  // namespace

TEST_CASE("receptacle_pin declares the Table 1 parameters and one d0 per arm group", "[receptacle_pin_model]") {
  const model::model m = quickstart_model();
  CHECK(m.name() == "receptacle_pin");
  CHECK(m.thread_safe());
  CHECK(m.input_names() == std::vector<std::string>{"Rr", "Rp", "phi", "Rt", "h", "R", "L", "b", "K", "mu",
                                                    "theta0", "g1_d0", "g2_d0"});
  CHECK(m.input_units()[8] == "N*m/rad");
  CHECK(m.output_names() == std::vector<std::string>{"peak_insertion", "peak_withdrawal", "peak_theta",
                                                     "hysteresis_energy", "x_c"});
  CHECK(m.output_units() == std::vector<std::string>{"N", "N", "rad", "J", "m"});
  REQUIRE(m.curves().size() == 1);
  CHECK(m.curves()[0].abscissa.size() == 400);  // 200 points each way
  CHECK(m.inputs()[11].nominal == Approx(0.429 * 0.0254));
  CHECK(m.inputs()[9].nominal == 0.02);
}

TEST_CASE("receptacle_pin at its nominal inputs reproduces Williams Fig. 11 and the curve study",
          "[receptacle_pin_model]") {
  const model::model m = quickstart_model();
  const model::evaluation e = m.evaluate(nominal(m));
  // Peak rotation on the barrel, (1.63) and (1.70): 1.3374 deg (the report rounds to ~1.336).
  CHECK(e.outputs[2] / deg == Approx(1.3374).margin(5e-4));
  // Same figures as the curve command on the same receptacle and stroke.
  const auto doc = quickstart();
  const auto setup = study::read_receptacle_pin_table(doc.root().table("model"), {"stroke"});
  contact::stroke s = study::read_stroke(doc.root().table("model").table("stroke"));
  const contact::receptacle r(setup.params, setup.arms);
  const auto curve = contact::evaluate_curve(r, s);
  const auto summary = study::summarize(r, curve);
  CHECK(e.outputs[0] == summary.peak_insertion);
  CHECK(e.outputs[1] == summary.peak_withdrawal);
  CHECK(e.outputs[4] == *r.arms()[0].critical().xc);
  CHECK(e.curves[0] == curve.Fx_total);
}

TEST_CASE("hysteresis energy: zero without friction, growing with mu", "[receptacle_pin_model]") {
  const model::model m = quickstart_model();
  std::vector<double> x = nominal(m);
  const std::size_t mu = m.find_input("mu");
  x[mu] = 0.0;
  const model::evaluation frictionless = m.evaluate(x);
  // (1.4) and (1.81) coincide for mu = 0: the reverse curve retraces the forward one.
  CHECK(std::abs(frictionless.outputs[3]) <= 1e-12 * frictionless.outputs[0] * 0.21 * 0.0254);
  double previous = 0.0;
  for (double value : {0.05, 0.1, 0.2}) {
    x[mu] = value;
    const double w = m.evaluate(x).outputs[3];
    CHECK(w > previous);
    previous = w;
  }
  // Work is force times length: bounded by the largest force over the stroke length both ways.
  x[mu] = 0.2;
  const model::evaluation e = m.evaluate(x);
  CHECK(previous <= (e.outputs[0] + e.outputs[1]) * 0.21 * 0.0254);
}

TEST_CASE("receptacle_pin inputs move the model: d0 shifts first contact one for one", "[receptacle_pin_model]") {
  const model::model m = quickstart_model();
  std::vector<double> x = nominal(m);
  const double xc = m.evaluate(x).outputs[4];
  x[m.find_input("g1_d0")] += 0.001 * 0.0254;
  // x = d0 - d (1.8): a larger initial separation reaches the same contact separation later.
  CHECK(m.evaluate(x).outputs[4] - xc == Approx(0.001 * 0.0254).epsilon(1e-9));
}

TEST_CASE("receptacle_pin rejects inputs the model cannot take, and locks at large friction",
          "[receptacle_pin_model]") {
  const model::model m = quickstart_model();
  std::vector<double> x = nominal(m);
  x[m.find_input("K")] = -1.0;
  CHECK_THROWS_AS(m.evaluate(x), parameter_error);
  x = nominal(m);
  x[m.find_input("mu")] = 5.0;
  CHECK_THROWS_AS(m.evaluate(x), model_error);
}

TEST_CASE("registry: unknown model types list the known ones, with file and line", "[registry]") {
  model::register_builtin_models();
  model::register_builtin_models();  // idempotent
  CHECK(model::is_registered("receptacle_pin"));
  const auto names = model::registered_models();
  CHECK(std::find(names.begin(), names.end(), "receptacle_pin") != names.end());
  try {
    quickstart_model("type = \"receptacle_pin\"", "type = \"receptacle\"");
    FAIL("no error");
  } catch (const io::study_error& e) {
    CHECK(e.line() == 8);
    CHECK(e.key() == "model.type");
    CHECK_THAT(e.what(), Contains("quickstart.toml:8") && Contains("known models: ") && Contains("receptacle_pin"));
  }
  CHECK_THROWS_WITH(model::register_model("receptacle_pin", [](const io::study_table& t) {
                      return model::model(model::receptacle_pin_model::from_study(t));
                    }),
                    Contains("already registered"));
}

TEST_CASE("receptacle_pin [model] errors name file, line and key", "[receptacle_pin_model]") {
  CHECK_THROWS_WITH(quickstart_model("points = 200 ", "points = 1 "),
                    Contains("quickstart.toml:34") && Contains("model.stroke.points"));
  CHECK_THROWS_WITH(quickstart_model("v_norm = 10", "v_norm = 10\nround_trip = false"),
                    Contains("model.stroke.round_trip") && Contains("both ways"));
  CHECK_THROWS_WITH(quickstart_model("mu = 0.020", "muu = 0.020"), Contains("muu") && Contains("allowed keys"));
}

TEST_CASE("receptacle_pin evaluate_batch gives evaluate's values bit for bit, and its failures per row",
          "[receptacle_pin_model]") {
  const model::model m = quickstart_model();
  REQUIRE(m.has_batch());
  const std::size_t d = m.inputs().size(), rows = 40, points = m.curves().front().abscissa.size();
  std::vector<double> x;
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<double> row = nominal(m);
    row[m.find_input("mu")] = 0.02 * static_cast<double>(r % 13);
    row[m.find_input("theta0")] = (static_cast<double>(r % 7) - 3.0) * 0.1 * deg;
    if (r == 17) row[m.find_input("mu")] = 5.0;  // friction lock
    if (r == 23) row[m.find_input("K")] = -1.0;  // rejected
    x.insert(x.end(), row.begin(), row.end());
  }
  std::vector<double> y(rows * m.outputs().size()), curve(rows * points);
  std::vector<std::string> errors(rows);
  m.evaluate_batch({rows, x, y, {curve}, errors});
  for (std::size_t r = 0; r < rows; ++r) {
    INFO("row " << r);
    const std::span<const double> row(x.data() + r * d, d);
    if (r == 17 || r == 23) {
      CHECK_THROWS(m.evaluate(row));
      CHECK_FALSE(errors[r].empty());
      continue;
    }
    REQUIRE(errors[r].empty());
    const model::evaluation e = m.evaluate(row);
    CHECK(std::memcmp(e.outputs.data(), y.data() + r * e.outputs.size(), sizeof(double) * e.outputs.size()) == 0);
    CHECK(std::memcmp(e.curves[0].data(), curve.data() + r * points, sizeof(double) * points) == 0);
  }
}
