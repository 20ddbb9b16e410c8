#pragma once
// What a designer asks of an ensemble after its statistics: which inputs drive each output
// (uq/rankings.hpp), what fraction of parts violate the study's specification limits
// ([output.limits]), and, for a 0/1 output (chatter, success), the probability of 1. Intervals
// are bootstrap percentile intervals (rankings) and Wilson intervals (proportions).

#include <optional>
#include <string>
#include <vector>

#include "contactuq/io/display_units.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/uq/epistemic.hpp"
#include "contactuq/uq/rankings.hpp"

namespace contactuq::study {

struct output_analysis {
  std::optional<uq::input_ranking> ranking;      ///< over the aleatoric inputs (ranked_inputs)
  std::optional<io::output_limit> limit;          ///< SI
  std::optional<uq::event_probability> violation;  ///< P(value outside [low, high])
  std::optional<uq::event_probability> one;        ///< a 0/1 output: P(value = 1)
};

struct ensemble_analysis {
  std::string label;                       ///< the epistemic case ("nominal" for a single case)
  std::size_t rows = 0;                    ///< the independent samples analysed (succeeded or not)
  std::vector<std::string> ranked_inputs;  ///< the aleatoric inputs, in file order
  std::vector<output_analysis> outputs;    ///< one per output of the file
};

struct analysis_options {
  uq::ranking_options ranking;
  double confidence = 0.95;  ///< of the proportions' intervals
};

// One analysis per epistemic case (one for a single-case study), each from the samples that
// succeeded under that case, read in SI: pooling cases would mix model forms. In a pick-freeze
// (Sobol) design only the A rows are used, the independent samples; the B and AB_i rows are
// not draws of their own. Limits come from the study stored in the file.
std::vector<ensemble_analysis> analyze_cases(const io::ensemble& e, const std::string& file_name,
                                             const analysis_options& options = {});

}  // namespace contactuq::study
