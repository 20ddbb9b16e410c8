#pragma once
// Statistics of a nested (epistemic x aleatoric) ensemble, per scalar output:
//   - per epistemic case: the summary of its N aleatoric samples (the family of CDFs), and for a
//     0/1 output (a flag such as chatter) the probability of 1 with a Wilson interval;
//   - over the cases: the model-form decomposition Var_total = E_case[Var_aleatoric] +
//     Var_case[E_aleatoric] with the epistemic share and the case factor's Sobol indices
//     (uq/epistemic.hpp), on the common random numbers;
//   - with a pick-freeze design: first- and total-order Sobol indices of the aleatoric inputs
//     per case (uq/sensitivity.hpp).
// The distribution of a case rests on its plain samples, or on the A rows of a pick-freeze design.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/uq/epistemic.hpp"
#include "contactuq/uq/sensitivity.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::study {

struct case_statistics {
  std::string label;
  uq::summary summary;                       ///< over the case's distribution samples
  std::optional<uq::event_probability> one;  ///< P(output = 1) for a 0/1 output
  std::optional<uq::sobol_result> sobol;     ///< with a pick-freeze design
};

struct output_statistics {
  std::string name;
  std::string unit;
  bool flag = false;  ///< every finite value is 0 or 1
  std::vector<case_statistics> cases;
  std::optional<uq::model_form_decomposition> decomposition;  ///< with two cases or more
};

struct nested_summary {
  std::vector<std::string> cases;             ///< labels ("nominal" for a single case)
  std::vector<std::string> aleatoric_inputs;  ///< names, in column order of the design
  std::size_t samples_per_case = 0;           ///< N distribution samples per case
  bool pick_freeze = false;
  std::vector<output_statistics> outputs;
};

struct nested_summary_options {
  uq::summary_options summary;         ///< quantiles, bootstrap of the per-case summaries
  uq::sensitivity_options sensitivity;  ///< bootstrap of decomposition and Sobol indices
};

nested_summary summarize_nested(const io::ensemble& e, const nested_summary_options& options = {});

// The distribution samples of output j under case c (NaN where a sample failed).
std::vector<double> case_values(const io::ensemble& e, std::size_t output, std::size_t c);

}  // namespace contactuq::study
