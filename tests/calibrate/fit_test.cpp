#include "contactuq/calibrate/fit.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "contactuq/calibrate/synthetic.hpp"
#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_study.hpp"
#include "contactuq/units/quantity.hpp"
#include "io/scratch_dir.hpp"

namespace cal = contactuq::calibrate;
namespace u = contactuq::units;
using Catch::Matchers::Contains;

namespace {

const double lbf_in_per_deg = u::to_si("1 lbf*in/deg", u::torsional_stiffness);
const double inch = 0.0254;
const double grf = 9.80665e-3;

// Williams SAND2015-20731 section 3.2: the Figure 25 arm on the Figure 10(a) pin, two engaging
// arms, K in lbf*in/deg.
contactuq::contact::receptacle_pin_params figure25(double K, double mu) {
  contactuq::contact::receptacle_pin_params p;
  p.Rr = 0.060 * inch;
  p.Rp = 0.015 * inch;
  p.phi = u::to_si("15 deg", u::angle);
  p.Rt = 0.003 * inch;
  p.h = 0.0375 * inch;
  p.R = 0.025 * inch;
  p.b = 0.0045 * inch;
  p.L = 0.316 * inch;
  p.K = K * lbf_in_per_deg;
  p.mu = mu;
  return p;
}

std::vector<contactuq::contact::arm_group> arms(double d0_in) {
  return {{d0_in * inch, contactuq::contact::arm_direction::engage, 2}};
}

cal::synthetic_options stroke(int insertions, int points, std::uint64_t seed = 1) {
  cal::synthetic_options s;
  s.insertions = insertions;
  s.to = 0.25 * inch;
  s.points = points;
  s.seed = seed;
  return s;
}

// K, mu, d0 free over bounds wide around the report's values.
cal::fit_options kmu_d0(int starts) {
  cal::fit_options o;
  o.parameters = {{"K", 0.004 * lbf_in_per_deg, 0.03 * lbf_in_per_deg, std::nullopt},
                  {"mu", 0.0, 0.45, std::nullopt},
                  {"g1_d0", 0.34 * inch, 0.40 * inch, std::nullopt}};
  o.starts = starts;
  o.parallel = false;
  return o;
}

// The report's fitted receptacle as the first start.
cal::insertion_model report_start() { return {figure25(0.0116, 0.21), arms(0.369), 10.0}; }

}  // namespace

TEST_CASE("noise-free synthetic data: the fit recovers the generating K, mu, d0 to 1e-6") {
  const auto truth = figure25(0.0093, 0.17);
  const auto data = cal::make_synthetic(truth, arms(0.3745), stroke(2, 80)).data;
  const auto r = cal::fit(report_start(), data, kmu_d0(4));
  REQUIRE(r.parameters.size() == 3);
  CHECK(r.parameters[0].name == "K");
  CHECK(r.parameters[0].value == Approx(truth.K).epsilon(1e-6));
  CHECK(r.parameters[1].value == Approx(0.17).epsilon(1e-6));
  CHECK(r.parameters[2].value == Approx(0.3745 * inch).epsilon(1e-6));
  CHECK(r.rms < 1e-9 * grf);
  CHECK(r.starts_at_best >= 1);
  CHECK(r.starts.size() == 4);
}

TEST_CASE(
    "noise-free data with pin-position scatter: offsets (summing to zero) and d0 recovered to "
    "1e-6") {
  auto opt = stroke(3, 80);
  opt.position_sd = 0.002 * inch;
  const auto gen = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), opt);
  auto o = kmu_d0(2);
  o.offsets = std::pair{-0.01 * inch, 0.01 * inch};
  const auto r = cal::fit({figure25(0.01, 0.15), arms(0.37), 10.0}, gen.data, o);
  // The model sees x + o_i where the data had x + s_i: d0 - o_i = d0_true - s_i with sum o_i = 0.
  double mean_s = 0.0;
  for (const auto& i : gen.insertions) mean_s += i.position / 3.0;
  CHECK(r.parameters[0].value == Approx(0.0116 * lbf_in_per_deg).epsilon(1e-6));
  CHECK(r.parameters[1].value == Approx(0.21).epsilon(1e-6));
  CHECK(r.parameters[2].value == Approx(0.369 * inch - mean_s).epsilon(1e-6));
  REQUIRE(r.parameters.size() == 6);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(r.parameters[3 + i].name == "offset[" + std::to_string(i + 1) + "]");
    CHECK(r.offsets[i] == Approx(gen.insertions[i].position - mean_s).margin(1e-6 * 0.002 * inch));
  }
  CHECK(r.parameters[5].derived);
  CHECK(r.covariance.rows() == 5);
}

