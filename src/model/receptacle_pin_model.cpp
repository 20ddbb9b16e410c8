#include "contactuq/model/receptacle_pin_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "contactuq/error.hpp"
#include "contactuq/model/physical_limit.hpp"
#include "contactuq/model/receptacle_pin_table.hpp"

namespace contactuq::model {

namespace {
constexpr std::size_t n_params = 11;
constexpr std::size_t n_outputs = 5;  // peak_insertion .. x_c, as outputs() declares
}

receptacle_pin_model::receptacle_pin_model(const contact::receptacle_pin_params& params,
                                           std::vector<contact::arm_group> groups,
                                           const contact::stroke& stroke)
    : params_(params), groups_(std::move(groups)), stroke_(stroke) {
  stroke_.validate();
  if (!stroke_.round_trip)
    throw parameter_error("round_trip", "round_trip = false: the receptacle_pin model needs the stroke both ways");
  if (groups_.empty()) throw parameter_error("arms", "the receptacle_pin model needs at least one arm group");
  contact::receptacle(params_, groups_);  // validates parameters, groups and geometry
}

receptacle_pin_model receptacle_pin_model::from_study(const io::study_table& table) {
  const receptacle_pin_setup setup = read_receptacle_pin_table(table, {"stroke"});
  const io::study_table stroke_table = table.table("stroke");
  // Fewer points than a curve study by default: an ensemble evaluates the stroke N times.
  contact::stroke s = read_stroke(stroke_table);
  if (!stroke_table.has("points")) s.points = 200;
  if (!s.round_trip) stroke_table.fail("round_trip", "must be true: the hysteresis energy needs the stroke both ways");
  try {
    return receptacle_pin_model(setup.params, setup.arms, s);
  } catch (const parameter_error& e) {
    table.fail(e);
  }
}

std::vector<variable> receptacle_pin_model::inputs() const {
  std::vector<variable> v;
  for (const auto& p : receptacle_pin_parameters()) v.push_back({p.name, p.dim, params_.*p.field, p.valid});
  for (std::size_t g = 0; g < groups_.size(); ++g)
    v.push_back({fmt::format("g{}_d0", g + 1), units::length, groups_[g].d0, magnitude_up_to(physical_limit::length)});
  return v;
}

std::vector<variable> receptacle_pin_model::outputs() const {
  return {{"peak_insertion", units::force},
          {"peak_withdrawal", units::force},
          {"peak_theta", units::angle},
          {"hysteresis_energy", units::energy},
          {"x_c", units::length}};
}

std::vector<curve_output> receptacle_pin_model::curves() const {
  return {{"Fx_total", units::force, "x", units::length, stroke_.positions()}};
}

evaluation receptacle_pin_model::evaluate(std::span<const double> x) const {
  evaluation e;
  e.outputs.resize(n_outputs);
  e.curves.emplace_back(2 * static_cast<std::size_t>(stroke_.points));
  evaluate_into(x, e.outputs, e.curves.front());
  return e;
}

void receptacle_pin_model::evaluate_batch(const batch& b) const {
  const std::size_t d = n_params + groups_.size(), points = 2 * static_cast<std::size_t>(stroke_.points);
  for (std::size_t r = 0; r < b.rows; ++r) {
    try {
      evaluate_into(b.inputs.subspan(r * d, d), b.outputs.subspan(r * n_outputs, n_outputs), b.curves.front().subspan(r * points, points));
    } catch (const std::exception& e) {
      b.errors[r] = e.what();
    }
  }
}

void receptacle_pin_model::evaluate_into(std::span<const double> x, std::span<double> outputs,
                                         std::span<double> curve_out) const {
  contact::receptacle_pin_params p = params_;
  const auto& info = receptacle_pin_parameters();
  for (std::size_t i = 0; i < n_params; ++i) p.*info[i].field = x[i];
  std::vector<contact::arm_group> groups = groups_;
  for (std::size_t g = 0; g < groups.size(); ++g) groups[g].d0 = x[n_params + g];

  const contact::receptacle r(p, groups);
  const contact::receptacle_curve curve = contact::evaluate_curve(r, stroke_);
  const curve_summary s = summarize(r, curve);

  double peak_theta = 0.0;
  for (const auto& g : s.groups) peak_theta = std::max(peak_theta, g.peak_theta);
  // W = -sum over the path of (Fx_i + Fx_i+1)/2 (x_i+1 - x_i); the reverse stroke returns to the
  // start, so the path is closed and W is the area between the two curves.
  double work = 0.0;
  for (std::size_t i = 0; i + 1 < curve.x.size(); ++i)
    work -= 0.5 * (curve.Fx_total[i] + curve.Fx_total[i + 1]) * (curve.x[i + 1] - curve.x[i]);
  const auto& xc = r.arms().front().critical().xc;

  const std::array<double, n_outputs> values{s.peak_insertion, s.peak_withdrawal, peak_theta, work,
                                     xc ? *xc : std::numeric_limits<double>::quiet_NaN()};
  std::copy(values.begin(), values.end(), outputs.begin());
  std::copy(curve.Fx_total.begin(), curve.Fx_total.end(), curve_out.begin());
}

}  // namespace contactuq::model
