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
  std::vector<std::string> ranked_inputs;  ///< the aleatoric inputs, in file order
  std::vector<output_analysis> outputs;    ///< one per output of the file
};

struct analysis_options {
  uq::ranking_options ranking;
  double confidence = 0.95;  ///< of the proportions' intervals
};

// From the samples that succeeded of an ensemble read in SI (a nested study: over all its
// cases, so callers show it only for single-case studies). Limits come from the study stored in
// the file.
ensemble_analysis analyze_outputs(const io::ensemble& e, const std::string& file_name,
                                  const analysis_options& options = {});

}  // namespace contactuq::study
