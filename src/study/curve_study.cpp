#include "contactuq/study/curve_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace contactuq::study {

using contact::receptacle_pin_params;
namespace u = units;

namespace {

output_units read_output_units(const io::study_table& output) {
  output.allow_only({"units"});
  return read_units_key(output, {});
}

}  // namespace

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
  std::vector<std::optional<double>> values;
  if (options.sweep)
    values.assign(options.sweep->values.begin(), options.sweep->values.end());
  else
    values.emplace_back();
  const parameter_info* info = options.sweep ? model::find_receptacle_pin_parameter(options.sweep->parameter) : nullptr;
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
