// Calibration of any registered model: truth recovered inside the reported intervals from
// synthetic data made by the model, scalar tables and curves, and bad input.
#include "contactuq/calibrate/calibration.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
namespace cal = contactuq::calibrate;
using Catch::Matchers::Contains;

namespace {

const std::string source = CONTACTUQ_SOURCE_DIR;

// Inputs a [m], b [1/s], v [m/s]: y = a exp(-b a / v) [m]; curve h(t) = a (1 - exp(-b t)) [m]
// on t = 0 .. 1 s, 51 points.
struct decay {
  std::vector<model::variable> inputs() const {
    return {{"a", units::length, 1.0}, {"b", units::dimensionless / units::duration, 2.0}, {"v", units::velocity, 1.0}};
  }
  std::vector<model::variable> outputs() const { return {{"y", units::length}}; }
  std::vector<model::curve_output> curves() const {
    std::vector<double> t;
    for (int i = 0; i <= 50; ++i) t.push_back(i / 50.0);
    return {{"h", units::length, "t", units::duration, t}};
  }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    if (x[1] <= 0) throw model_error("b <= 0");
    std::vector<double> h;
    for (int i = 0; i <= 50; ++i) h.push_back(x[0] * (1.0 - std::exp(-x[1] * i / 50.0)));
    return {{x[0] * std::exp(-x[1] * x[0] / x[2])}, {h}};
  }
};

cal::fit_options decay_options() {
  cal::fit_options o;
  o.parameters = {{"a", 0.2, 5.0, 0.5}, {"b", 0.1, 10.0, 1.0}};
  o.starts = 3;
  return o;
}

// Twelve cases at v = 0.5 .. 3.25 m/s, y measured.
std::vector<cal::measured_case> decay_cases() {
  std::vector<cal::measured_case> cases;
  for (int i = 0; i < 12; ++i) {
    cal::measured_case c;
    c.label = std::to_string(i);
    c.inputs = {{2, 0.5 + 0.25 * i}};
    c.outputs = {{0, 0.0}};
    cases.push_back(c);
  }
  return cases;
}

bool inside(const cal::parameter_estimate& e, double truth) {
  return e.low <= truth && truth <= e.high;
}

}  // namespace

TEST_CASE("a scalar table of a registered-like model: noise-free data give the truth") {
  const model::model m{decay{}};
  const std::vector<double> truth{1.3, 2.5, 1.0};
  auto cases = decay_cases();
  cal::synthesize_cases(m, truth, cases, {0.0}, 7);
  const auto r = cal::calibrate({m, truth, {}, {}}, cases, decay_options());
  REQUIRE(r.parameters.size() == 2);
  CHECK(r.parameters[0].value == Approx(1.3).epsilon(1e-6));
  CHECK(r.parameters[1].value == Approx(2.5).epsilon(1e-6));
  CHECK(r.residuals.size() == 1);
  CHECK(r.residuals[0].name == "y");
  CHECK(r.inputs[0] == r.parameters[0].value);
  CHECK(r.case_labels.size() == 12);
}

TEST_CASE("noisy scalar tables: the 95 % intervals cover the truth about 95 % of the time") {
  const model::model m{decay{}};
  const std::vector<double> truth{1.3, 2.5, 1.0};
  int covered_a = 0, covered_b = 0, clustered = 0;
  const int trials = 40;
  for (int seed = 1; seed <= trials; ++seed) {
    auto cases = decay_cases();
    cal::synthesize_cases(m, truth, cases, {1e-3}, static_cast<std::uint64_t>(seed));
    cal::fit_options o = decay_options();
    o.bootstrap = seed == 1 ? 30 : 0;
    const auto r = cal::calibrate({m, truth, {}, {}}, cases, o);
    covered_a += r.parameters[0].low <= 1.3 && 1.3 <= r.parameters[0].high;
    covered_b += r.parameters[1].low <= 2.5 && 2.5 <= r.parameters[1].high;
    clustered += r.parameters[0].clustered_low.has_value();
    if (seed == 1) CHECK(r.bootstrap.rows() + r.bootstrap_failed == 30);
  }
  // Binomial(40, 0.95): 34 or more with probability 0.995.
  CHECK(covered_a >= 34);
  CHECK(covered_b >= 34);
  CHECK(clustered == trials);
}

