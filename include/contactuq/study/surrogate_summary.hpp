#pragma once
// The summary of a surrogate file (format "contactuq-surrogate", model/surrogate_model.hpp):
// per output its kind, the honest K-fold Q2, the post-selection LOO error (labelled optimistic),
// the test-set error when there is one, the mean, the variance and the Sobol indices read from
// the expansion. `contactuq summarize`, the surrogate method's report and Python print it.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace contactuq::study {

struct surrogate_output_summary {
  std::string name, unit;  ///< unit: SI
  unsigned degree = 0;
  std::size_t terms = 0, candidates = 0;
  double q2_kfold = 0.0;
  double loo_error = 0.0, corrected_loo_error = 0.0;  ///< post-selection: optimistic
  std::optional<double> test_error = {};              ///< 1 - Q2 on the test set
  double mean = 0.0, variance = 0.0;
  std::vector<double> sobol_first = {}, sobol_total = {};  ///< one per input
  bool below_warning = false;                              ///< q2_kfold < the study's q2_warning
};

struct surrogate_summary {
  std::string file = {}, model = {}, title = {}, kind = {}, training = {};
  std::vector<std::string> inputs = {};
  std::size_t training_points = 0, folds = 0, test_samples = 0;
  double q2_warning = 0.9;
  std::vector<surrogate_output_summary> outputs = {};
};

// Reads the summary of a contactuq-surrogate file; std::runtime_error for any other file.
surrogate_summary summarize_surrogate(const std::filesystem::path& file);

// As `contactuq summarize` prints it: one table of the validation, one of moments and Sobol
// indices per output, and a warning line per output whose Q2 is below the threshold.
std::string to_text(const surrogate_summary& s);

// As `contactuq summarize --json` prints it: {"file", "format", "method", "model", "title",
// "surrogate": {"kind", "inputs", "training_points", "folds", "q2_warning", "outputs": {name:
// {"unit", "degree", "terms", "q2_kfold", "loo_error", "loo_error_note", "corrected_loo_error",
// "test_error" (when there is a test set), "mean", "variance", "sobol": {"first": {input: v},
// "total": {input: v}}}}}}.
std::string to_json(const surrogate_summary& s);

}  // namespace contactuq::study