TEST_CASE(
    "noisy synthetic data: the 95 % intervals cover the generating values as often as they "
    "should") {
  // 20 data sets with load-cell noise only. Per parameter, coverage of 20 intervals at 95 % is
  // >= 17 with probability 0.98; the mean of z^2 = ((p - p_true) / se)^2 over all 60 is ~1 when
  // the standard errors are right (a chi-square/60: within [0.55, 1.6] with probability > 0.999).
  const auto truth = figure25(0.0116, 0.21);
  const double true_values[3] = {truth.K, 0.21, 0.369 * inch};
  int covered[3] = {0, 0, 0};
  double z2 = 0.0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto opt = stroke(2, 40, seed);
    opt.noise_sd = 0.2 * grf;
    const auto data = cal::make_synthetic(truth, arms(0.369), opt).data;
    const auto r = cal::fit(report_start(), data, kmu_d0(1));
    for (int k = 0; k < 3; ++k) {
      const auto& e = r.parameters[static_cast<std::size_t>(k)];
      covered[k] += e.low <= true_values[k] && true_values[k] <= e.high;
      z2 += std::pow((e.value - true_values[k]) / e.standard_error, 2) / 60.0;
    }
  }
  CHECK(covered[0] >= 17);
  CHECK(covered[1] >= 17);
  CHECK(covered[2] >= 17);
  CHECK(z2 > 0.55);
  CHECK(z2 < 1.6);
}

TEST_CASE(
    "the Jacobian covariance equals the closed form of a fit linear in its parameter (K alone)") {
  // F = K f1(x) with f1 the force at K = 1 (eq. 1.4: Fn is proportional to K), so least squares
  // gives K = sum f1 F / sum f1^2 and se = s / sqrt(sum f1^2), s^2 = sum r^2 / (N - 1).
  auto opt = stroke(2, 50, 3);
  opt.noise_sd = 0.3 * grf;
  const auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), opt).data;
  const auto unit_k =
      cal::make_synthetic(figure25(1.0 / lbf_in_per_deg, 0.21), arms(0.369), stroke(2, 50)).data;
  double f1f = 0.0, f1f1 = 0.0;
  std::size_t n = 0;
  for (std::size_t s = 0; s < data.strokes.size(); ++s)
    for (std::size_t i = 0; i < data.strokes[s].x.size(); ++i, ++n) {
      f1f += unit_k.strokes[s].force[i] * data.strokes[s].force[i];
      f1f1 += unit_k.strokes[s].force[i] * unit_k.strokes[s].force[i];
    }
  const double K = f1f / f1f1;
  double ss = 0.0;
  for (std::size_t s = 0; s < data.strokes.size(); ++s)
    for (std::size_t i = 0; i < data.strokes[s].x.size(); ++i)
      ss += std::pow(K * unit_k.strokes[s].force[i] - data.strokes[s].force[i], 2);
  const double se = std::sqrt(ss / static_cast<double>(n - 1) / f1f1);

  cal::fit_options o;
  o.parameters = {{"K", 0.004 * lbf_in_per_deg, 0.03 * lbf_in_per_deg, std::nullopt}};
  o.starts = 1;
  const auto r = cal::fit(report_start(), data, o);
  CHECK(r.parameters[0].value == Approx(K).epsilon(1e-8));
  CHECK(r.parameters[0].standard_error == Approx(se).epsilon(1e-5));
  CHECK(r.dof == n - 1);
  // t quantile of 0.975 at N - 1 = 199 degrees of freedom: 1.971956544
  CHECK((r.parameters[0].high - r.parameters[0].low) / (2 * se) == Approx(1.9719565).epsilon(1e-5));
}