TEST_CASE("a measured curve is interpolated against the model's curve output") {
  const model::model m{decay{}};
  cal::measured_case c;
  c.label = "record";
  cal::measured_curve mc;
  mc.curve = 0;
  for (int i = 0; i < 40; ++i) {
    // Off the model's grid: the linear interpolation error (< 1e-3 of a) stays below the noise.
    const double t = 0.013 + 0.0245 * i;
    mc.x.push_back(t);
    mc.y.push_back(1.3 * (1.0 - std::exp(-2.5 * t)) + 2e-3 * std::sin(37.0 * i));
  }
  c.curves.push_back(mc);
  const auto r = cal::calibrate({m, {1.3, 2.5, 1.0}, {}, {}}, {c}, decay_options());
  CHECK(inside(r.parameters[0], 1.3));
  CHECK(inside(r.parameters[1], 2.5));
  CHECK(r.parameters[0].value == Approx(1.3).epsilon(0.01));
  REQUIRE(r.residuals.size() == 1);
  CHECK(r.residuals[0].curve);
  CHECK(r.residuals[0].x.size() == 40);
}

TEST_CASE("bad calibration input is rejected with the name and what is allowed") {
  const model::model m{decay{}};
  cal::measured_case c;
  c.label = "1";
  c.outputs = {{0, 0.5}, {0, 0.6}, {0, 0.4}};
  cal::fit_options o = decay_options();
  o.parameters[0].name = "alpha";
  CHECK_THROWS_WITH(cal::calibrate({m, {1, 2, 1}, {}, {}}, {c}, o),
                    Contains("\"alpha\" is not an input") && Contains("a, b, v"));
  cal::measured_case far;
  far.label = "2";
  far.curves.push_back({0, {0.5, 2.0}, {0.1, 0.2}});
  CHECK_THROWS_WITH(cal::calibrate({m, {1, 2, 1}, {}, {}}, {far}, decay_options()),
                    Contains("must lie within the model's [0, 1]"));
  cal::measured_case few;
  few.label = "3";
  few.outputs = {{0, 0.5}};
  CHECK_THROWS_AS(cal::calibrate({m, {1, 2, 1}, {}, {}}, {few}, decay_options()), cal::data_error);
}

TEST_CASE("studies/calibrate_switch.toml recovers the generating spring rate and restitution") {
  model::register_builtin_models();
  auto doc = io::study_document::load(source + "/studies/calibrate_switch.toml");
  REQUIRE(cal::is_calibration_study(doc));
  auto s = cal::read_calibration_study(doc);
  REQUIRE(s.cases.size() == 15);
  // One start and no bootstrap keep the test short; the study's own run adds both.
  s.options.starts = 1;
  s.options.bootstrap = 0;
  const auto r = cal::calibrate(s.setup, s.cases, s.options);
  REQUIRE(r.model == "switch");
  REQUIRE(r.parameters.size() == 2);
  const auto& k_d = r.parameters[0];
  const auto& e = r.parameters[1];
  CHECK(k_d.name == "k_d");
  // Truth (data/calibration/switch_closing_synthetic.toml): 0.12 N/mm = 120 N/m, e = 0.7.
  CHECK(inside(k_d, 120.0));
  CHECK(inside(e, 0.7));
  CHECK(*k_d.clustered_low <= 120.0);
  CHECK(*k_d.clustered_high >= 120.0);
  // The residuals match the noise the generator added (sd = the study's scales).
  CHECK(r.sigma == Approx(1.0).margin(0.3));
  CHECK_THAT(cal::describe_calibration(s, r), Contains("k_d") && Contains("N/mm"));
}

TEST_CASE("a calibration study with the old [fit] table names the new key") {
  model::register_builtin_models();
  std::ifstream in(source + "/studies/calibrate_switch.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str() + "\n[fit]\nstarts = 2\n";
  const auto doc = io::study_document::parse(text, source + "/studies/x.toml");
  CHECK_THROWS_WITH(cal::read_calibration_study(doc), Contains("[calibrate]"));
  // The receptacle-pin fit study is not a calibration study of this reader: it runs as before.
  CHECK_FALSE(cal::is_calibration_study(io::study_document::load(source + "/studies/fit_williams.toml")));
}
