#include "contactuq/study/nested_summary.hpp"

#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::study {

namespace {

std::size_t rows_per_case(const io::ensemble& e) { return e.schema.metadata.aleatoric_samples(); }

bool is_flag(const std::vector<double>& values) {
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (v != 0.0 && v != 1.0) return false;
    any = true;
  }
  return any;
}

}  // namespace

std::vector<double> case_values(const io::ensemble& e, std::size_t output, std::size_t c) {
  const std::size_t per_case = rows_per_case(e);
  const std::size_t d = e.schema.metadata.pick_freeze_inputs;
  const uq::pick_freeze_layout layout{d > 0 ? per_case / (d + 2) : per_case, d};
  const std::size_t n = d > 0 ? layout.rows : per_case;
  std::vector<double> out(n, std::nan(""));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t row = c * per_case + (d > 0 ? layout.a(i) : i);
    if (row < e.rows) out[i] = e.outputs(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(output));
  }
  return out;
}

nested_summary summarize_nested(const io::ensemble& e, const nested_summary_options& options) {
  const auto& m = e.schema.metadata;
  nested_summary s;
  s.cases = m.epistemic_cases.empty() ? std::vector<std::string>{"nominal"} : m.epistemic_cases;
  for (const auto& in : e.schema.inputs)
    if (in.role == io::input_role::aleatoric) s.aleatoric_inputs.push_back(in.name);
  const std::size_t d = m.pick_freeze_inputs;
  s.pick_freeze = d > 0;
  const std::size_t per_case = rows_per_case(e);
  s.samples_per_case = s.pick_freeze ? per_case / (d + 2) : per_case;
  const std::size_t k = s.cases.size();
  const bool complete = e.rows == m.samples;

  for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
    output_statistics o{e.schema.outputs[j].name, e.schema.outputs[j].unit, false, {}, std::nullopt};
    Eigen::MatrixXd y(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(s.samples_per_case));
    std::vector<std::vector<double>> values(k);
    for (std::size_t c = 0; c < k; ++c) {
      values[c] = case_values(e, j, c);
      for (std::size_t i = 0; i < values[c].size(); ++i)
        y(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(i)) = values[c][i];
    }
    bool flag = true;
    for (const auto& v : values) flag = flag && is_flag(v);
    o.flag = flag;
    for (std::size_t c = 0; c < k; ++c) {
      case_statistics cs{s.cases[c], uq::summarize(values[c], options.summary), std::nullopt, std::nullopt};
      if (flag) cs.one = uq::probability_above(values[c], 0.5, options.summary.confidence);
      if (s.pick_freeze && complete) {
        const auto first = e.outputs.col(static_cast<Eigen::Index>(j)).segment(static_cast<Eigen::Index>(c * per_case),
                                                                             static_cast<Eigen::Index>(per_case));
        const std::vector<double> all(first.begin(), first.end());
        cs.sobol = uq::sobol_indices(all, {s.samples_per_case, d}, options.sensitivity);
      }
      o.cases.push_back(std::move(cs));
    }
    if (k > 1 && complete) {
      try {
        o.decomposition = uq::decompose_model_form(y, {}, options.sensitivity);
      } catch (const parameter_error&) {
        // No case has a finite value of this output: nothing to decompose.
      }
    }
    s.outputs.push_back(std::move(o));
  }
  return s;
}

}  // namespace contactuq::study