TEST_CASE("the fit does not depend on the unit system of the input file") {
  contactuq::testing::scratch_dir dir;
  auto opt = stroke(2, 60, 5);
  opt.noise_sd = 0.05 * grf;
  opt.ripple = 0.05;
  opt.ripple_wavelength = 0.01 * inch;
  const auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), opt).data;
  std::vector<cal::fit_result> fits;
  for (const auto& [len, force] :
       {std::pair{"in", "grf"}, {"mm", "mN"}, {"m", "N"}, {"mil", "ozf"}}) {
    cal::write_insertion_csv(dir / "d.csv", data, len, force, {});
    fits.push_back(cal::fit(report_start(), cal::read_insertion_csv(dir / "d.csv"), kmu_d0(2)));
  }
  // The same data, signed positive while inserting.
  cal::insertion_data flipped = data;
  for (auto& s : flipped.strokes)
    for (double& f : s.force) f = -f;
  cal::write_insertion_csv(dir / "flipped.csv", flipped, "in", "lbf", {});
  fits.push_back(cal::fit(
      report_start(),
      cal::read_insertion_csv(dir / "flipped.csv", cal::force_convention::insertion_positive),
      kmu_d0(2)));
  // The data differ in their last bits between unit systems, and the finite-difference
  // Jacobian turns the model's last-bit rounding into ~1e-8 relative noise: the estimates agree
  // to ~1e-8, orders of magnitude below their standard errors.
  for (std::size_t f = 1; f < fits.size(); ++f)
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(fits[f].parameters[k].value == Approx(fits[0].parameters[k].value).epsilon(1e-7));
      CHECK(fits[f].parameters[k].standard_error ==
            Approx(fits[0].parameters[k].standard_error).epsilon(1e-5));
    }
}

TEST_CASE("Huber and Cauchy losses keep outliers from pulling the fit, least squares does not") {
  auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), stroke(2, 60)).data;
  for (std::size_t i : {20, 35, 50}) data.strokes[0].force[i] += 5.0 * grf;  // three spikes
  auto o = kmu_d0(2);
  const auto plain = cal::fit(report_start(), data, o);
  o.loss_scale = 0.1 * grf;
  o.loss = cal::loss_kind::huber;
  const auto huber = cal::fit(report_start(), data, o);
  o.loss = cal::loss_kind::cauchy;
  const auto cauchy = cal::fit(report_start(), data, o);
  const double K = 0.0116 * lbf_in_per_deg;
  CHECK(std::abs(plain.parameters[0].value / K - 1) > 5e-3);
  CHECK(huber.parameters[0].value == Approx(K).epsilon(2e-3));
  CHECK(cauchy.parameters[0].value == Approx(K).epsilon(2e-4));
  CHECK(cauchy.parameters[1].value == Approx(0.21).epsilon(2e-4));
}

TEST_CASE("the fit is the same on one thread and on many") {
  auto opt = stroke(3, 50, 9);
  opt.noise_sd = 0.1 * grf;
  const auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), opt).data;
  auto o = kmu_d0(6);
  o.bootstrap = 12;
  const auto serial = cal::fit(report_start(), data, o);
  o.parallel = true;
  const auto parallel = cal::fit(report_start(), data, o);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(serial.parameters[k].value == parallel.parameters[k].value);
    CHECK(*serial.parameters[k].bootstrap_low == *parallel.parameters[k].bootstrap_low);
  }
  CHECK(serial.bootstrap == parallel.bootstrap);
}

TEST_CASE(
    "a stroke that never reaches contact within the bounds is reported with its file and line") {
  auto opt = stroke(1, 40);
  opt.to =
      0.03 * inch;  // contact begins at x = 0.0710 in for d0 = 0.369 in, 0.0420 in for d0 = 0.34 in
  auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), opt).data;
  for (auto& s : data.strokes) s.file = "short.csv";
  data.strokes[1].line.assign(data.strokes[1].x.size(), 50);
  data.strokes[0].line.assign(data.strokes[0].x.size(), 10);
  CHECK_THROWS_MATCHES(
      cal::fit(report_start(), data, kmu_d0(1)), cal::data_error,
      Catch::Matchers::Message(
          "short.csv:10: insertion 1, forward stroke (x = 0 .. 0.000762 m) never reaches contact "
          "for "
          "any parameters within the bounds: the first contact is at x >= 0.0010661 m; the stroke "
          "says nothing about K or mu. Check the d0 bounds (or the offsets), or drop the stroke"));
}

