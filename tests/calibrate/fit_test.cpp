#include "contactuq/calibrate/fit.hpp"

#include <catch2/catch.hpp>

#include "contactuq/calibrate/synthetic.hpp"
#include "contactuq/error.hpp"
#include "contactuq/units/quantity.hpp"

namespace cal = contactuq::calibrate;
namespace u = contactuq::units;
using Catch::Matchers::Contains;

namespace {

// Williams SAND2015-20731 section 3.2: Figure 25 arm, Figure 10(a) pin, two engaging arms.
contactuq::contact::receptacle_pin_params figure25(double K_lbf_in_deg, double mu) {
  contactuq::contact::receptacle_pin_params p;
  p.Rr = u::to_si("0.060 in", u::length);
  p.Rp = u::to_si("0.015 in", u::length);
  p.phi = u::to_si("15 deg", u::angle);
  p.Rt = u::to_si("0.003 in", u::length);
  p.h = u::to_si("0.0375 in", u::length);
  p.R = u::to_si("0.025 in", u::length);
  p.b = u::to_si("0.0045 in", u::length);
  p.L = u::to_si("0.316 in", u::length);
  p.K = K_lbf_in_deg * u::to_si("1 lbf*in/deg", u::torsional_stiffness);
  p.mu = mu;
  return p;
}

std::vector<contactuq::contact::arm_group> arms(double d0_in) {
  return {{d0_in * 0.0254, contactuq::contact::arm_direction::engage, 2}};
}

cal::synthetic_options small_stroke(int insertions, int points) {
  cal::synthetic_options s;
  s.insertions = insertions;
  s.from = 0.0;
  s.to = u::to_si("0.25 in", u::length);
  s.points = points;
  return s;
}

cal::fit_options kmu_d0(int starts) {
  cal::fit_options o;
  const double kunit = u::to_si("1 lbf*in/deg", u::torsional_stiffness);
  o.parameters = {{"K", 0.004 * kunit, 0.03 * kunit, std::nullopt},
                  {"mu", 0.0, 0.45, std::nullopt},
                  {"g1_d0", 0.34 * 0.0254, 0.40 * 0.0254, std::nullopt}};
  o.starts = starts;
  o.parallel = false;
  return o;
}

}  // namespace

TEST_CASE("noise-free synthetic data: the fit recovers the generating K, mu, d0 to 1e-6") {
  const auto truth = figure25(0.0093, 0.17);
  const auto data = cal::make_synthetic(truth, arms(0.3745), small_stroke(2, 80)).data;
  cal::insertion_model start{figure25(0.0116, 0.21), arms(0.369), 10.0};
  const auto r = cal::fit(start, data, kmu_d0(4));
  CHECK(r.parameters[0].value == Approx(truth.K).epsilon(1e-6));
  CHECK(r.parameters[1].value == Approx(0.17).epsilon(1e-6));
  CHECK(r.parameters[2].value == Approx(0.3745 * 0.0254).epsilon(1e-6));
  CHECK(r.rms < 1e-9);
  WARN(r.starts_at_best << " " << r.evaluations << " " << r.seconds);
  for (auto& s : r.starts) WARN(s.status << " " << s.cost << " " << s.evaluations);
}
