#include "contactuq/study/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/result_file.hpp"
#include "contactuq/study/variables.hpp"

namespace contactuq::study {

std::vector<double> sweep_plan::inputs(std::size_t k) const {
  std::vector<double> x = base;
  x[input] = values[k];
  return x;
}

std::vector<double> read_swept_values(const io::study_table& sweep, const model::variable& input) {
  std::vector<double> values;
  const char* key = "values";
  if (sweep.has("values")) {
    for (const char* other : {"low", "high", "points"})
      if (sweep.has(other))
        sweep.fail(other, "give either values = [...] or low, high and points, not both");
    values = sweep.quantities("values", input.dim);
  } else {
    const double low = sweep.quantity("low", input.dim), high = sweep.quantity("high", input.dim);
    const std::int64_t k = sweep.integer("points");
    if (k < 2 || k > 1'000'000) sweep.fail("points", "must be an integer in [2, 1000000]");
    if (!(high > low)) sweep.fail("high", "must be above low");
    for (std::int64_t i = 0; i < k; ++i)
      values.push_back(low + (high - low) * static_cast<double>(i) / static_cast<double>(k - 1));
    key = "low";
  }
  for (double v : values)
    if (!input.valid.contains(v))
      sweep.fail(key, fmt::format("{} = {:g} {} is outside the input's valid range, {}", input.name,
                                  v, input.unit, input.valid.text(input.dim)));
  return values;
}

sweep_plan read_sweep(const io::study_table& root, const model::model& m) {
  const io::study_table sweep = root.table("sweep");
  sweep.allow_only({"parameter", "values", "low", "high", "points"});
  const std::string name = sweep.string("parameter");
  sweep_plan plan;
  plan.input = m.find_input(name);
  if (plan.input == m.inputs().size())
    sweep.fail("parameter", fmt::format("model {} has no input \"{}\"; its inputs are {}", m.name(),
                                        name, fmt::join(m.input_names(), ", ")));
  plan.values = read_swept_values(sweep, m.inputs()[plan.input]);

  const variables vars = read_variables(root, m,
                                        {"a sweep study",
                                         {variable_role::fixed},
                                         variable_role::fixed,
                                         "it varies the input [sweep] names and fixes the others; "
                                         "distributions belong to sample studies"});
  if (std::find(vars.listed.begin(), vars.listed.end(), plan.input) != vars.listed.end())
    sweep.fail(
        "parameter",
        fmt::format("\"{}\" is also fixed by [parameters.{}]; a swept input takes its values "
                    "from [sweep] alone",
                    name, name));
  plan.base = vars.values();
  for (std::size_t i = 0; i < plan.base.size(); ++i)
    if (i != plan.input && std::isnan(plan.base[i]))
      root.fail(fmt::format(
          "the model's input \"{}\" has no nominal value; give [parameters.{}] value = ...",
          m.inputs()[i].name, m.inputs()[i].name));
  return plan;
}

std::vector<sweep_point> run_sweep(const model::model& m, const sweep_plan& plan,
                                   bool keep_failures) {
  std::vector<sweep_point> points;
  points.reserve(plan.values.size());
  for (std::size_t k = 0; k < plan.values.size(); ++k) {
    sweep_point p;
    p.value = plan.values[k];
    try {
      p.result = m.evaluate(plan.inputs(k));
    } catch (const std::exception& e) {
      // The plan fits the model's inputs, so whatever the model throws is about this point: a
      // value it rejects (parameter_error) or a case without a solution (model_error).
      if (!keep_failures) throw;
      p.error = e.what();
    }
    points.push_back(std::move(p));
  }
  return points;
}

void write_sweep_hdf5(const std::filesystem::path& path, const io::study_document& study,
                      const model::model& m, const sweep_plan& plan,
                      const std::vector<sweep_point>& points) {
  namespace h5 = io::hdf5;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t k = points.size(), d = m.inputs().size(), n_out = m.outputs().size();
  const model::variable& swept = m.inputs()[plan.input];

  h5::file f(path, h5::file_mode::create);
  io::write_result_header(f, {.format = "contactuq-sweep",
                              .method = "sweep",
                              .model = m.name(),
                              .title = study.root().string_or("title", ""),
                              .study_text = study.text(),
                              .study_path = study.file()});
  f.set_attribute("parameter", swept.name);
  const auto failed = std::count_if(points.begin(), points.end(),
                                    [](const sweep_point& p) { return !p.error.empty(); });
  f.set_attribute("failed", static_cast<std::int64_t>(failed));

  auto s = f.write("sweep", plan.values);
  s.set_attribute("parameter", swept.name);
  s.set_attribute("units", swept.unit);

  std::vector<double> x, y;
  std::vector<std::string> messages;
  for (std::size_t p = 0; p < k; ++p) {
    const std::vector<double> row = plan.inputs(p);
    x.insert(x.end(), row.begin(), row.end());
    if (points[p].error.empty())
      y.insert(y.end(), points[p].result.outputs.begin(), points[p].result.outputs.end());
    else
      y.insert(y.end(), n_out, nan);
    messages.push_back(points[p].error);
  }
  auto inputs = f.write("inputs", x, k, d);
  inputs.set_attribute("names", m.input_names());
  inputs.set_attribute("units", m.input_units());
  auto outputs = f.write("outputs", y, k, n_out);
  outputs.set_attribute("names", m.output_names());
  outputs.set_attribute("units", m.output_units());
  f.write_texts("messages", messages);

  if (!m.curves().empty()) {
    auto g = f.create_group("curves");
    for (std::size_t c = 0; c < m.curves().size(); ++c) {
      const model::curve_output& curve = m.curves()[c];
      const std::size_t n = curve.abscissa.size();
      std::vector<double> values;
      values.reserve(k * n);
      for (const sweep_point& p : points)
        if (p.error.empty())
          values.insert(values.end(), p.result.curves[c].begin(), p.result.curves[c].end());
        else
          values.insert(values.end(), n, nan);
      auto ds = g.write(curve.name, values, k, n);
      ds.set_attribute("units", curve.unit);
      ds.set_attribute("abscissa_name", curve.abscissa_name);
      ds.set_attribute("abscissa_unit", units::si_unit(curve.abscissa_dim));
      ds.set_attribute("abscissa", std::span<const double>(curve.abscissa));
    }
    g.set_attribute("names", m.curve_names());
  }
  f.close();  // checked: a write that fails is an error, not a damaged file
}

}  // namespace contactuq::study