TEST_CASE("bounds that exclude the best fit, or that the model rejects, give a clear message") {
  const auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), stroke(1, 40)).data;
  auto o = kmu_d0(2);
  o.parameters[1].low = 0.3;  // mu = 0.21 generated the data
  o.parameters[1].start = 0.35;
  CHECK_THROWS_WITH(cal::fit(report_start(), data, o),
                    Contains("mu = 0.3") &&
                        Contains("sits on its lower bound (bounds [0.3, 0.45]") &&
                        Contains("the bounds exclude the best fit, which lies below; widen them"));

  o = kmu_d0(1);
  o.parameters[0].low = 0.0;
  CHECK_THROWS_WITH(cal::fit(report_start(), data, o),
                    Contains("bound low = 0 N*m/rad of K: K = 0 N*m/rad: must be > 0"));

  o = kmu_d0(1);
  o.parameters[2].name = "d0";
  CHECK_THROWS_WITH(
      cal::fit(report_start(), data, o),
      Contains("\"d0\" is not an input of the receptacle_pin model") && Contains("g1_d0"));

  o = kmu_d0(1);
  o.parameters[1].high = 0.0;
  CHECK_THROWS_WITH(cal::fit(report_start(), data, o),
                    Contains("mu bounds [0, 0]: must be finite with low < high"));

  // Friction lock everywhere in the bounds: mu so large that L_mn - mu L_mt < 0 on the barrel
  // (1.4).
  o = kmu_d0(2);
  o.parameters[1] = {"mu", 40.0, 50.0, 45.0};
  CHECK_THROWS_WITH(
      cal::fit(report_start(), data, o),
      Contains("the model has no solution anywhere the 2 starts went within the bounds") &&
          Contains("the bounds exclude any fit"));
}

TEST_CASE("too few points for the free parameters is an error") {
  auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), stroke(1, 2)).data;
  data.strokes.pop_back();
  data.strokes[0].file = "tiny.csv";
  data.strokes[0].x[0] = 0.2 * inch;
  CHECK_THROWS_WITH(cal::fit(report_start(), data, kmu_d0(1)),
                    Contains("tiny.csv: 2 points with weight > 0 for 3 free parameters"));
}

TEST_CASE("exported parameters are read by a run study as normal aleatoric inputs") {
  auto opt = stroke(2, 40, 4);
  opt.noise_sd = 0.1 * grf;
  const auto data = cal::make_synthetic(figure25(0.0116, 0.21), arms(0.369), opt).data;
  const auto r = cal::fit(report_start(), data, kmu_d0(1));
  const std::string snippet = cal::export_toml(r, {"in", "lbf", "deg"}, "test");
  CHECK_THAT(snippet, Contains("[parameters.K]") && Contains("role = \"aleatoric\"") &&
                          Contains("distribution = \"normal\"") && Contains("lbf*in/deg"));

  contactuq::model::register_builtin_models();
  const std::string study = R"(
[model]
type = "receptacle_pin"
Rr = "0.060 in"
Rp = "0.015 in"
phi = "15 deg"
Rt = "0.003 in"
h = "0.0375 in"
R = "0.025 in"
b = "0.0045 in"
L = "0.316 in"
K = "0.0116 lbf*in/deg"
mu = 0.21
[[model.arms]]
d0 = "0.369 in"
count = 2
[model.stroke]
from = "0 in"
to = "0.25 in"
[sampling]
samples = 10
)" + snippet;
  const auto s = contactuq::study::read_ensemble_study(
      contactuq::io::study_document::parse(study, "run.toml"));
  REQUIRE(s.aleatoric().size() == 3);
  for (const auto& e : r.parameters) {
    const auto it = std::find_if(s.inputs.begin(), s.inputs.end(),
                                 [&](const auto& in) { return in.name == e.name; });
    REQUIRE(it != s.inputs.end());
    CHECK(it->distribution->mean() == Approx(e.value).epsilon(1e-5));  // 6 significant digits
    CHECK(it->distribution->stddev() == Approx(e.standard_error).epsilon(1e-5));
  }
  CHECK(s.sampling.rank_correlation.rows() == 3);
}

TEST_CASE("the blind data set (mm, mN, generating values withheld from the file) is recovered") {
  // Generating values of tests/calibrate/blind_synthetic.toml, which
  // data/insertion/blind_synthetic.csv does not disclose.
  const double K = 0.0089 * lbf_in_per_deg, mu = 0.16, d0 = 0.3765 * inch;
  const auto data =
      cal::read_insertion_csv(CONTACTUQ_SOURCE_DIR "/data/insertion/blind_synthetic.csv");
  CHECK(data.length_unit == "mm");
  auto o = kmu_d0(4);
  o.bootstrap = 40;
  o.parallel = true;
  const auto r = cal::fit(report_start(), data, o);
  const double truth[3] = {K, mu, d0};
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& e = r.parameters[k];
    INFO(e.name << " = " << e.value << ", bootstrap [" << *e.bootstrap_low << ", "
                << *e.bootstrap_high << "]");
    CHECK(*e.bootstrap_low <= truth[k]);
    CHECK(truth[k] <= *e.bootstrap_high);
  }
}
