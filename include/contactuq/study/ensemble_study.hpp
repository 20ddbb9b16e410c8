#pragma once
// Ensemble (sampling) studies: a registered model, the role of each of its inputs and a design.
//
//   [model]                 type = "<registered name>" and that model's own keys
//   [parameters.<input>]    any model input, by name:
//       role = "fixed",     value = "<quantity>"
//       role = "aleatoric", distribution = "<kind>", <the kind's parameters with units>
//                           (uq::make_distribution names; a discrete one takes
//                           values = [...] and optionally weights = [...])
//     inputs not listed keep the model's nominal value (role fixed). Role "epistemic" is for
//     the epistemic studies and rejected here; role "design" only when reading an
//     optimisation study (study_reading::design_inputs):
//       role = "design",    low = "<quantity>", high = "<quantity>", value = "<start>"
//                           (default (low + high) / 2), low < high, low <= value <= high
//   [sampling]              design = "monte_carlo" | "latin_hypercube" (default) |
//                           "maximin_latin_hypercube"; samples = N; seed; stratum =
//                           "random" | "centred"; failures = "record" (default) | "abort" |
//                           "retry", retries = 2; [[sampling.correlation]] between = [a, b],
//                           rho = Spearman rank correlation (Iman–Conover)
//
// The inputs of sample i depend only on the study (design, N, seed, correlations): see
// sample_inputs.

#include <Eigen/Core>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/distribution.hpp"

namespace contactuq::study {

// What happens to a sample whose model throws.
enum class failure_policy {
  record,  ///< store status failed, its message and NaN outputs; go on
  abort,   ///< stop the run after writing what is done (the failed sample included)
  retry,   ///< evaluate it again up to `retries` times, then record
};
std::string_view to_string(failure_policy p);

// One model input and what the study does with it.
struct input_spec {
  std::string name;                               ///< the model's input name
  std::string unit;                               ///< SI unit of its values
  io::input_role role = io::input_role::fixed;    ///< fixed, aleatoric or design
  double value = 0.0;                             ///< fixed value, or a design's start [SI]
  std::optional<uq::distribution> distribution;  ///< aleatoric only, in SI
  double low = 0.0;                               ///< design only: lower bound [SI], < high
  double high = 0.0;                              ///< design only: upper bound [SI]
};

struct sampling_options {
  uq::design_options design;             ///< kind, seed, stratum position
  std::size_t samples = 0;               ///< N, in [1, 1e9]
  // Target Spearman matrix over the aleatoric inputs, in their order; empty: independent.
  Eigen::MatrixXd rank_correlation;
  failure_policy failures = failure_policy::record;
  int retries = 2;                       ///< extra attempts under `retry`, in [1, 100]
};

struct ensemble_study {
  std::string title;
  model::model model;
  std::vector<input_spec> inputs;  ///< one per model input, in the model's order
  sampling_options sampling;

  // Indices into `inputs` of the aleatoric inputs: the columns of the design.
  std::vector<std::size_t> aleatoric() const;
  // Indices into `inputs` of the design variables (role "design"), in the model's order.
  std::vector<std::size_t> design_variables() const;
};

// What a reader accepts beyond an ensemble study.
struct study_reading {
  // Role "design" in [parameters.<x>] and an [optimization] table at the root (read by
  // study::read_optimization_study), for `contactuq optimize`.
  bool design_inputs = false;
};

// Reads and validates an ensemble study (models must be registered first); every error names
// the file, line and key.
ensemble_study read_ensemble_study(const io::study_document& doc, const study_reading& reading = {});

// Model inputs of every sample, N x inputs.size(): the columns of the aleatoric inputs are the
// N x d design of uniforms (uq::unit_design), rank correlation imposed (uq::
// impose_rank_correlation), mapped through their distributions (uq::map_to_inputs); the other
// columns hold the fixed values. A pure function of the study.
io::sample_matrix sample_inputs(const ensemble_study& study);

}  // namespace contactuq::study
