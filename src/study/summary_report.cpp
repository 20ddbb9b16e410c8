#include "contactuq/study/summary_report.hpp"

#include <algorithm>
#include <map>

#include "contactuq/error.hpp"
#include "contactuq/io/display_units.hpp"
#include "contactuq/uq/replicates.hpp"

namespace contactuq::study {
namespace {

status_counts count_status(const io::ensemble& e) {
  status_counts c;
  std::map<std::string, std::size_t> by_message;
  for (std::size_t i = 0; i < e.rows; ++i) {
    switch (static_cast<io::sample_status>(e.status[i])) {
      case io::sample_status::ok:
        ++c.ok;
        if (!e.messages[i].empty() && c.noted++ == 0) {
          c.first_noted = i;
          c.first_note = e.messages[i];
        }
        break;
      case io::sample_status::failed:
        ++c.failed;
        ++by_message[e.messages[i]];
        break;
      default: ++c.not_run;
    }
  }
  c.messages.assign(by_message.begin(), by_message.end());
  std::stable_sort(c.messages.begin(), c.messages.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return c;
}

// A finished plain QMC study with replicates, whose intervals come from them.
bool has_replicate_intervals(const io::ensemble& e) {
  const auto& m = e.schema.metadata;
  return m.replicates > 1 && m.cases() == 1 && m.pick_freeze_inputs == 0 && e.rows == m.samples;
}

uq::summary_options moment_options(const summary_options& o) {
  uq::summary_options so;
  so.bootstrap_resamples = o.bootstrap;
  so.confidence = o.confidence;
  so.probabilities = o.probabilities;
  so.seed = o.seed;
  return so;
}

}  // namespace

void summary_options::validate() const {
  moment_options(*this).validate();
  require(bootstrap <= 100000, "bootstrap", static_cast<double>(bootstrap), "", "0 (no intervals) or in [10, 100000]");
}

summary_report summarize(const std::filesystem::path& file, const summary_options& options) {
  options.validate();
  summary_report r;
  r.file = file.string();
  r.options = options;
  io::ensemble e = io::read_ensemble(r.file, {.curves = false});
  // Rankings, limits and 0/1 proportions per epistemic case, from the SI values; pooling the
  // cases of a nested study would mix model forms.
  r.ranking_resamples = std::min(options.bootstrap, ranking_resamples);
  analysis_options ao;
  ao.ranking = {.bootstrap_resamples = r.ranking_resamples, .confidence = options.confidence, .seed = options.seed};
  ao.confidence = options.confidence;
  r.analyses = analyze_cases(e, r.file, ao);
  // Every other statistic in the display units: a pure scale per output.
  r.factors = options.si ? std::vector<double>(e.schema.outputs.size(), 1.0) : io::convert_for_display(e, r.file);
  r.converted = std::any_of(r.factors.begin(), r.factors.end(), [](double f) { return f != 1.0; });
  const uq::summary_options so = moment_options(options);
  const auto& m = e.schema.metadata;
  r.nested = m.cases() > 1 || m.pick_freeze_inputs > 0;
  r.replicate_intervals = has_replicate_intervals(e);
  if (!r.nested || options.pooled_nested)
    for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
      const auto column = e.outputs.col(static_cast<Eigen::Index>(j));
      const std::vector<double> values(column.begin(), column.end());
      // RQMC points are dependent: the intervals come from the replicates, not the bootstrap.
      r.outputs.push_back(r.replicate_intervals ? uq::summarize_replicates(values, m.replicates, so)
                                                : uq::summarize(values, so));
    }
  r.status = count_status(e);
  if (r.nested) {
    nested_summary_options no;
    no.summary = so;
    no.summary.bootstrap_resamples = 0;  // per-case quantiles without intervals: the table is wide already
    no.sensitivity.bootstrap_resamples = options.bootstrap;
    no.sensitivity.confidence = options.confidence;
    no.sensitivity.seed = options.seed;
    r.nested_statistics = summarize_nested(e, no);
  }
  r.rows = e.rows;
  r.schema = std::move(e.schema);
  return r;
}

}  // namespace contactuq::study
