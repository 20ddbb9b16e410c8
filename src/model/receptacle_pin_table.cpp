#include "contactuq/model/receptacle_pin_table.hpp"

#include <numbers>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"
#include "contactuq/model/physical_limit.hpp"

namespace contactuq::model {

using contact::receptacle_pin_params;
namespace u = units;

const std::vector<parameter_info>& receptacle_pin_parameters() {
  // receptacle_pin_params::validate()'s bounds, with generous upper ones where it has none.
  namespace lim = physical_limit;
  static const std::vector<parameter_info> table = {
      {"Rr", u::length, &receptacle_pin_params::Rr, non_negative_up_to(lim::length)},
      {"Rp", u::length, &receptacle_pin_params::Rp, non_negative_up_to(lim::length)},
      {"phi", u::angle, &receptacle_pin_params::phi, {0.0, std::numbers::pi / 2, true, true}},
      {"Rt", u::length, &receptacle_pin_params::Rt, non_negative_up_to(lim::length)},
      {"h", u::length, &receptacle_pin_params::h, magnitude_up_to(lim::length)},  // either side of the axis
      {"R", u::length, &receptacle_pin_params::R, non_negative_up_to(lim::length)},
      {"L", u::length, &receptacle_pin_params::L, positive_up_to(lim::length)},
      {"b", u::length, &receptacle_pin_params::b, magnitude_up_to(lim::length)},  // any sign
      {"K", u::torsional_stiffness, &receptacle_pin_params::K, positive_up_to(lim::torsional_stiffness)},
      {"mu", u::dimensionless, &receptacle_pin_params::mu, non_negative_up_to(lim::friction)},
      // Away from +-90 deg, where the root selection (1.26), (1.92) is undefined.
      {"theta0", u::angle, &receptacle_pin_params::theta0, {-std::numbers::pi / 2, std::numbers::pi / 2, true, true}},
  };
  return table;
}

const parameter_info* find_receptacle_pin_parameter(std::string_view name) {
  for (const auto& p : receptacle_pin_parameters())
    if (name == p.name) return &p;
  return nullptr;
}

std::string receptacle_pin_parameter_names() {
  std::string out;
  for (const auto& p : receptacle_pin_parameters()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

receptacle_pin_setup read_receptacle_pin_table(const io::study_table& model,
                                               std::initializer_list<std::string_view> extra_keys) {
  std::vector<std::string_view> model_keys = {"type", "arms"};
  model_keys.insert(model_keys.end(), extra_keys.begin(), extra_keys.end());
  for (const auto& p : receptacle_pin_parameters()) model_keys.push_back(p.name);
  for (const auto& key : model.keys())
    if (std::find(model_keys.begin(), model_keys.end(), key) == model_keys.end())
      model.fail(key, fmt::format("unknown key in [model] of type receptacle_pin; allowed keys: {}",
                                  fmt::join(model_keys, ", ")));
  if (model.string("type") != "receptacle_pin") model.fail("type", "expected a model of type receptacle_pin");
  receptacle_pin_setup out;
  // Every parameter is required but the imperfection angle, which defaults to a perfect arm.
  for (const auto& p : receptacle_pin_parameters())
    out.params.*p.field = std::string_view(p.name) == "theta0" ? model.quantity_or(p.name, p.dim, 0.0)
                                                               : model.quantity(p.name, p.dim);
  try {
    out.params.validate();
  } catch (const parameter_error& e) {
    model.fail(e);
  }

  for (const io::study_table& arm : model.tables("arms")) {
    arm.allow_only({"d0", "direction", "count"});
    contact::arm_group g;
    g.d0 = arm.quantity("d0", u::length);
    g.direction = arm.choice("direction", {"engage", "disengage"}, "engage") == "engage"
                      ? contact::arm_direction::engage
                      : contact::arm_direction::disengage;
    // A receptacle has a handful of arms (two to eight in Williams); 1000, as the switch's
    // `arms`, is generous, and each arm costs a solve per stroke point.
    const std::int64_t count = arm.integer_or("count", 1);
    if (count < 1 || count > 1000) arm.fail("count", "must be an integer in [1, 1000]");
    g.count = static_cast<int>(count);
    out.arms.push_back(g);
  }
  // Geometry that the model cannot represent is reported against the [model] table.
  try {
    contact::receptacle(out.params, out.arms);
  } catch (const parameter_error& e) {
    model.fail(e);
  }
  return out;
}

contact::stroke read_stroke(const io::study_table& stroke) {
  stroke.allow_only({"from", "to", "points", "v_norm", "round_trip"});
  contact::stroke s;
  s.from = stroke.quantity("from", u::length);
  s.to = stroke.quantity("to", u::length);
  const std::int64_t points = stroke.integer_or("points", s.points);
  if (points < 2 || points > 10'000'000) stroke.fail("points", "must be an integer in [2, 10000000]");
  s.points = static_cast<int>(points);
  s.v_norm = stroke.quantity_or("v_norm", u::dimensionless, s.v_norm);
  s.round_trip = stroke.boolean_or("round_trip", true);
  try {
    s.validate();
  } catch (const parameter_error& e) {
    stroke.fail(e);
  }
  return s;
}

curve_summary summarize(const contact::receptacle& r, const contact::receptacle_curve& curve) {
  curve_summary s;
  for (std::size_t g = 0; g < r.arms().size(); ++g) {
    const auto& cr = r.arms()[g].critical();
    curve_summary::group out;
    out.xc = cr.xc;
    out.first_contact = cr.first_contact;
    out.x_cr = cr.x;
    for (const auto& st : curve.group_states[g]) out.peak_theta = std::max(out.peak_theta, std::abs(st.theta));
    s.groups.push_back(out);
  }
  for (std::size_t i = 0; i < curve.x.size(); ++i) {
    const bool forward = i < curve.forward_points;
    if (forward && -curve.Fx_total[i] > s.peak_insertion) {
      s.peak_insertion = -curve.Fx_total[i];
      s.peak_insertion_x = curve.x[i];
    }
    if (!forward && curve.Fx_total[i] > s.peak_withdrawal) {
      s.peak_withdrawal = curve.Fx_total[i];
      s.peak_withdrawal_x = curve.x[i];
    }
  }
  return s;
}

}  // namespace contactuq::model
