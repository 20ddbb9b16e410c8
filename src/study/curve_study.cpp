#include "contactuq/study/curve_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "contactuq/model/physical_limit.hpp"
#include "contactuq/study/sweep.hpp"

namespace contactuq::study {

using contact::receptacle_pin_params;
namespace u = units;

namespace {

output_units read_output_units(const io::study_table& output) {
  output.allow_only({"units"});
  return read_units_key(output, {});
}

// The receptacle_pin model with every figure of a stroke (curve_model in the header).
class receptacle_curve_model {
 public:
  receptacle_curve_model(const receptacle_pin_params& params, std::vector<contact::arm_group> arms,
                         const contact::stroke& stroke)
      : params_(params), arms_(std::move(arms)), stroke_(stroke) {}

  std::vector<model::variable> inputs() const {
    std::vector<model::variable> v;
    for (const auto& p : receptacle_pin_parameters()) v.push_back({p.name, p.dim, params_.*p.field, p.valid});
    for (std::size_t g = 0; g < arms_.size(); ++g)
      v.push_back({fmt::format("g{}_d0", g + 1), u::length, arms_[g].d0,
                   model::magnitude_up_to(model::physical_limit::length)});
    return v;
  }
  std::vector<model::variable> outputs() const {
    std::vector<model::variable> v{{"peak_insertion", u::force},
                                   {"peak_insertion_x", u::length},
                                   {"peak_withdrawal", u::force},
                                   {"peak_withdrawal_x", u::length}};
    for (std::size_t g = 1; g <= arms_.size(); ++g) {
      v.push_back({fmt::format("g{}_x_c", g), u::length});
      for (int i = 1; i <= 4; ++i) v.push_back({fmt::format("g{}_x_cr{}", g, i), u::length});
      v.push_back({fmt::format("g{}_peak_theta", g), u::angle});
      v.push_back({fmt::format("g{}_first_contact", g), u::dimensionless});
    }
    return v;
  }
  std::vector<model::curve_output> curves() const {
    const std::vector<double> x = stroke_.positions();
    std::vector<model::curve_output> c{{"Fx_total", u::force, "x", u::length, x},
                                       {"Fy_total", u::force, "x", u::length, x}};
    for (std::size_t g = 1; g <= arms_.size(); ++g) {
      for (const char* f : {"Fx", "Fy", "Fn", "Ft"}) c.push_back({fmt::format("g{}_{}", g, f), u::force, "x", u::length, x});
      for (const char* a : {"theta", "alpha"}) c.push_back({fmt::format("g{}_{}", g, a), u::angle, "x", u::length, x});
      for (const char* l : {"Lmn", "Lmt"}) c.push_back({fmt::format("g{}_{}", g, l), u::length, "x", u::length, x});
    }
    return c;
  }
  bool thread_safe() const { return true; }  // a pure function of its inputs
  std::string name() const { return "receptacle_pin"; }

  model::evaluation evaluate(std::span<const double> x) const {
    receptacle_pin_params p = params_;
    const auto& info = receptacle_pin_parameters();
    for (std::size_t i = 0; i < info.size(); ++i) p.*info[i].field = x[i];
    std::vector<contact::arm_group> arms = arms_;
    for (std::size_t g = 0; g < arms.size(); ++g) arms[g].d0 = x[info.size() + g];
    const contact::receptacle r(p, arms);
    contact::receptacle_curve curve = contact::evaluate_curve(r, stroke_);
    const curve_summary s = summarize(r, curve);

    model::evaluation e;
    e.outputs = {s.peak_insertion, s.peak_insertion_x, s.peak_withdrawal, s.peak_withdrawal_x};
    for (const auto& g : s.groups) {
      e.outputs.push_back(g.xc.value_or(std::numeric_limits<double>::quiet_NaN()));
      e.outputs.insert(e.outputs.end(), g.x_cr.begin(), g.x_cr.end());
      e.outputs.push_back(g.peak_theta);
      e.outputs.push_back(static_cast<double>(g.first_contact));
    }
    e.curves.push_back(std::move(curve.Fx_total));
    e.curves.push_back(std::move(curve.Fy_total));
    for (const auto& states : curve.group_states)
      for (double contact::arm_state::*f : {&contact::arm_state::Fx, &contact::arm_state::Fy, &contact::arm_state::Fn,
                                            &contact::arm_state::Ft, &contact::arm_state::theta,
                                            &contact::arm_state::alpha, &contact::arm_state::Lmn,
                                            &contact::arm_state::Lmt}) {
        std::vector<double>& values = e.curves.emplace_back();
        values.reserve(states.size());
        for (const contact::arm_state& st : states) values.push_back(st.*f);
      }
    return e;
  }

 private:
  receptacle_pin_params params_;
  std::vector<contact::arm_group> arms_;
  contact::stroke stroke_;
};

}  // namespace

model::model curve_model(const curve_study_options& options) {
  return receptacle_curve_model(options.model, options.arms, options.stroke);
}

output_units read_units_key(const io::study_table& table, output_units fallback) {
  return io::read_display_units(table, {}, {std::move(fallback), {}}).base;
}

curve_study_options read_curve_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "method", "model", "stroke", "sweep", "output"});
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
    const parameter_info* info = model::find_receptacle_pin_parameter(s.parameter);
    if (!info) sweep->fail("parameter", fmt::format("not a receptacle_pin parameter; one of: {}", model::receptacle_pin_parameter_names()));
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

std::vector<curve_case> run_curve_study(const curve_study_options& options) {
  const model::model m = curve_model(options);
  sweep_plan plan;
  for (const model::variable& v : m.inputs()) plan.base.push_back(v.nominal);
  if (options.sweep) {
    plan.input = m.find_input(options.sweep->parameter);
    plan.values = options.sweep->values;
  } else {
    plan.values.push_back(plan.base[0]);  // one case: the study's values
  }
  std::vector<curve_case> cases;
  for (sweep_point& p : run_sweep(m, plan, false)) {
    std::optional<double> value;
    if (options.sweep) value = p.value;
    cases.push_back({value, std::move(p.result)});
  }
  return cases;
}

}  // namespace contactuq::study
