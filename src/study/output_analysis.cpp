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

}  // namespace

ensemble_analysis analyze_outputs(const io::ensemble& e, const std::string& file_name, const analysis_options& options) {
  ensemble_analysis a;
  std::vector<Eigen::Index> columns;
  for (std::size_t i = 0; i < e.schema.inputs.size(); ++i)
    if (e.schema.inputs[i].role == io::input_role::aleatoric) {
      a.ranked_inputs.push_back(e.schema.inputs[i].name);
      columns.push_back(static_cast<Eigen::Index>(i));
    }
  std::vector<io::named_dimension> outputs;
  for (const auto& o : e.schema.outputs)
    outputs.push_back({o.name, o.unit.empty() ? units::dimensionless : units::parse_unit(o.unit).dim});
  const auto limits = io::output_limits_of_study(e.schema.metadata.study_text, file_name, outputs);

  // Failed rows have NaN outputs: the rankings and proportions leave them out.
  const Eigen::Index n = static_cast<Eigen::Index>(e.rows);
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c) x.col(static_cast<Eigen::Index>(c)) = e.inputs.col(columns[c]).head(n);
  for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
    output_analysis out;
    const Eigen::VectorXd y = e.outputs.col(static_cast<Eigen::Index>(j)).head(n);
    std::vector<double> values(y.data(), y.data() + y.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      if (e.status[i] != static_cast<std::int32_t>(io::sample_status::ok)) values[i] = std::nan("");
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

}  // namespace contactuq::study
