#include "contactuq/study/curve_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace contactuq::study {

using contact::receptacle_pin_params;
namespace u = units;

const std::vector<parameter_info>& receptacle_pin_parameters() {
  static const std::vector<parameter_info> table = {
      {"Rr", u::length, &receptacle_pin_params::Rr},
      {"Rp", u::length, &receptacle_pin_params::Rp},
      {"phi", u::angle, &receptacle_pin_params::phi},
      {"Rt", u::length, &receptacle_pin_params::Rt},
      {"h", u::length, &receptacle_pin_params::h},
      {"R", u::length, &receptacle_pin_params::R},
      {"L", u::length, &receptacle_pin_params::L},
      {"b", u::length, &receptacle_pin_params::b},
      {"K", u::torsional_stiffness, &receptacle_pin_params::K},
      {"mu", u::dimensionless, &receptacle_pin_params::mu},
      {"theta0", u::angle, &receptacle_pin_params::theta0},
  };
  return table;
}

namespace {

const parameter_info* find_parameter(std::string_view name) {
  for (const auto& p : receptacle_pin_parameters())
    if (name == p.name) return &p;
  return nullptr;
}

std::string parameter_names() {
  std::string out;
  for (const auto& p : receptacle_pin_parameters()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

// Power of a base unit in a product, e.g. ("in", 2) -> "in^2".
std::string power_text(const std::string& unit, int p) {
  return p == 1 ? unit : fmt::format("{}^{}", unit, p);
}

output_units read_output_units(const io::study_table& output) {
  output.allow_only({"units"});
  return read_units_key(output, {});
}

}  // namespace

output_units read_units_key(const io::study_table& table, output_units fallback) {
  output_units out = std::move(fallback);
  if (!table.has("units")) return out;
  if (table.value_text("units").front() == '{') {
    const io::study_table t = table.table("units");
    t.allow_only({"length", "force", "angle"});
    out.length = t.string_or("length", out.length);
    out.force = t.string_or("force", out.force);
    out.angle = t.string_or("angle", out.angle);
    try {
      out.validate();
    } catch (const std::invalid_argument& e) {
      t.fail(e.what());
    }
    return out;
  }
  const std::string preset = table.choice("units", {"SI", "in-lbf", "in-grf", "mm-N"});
  if (preset == "SI") out = {"m", "N", "rad"};
  if (preset == "in-lbf") out = {"in", "lbf", "deg"};
  if (preset == "in-grf") out = {"in", "grf", "deg"};
  if (preset == "mm-N") out = {"mm", "N", "deg"};
  return out;
}

void output_units::validate() const {
  u::from_si(1.0, length, u::length);
  u::from_si(1.0, force, u::force);
  u::from_si(1.0, angle, u::angle);
}

std::string output_units::unit_for(u::dimension d) const {
  // Express d as force^f * length^l * angle^a; mass and time appear only through force.
  const int f = d.mass;
  const int l = d.length - f;
  const int a = d.angle;
  if (d.duration != -2 * f) return u::si_unit(d);  // not expressible: fall back to SI
  std::string num, den;
  auto add = [&](const std::string& unit, int p) {
    if (p == 0) return;
    std::string& side = p > 0 ? num : den;
    if (!side.empty()) side += '*';
    side += power_text(unit, std::abs(p));
  };
  add(force, f);
  add(length, l);
  add(angle, a);
  if (den.empty()) return num;
  return fmt::format("{}/{}", num.empty() ? "1" : num, den);
}

double output_units::from_si(double si, u::dimension d) const {
  const std::string unit = unit_for(d);
  return unit.empty() ? si : u::from_si(si, unit, d);
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
    g.count = static_cast<int>(arm.integer_or("count", 1));
    if (g.count < 1) arm.fail("count", "must be an integer >= 1");
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

curve_study_options read_curve_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "model", "stroke", "sweep", "output"});
  curve_study_options opt;
  opt.title = root.string_or("title", "");

  const io::study_table model = root.table("model");
  if (model.string("type") != "receptacle_pin")
    model.fail("type", "unknown model type; the curve command knows: receptacle_pin");
  receptacle_pin_setup setup = read_receptacle_pin_table(model);
  opt.model = setup.params;
  opt.arms = std::move(setup.arms);
  opt.stroke = read_stroke(root.table("stroke"));

  if (auto sweep = root.optional_table("sweep")) {
    sweep->allow_only({"parameter", "values"});
    parameter_sweep s;
    s.parameter = sweep->string("parameter");
    const parameter_info* info = find_parameter(s.parameter);
    if (!info) sweep->fail("parameter", fmt::format("not a receptacle_pin parameter; one of: {}", parameter_names()));
    s.values = sweep->quantities("values", info->dim);
    for (double v : s.values) {
      receptacle_pin_params p = opt.model;
      p.*info->field = v;
      try {
        contact::receptacle(p, opt.arms);
      } catch (const parameter_error& e) {
        sweep->fail("values", e.what());
      }
    }
    opt.sweep = std::move(s);
  }

  if (auto output = root.optional_table("output")) opt.units = read_output_units(*output);
  return opt;
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

std::vector<curve_case> run_curve_study(const curve_study_options& options) {
  std::vector<std::optional<double>> values;
  if (options.sweep)
    values.assign(options.sweep->values.begin(), options.sweep->values.end());
  else
    values.emplace_back();
  const parameter_info* info = options.sweep ? find_parameter(options.sweep->parameter) : nullptr;
  std::vector<curve_case> cases;
  for (const auto& value : values) {
    receptacle_pin_params p = options.model;
    if (value) p.*info->field = *value;
    contact::receptacle r(p, options.arms);
    auto curve = contact::evaluate_curve(r, options.stroke);
    auto summary = summarize(r, curve);
    cases.push_back({value, std::move(r), std::move(curve), std::move(summary)});
  }
  return cases;
}

}  // namespace contactuq::study
