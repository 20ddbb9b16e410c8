#include "contactuq/study/output_analysis.hpp"

#include <algorithm>
#include <cmath>

namespace contactuq::study {
namespace {

// Every finite value 0 or 1, and at least one finite value.
bool is_flag(const Eigen::Ref<const Eigen::VectorXd>& v) {
  bool any = false;
  for (const double x : v) {
    if (!std::isfinite(x)) continue;
    if (x != 0.0 && x != 1.0) return false;
    any = true;
  }
  return any;
}

// Rows of case c that are independent draws: all of them, or the A rows of a pick-freeze design.
std::vector<Eigen::Index> independent_rows(const io::ensemble& e, std::size_t c) {
  const auto& m = e.schema.metadata;
  const std::size_t per_case = m.aleatoric_samples(), d = m.pick_freeze_inputs;
  const std::size_t slots = d > 0 ? d + 2 : 1;
  const std::size_t first = m.shard_count > 0 ? m.shard_first : 0;  // a shard holds plan rows [first, ...)
  std::vector<Eigen::Index> rows;
  for (std::size_t i = 0; i < per_case / slots; ++i)
    if (const std::size_t row = c * per_case + i * slots; row >= first && row - first < e.rows)
      rows.push_back(static_cast<Eigen::Index>(row - first));
  return rows;
}

ensemble_analysis analyze_rows(const io::ensemble& e, const std::vector<io::output_limit>& limits,
                               const std::vector<Eigen::Index>& rows, const analysis_options& options) {
  ensemble_analysis a;
  a.rows = rows.size();
  std::vector<Eigen::Index> columns;
  for (std::size_t i = 0; i < e.schema.inputs.size(); ++i)
    if (e.schema.inputs[i].role == io::input_role::aleatoric) {
      a.ranked_inputs.push_back(e.schema.inputs[i].name);
      columns.push_back(static_cast<Eigen::Index>(i));
    }
  // Failed rows have NaN outputs: the rankings and proportions leave them out.
  const Eigen::Index n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(columns.size()));
  for (Eigen::Index r = 0; r < n; ++r)
    for (std::size_t c = 0; c < columns.size(); ++c) x(r, static_cast<Eigen::Index>(c)) = e.inputs(rows[r], columns[c]);
  for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
    output_analysis out;
    Eigen::VectorXd y(n);
    std::vector<double> values(rows.size());
    for (Eigen::Index r = 0; r < n; ++r) {
      y(r) = e.outputs(rows[r], static_cast<Eigen::Index>(j));
      const bool ok = e.status[static_cast<std::size_t>(rows[r])] == static_cast<std::int32_t>(io::sample_status::ok);
      values[static_cast<std::size_t>(r)] = ok ? y(r) : std::nan("");
    }
    if (!columns.empty()) out.ranking = uq::rank_inputs(x, values, options.ranking);
    const auto limit = std::find_if(limits.begin(), limits.end(),
                                    [&](const auto& l) { return l.name == e.schema.outputs[j].name; });
    if (limit != limits.end()) {
      out.limit = *limit;
      std::size_t events = 0, trials = 0;
      for (const double v : values) {
        if (!std::isfinite(v)) continue;
        ++trials;
        events += v < limit->low || v > limit->high;
      }
      out.violation = uq::binomial_proportion(events, trials, options.confidence);
      out.violation->skipped = values.size() - trials;
    }
    if (is_flag(y)) out.one = uq::probability_above(values, 0.5, options.confidence);
    a.outputs.push_back(std::move(out));
  }
  return a;
}

}  // namespace

std::vector<ensemble_analysis> analyze_cases(const io::ensemble& e, const std::string& file_name,
                                             const analysis_options& options) {
  std::vector<io::named_dimension> outputs;
  for (const auto& o : e.schema.outputs)
    outputs.push_back({o.name, o.unit.empty() ? units::dimensionless : units::parse_unit(o.unit).dim});
  const auto limits = io::output_limits_of_study(e.schema.metadata.study_text, file_name, outputs);
  const auto& labels = e.schema.metadata.epistemic_cases;
  std::vector<ensemble_analysis> cases;
  for (std::size_t c = 0; c < e.schema.metadata.cases(); ++c) {
    cases.push_back(analyze_rows(e, limits, independent_rows(e, c), options));
    cases.back().label = c < labels.size() ? labels[c] : "nominal";
  }
  return cases;
}

}  // namespace contactuq::study
