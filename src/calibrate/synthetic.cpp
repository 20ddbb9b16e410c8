#include "contactuq/calibrate/synthetic.hpp"

#include <fmt/format.h>

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <numbers>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::calibrate {

namespace {

// Stream purpose of synthetic data, outside the values uq::stream_purpose lists so that it can
// never coincide with a design's or a bootstrap's stream. Fixed: changing it changes every data
// set.
constexpr auto synthetic_stream = static_cast<uq::stream_purpose>(0x53594e54);  // "SYNT"

// Standard normal deviate by inversion, z = -sqrt(2) erfc^-1(2u), bits fixed by this file.
double normal(uq::engine& e) {
  return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * uq::open_uniform(e));
}

}  // namespace

void synthetic_options::validate() const {
  require(insertions >= 1 && insertions <= 1000, "insertions", insertions, "",
          "an integer in [1, 1000]");
  require(std::isfinite(from), "from", from, "m", "finite");
  require(std::isfinite(to) && to > from, "to", to, "m", "finite and > from");
  require(points >= 2 && points <= 1000000, "points", points, "", "an integer in [2, 1000000]");
  require(std::isfinite(v_norm) && v_norm > 0, "v_norm", v_norm, "", "> 0");
  require(std::isfinite(noise_sd) && noise_sd >= 0, "noise_sd", noise_sd, "N", ">= 0");
  require(std::isfinite(position_sd) && position_sd >= 0, "position_sd", position_sd, "m", ">= 0");
  require(std::isfinite(misalignment_sd) && misalignment_sd >= 0, "misalignment_sd",
          misalignment_sd, "m", ">= 0");
  require(std::isfinite(ripple) && ripple >= 0 && ripple < 1, "ripple", ripple, "", "in [0, 1)");
  require(std::isfinite(ripple_wavelength) && ripple_wavelength > 0, "ripple_wavelength",
          ripple_wavelength, "m", "> 0");
}

synthetic_dataset make_synthetic(const contact::receptacle_pin_params& params,
                                 const std::vector<contact::arm_group>& groups,
                                 const synthetic_options& o) {
  o.validate();
  params.validate();
  if (groups.empty()) throw parameter_error("arms", "the receptacle needs at least one arm group");
  for (const auto& g : groups) g.validate();
  contact::receptacle(params, groups);  // the nominal geometry must be valid

  synthetic_dataset out;
  out.data.length_unit = "m";
  out.data.force_unit = "N";
  for (int i = 0; i < o.insertions; ++i) {
    auto e = uq::make_engine(o.seed, synthetic_stream, static_cast<std::uint64_t>(i));
    synthetic_insertion ins{fmt::format("{}", i + 1), 0.0, 0.0, 0.0};
    ins.position = o.position_sd * normal(e);
    ins.misalignment = o.misalignment_sd * normal(e);
    ins.ripple_phase = 2.0 * std::numbers::pi * uq::open_uniform(e);
    out.insertions.push_back(ins);

    for (const stroke_direction dir : {stroke_direction::forward, stroke_direction::reverse}) {
      measured_stroke s;
      s.insertion = ins.label;
      s.direction = dir;
      s.file = "synthetic";
      const double v = dir == stroke_direction::forward ? o.v_norm : -o.v_norm;
      for (int j = 0; j < o.points; ++j) {
        const int k = dir == stroke_direction::forward ? j : o.points - 1 - j;
        const double x = o.from + (o.to - o.from) * k / (o.points - 1);
        double f = 0.0;
        for (const auto& g : groups) {
          const bool engaging = g.direction == contact::arm_direction::engage;
          const double xs = x + ins.position;
          const double d = engaging ? g.d0 - xs : g.d0 + xs;  // (1.8), (1.80): position on the pin
          for (int a = 0; a < g.count; ++a) {
            contact::receptacle_pin_params p = params;
            p.h += (a % 2 == 0 ? 1.0 : -1.0) * ins.misalignment;
            p.mu *= 1.0 + o.ripple * std::sin(2.0 * std::numbers::pi * d / o.ripple_wavelength +
                                              ins.ripple_phase);
            f += contact::receptacle_arm(p, g.d0, g.direction).evaluate(xs, v).Fx;
          }
        }
        s.x.push_back(x);
        s.force.push_back(f + o.noise_sd * normal(e));
        s.weight.push_back(1.0);
        s.line.push_back(0);
      }
      out.data.strokes.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace contactuq::calibrate
