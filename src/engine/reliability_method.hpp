#pragma once
// The reliability method's study, what a run found, and its report and result file
// (reliability_method.cpp runs it, reliability_output.cpp reports and writes it).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contactuq/io/display_units.hpp"
#include "contactuq/study/ensemble_study.hpp"
#include "contactuq/uq/nataf.hpp"
#include "contactuq/uq/reliability.hpp"

namespace contactuq::engine::detail {

enum class reliability_algorithm { form, sorm, importance, subset, monte_carlo };

struct reliability_study {
  study::ensemble_study study;
  std::vector<std::size_t> random;   ///< the aleatoric inputs, indices into study.inputs: u's columns
  std::vector<uq::correlation_pair> correlations;  ///< between columns of u
  std::size_t output = 0;            ///< index of the limited output
  io::output_limit limit;            ///< failure: output above limit.high or below limit.low
  std::string event;                 ///< e.g. "g < 0 N"
  reliability_algorithm algorithm = reliability_algorithm::form;
  uq::form_options form;
  uq::importance_options importance;  ///< samples, block, seed (centres from FORM)
  uq::subset_options subset;
};

std::string_view to_string(reliability_algorithm a);  ///< its name in a study
std::string_view title_of(reliability_algorithm a);   ///< in words, for reports

struct reliability_outcome {
  uq::probability_estimate probability;  ///< what the algorithm reports
  std::optional<uq::form_search> form;   ///< form, sorm, importance
  std::optional<uq::sorm_result> sorm;
  std::optional<uq::importance_result> importance;
  std::optional<uq::subset_result> subset;
  bool resolved = true;   ///< false: the estimate is not a probability to report (see note)
  std::string note;       ///< why not, or what limits the estimate
};

// x of the aleatoric inputs at u (one row), through the study's transform.
using to_inputs = std::function<Eigen::VectorXd(const Eigen::VectorXd& u)>;

std::string reliability_report(const reliability_study& r, const reliability_outcome& outcome, const to_inputs& x);
void write_reliability_hdf5(const std::filesystem::path& file, const io::study_document& doc, const reliability_study& r,
                            const reliability_outcome& outcome, const to_inputs& x);

}  // namespace contactuq::engine::detail
