#pragma once
// Ensemble (sampling) studies: a registered model, the role of each of its inputs and a design.
//
//   [model]                 type = "<registered name>" and that model's own keys
//   [parameters.<name>]     the role of a model input: fixed, aleatoric (at least one), design or
//                           epistemic, and epistemic [model] keys and case tables; the format
//                           and its checks are those of read_variables (variables.hpp)
//   Epistemic parameters make a nested study: every combination of their choices (a case) is
//   evaluated on the same N aleatoric samples (common random numbers), case after case.
//   [sampling]              design = "monte_carlo" | "latin_hypercube" (default) |
//                           "maximin_latin_hypercube" | "sobol" | "halton" (scrambled QMC;
//                           `method` is another name of `design`), replicates = R (QMC only,
//                           default 10, R divides N: R independent scrambles of N / R points,
//                           whose spread gives the confidence intervals); samples = N; seed; stratum =
//                           "random" | "centred"; failures = "record" (default) | "abort" |
//                           "retry", retries = 2; [[sampling.correlation]] between = [a, b],
//                           rho = Spearman rank correlation (Iman–Conover);
//                           sobol = true: a Saltelli pick-freeze design (uq/sensitivity.hpp),
//                           N (d + 2) evaluations per case, for Sobol indices of the d aleatoric
//                           inputs (which must then be independent)
//
// The inputs of sample i depend only on the study (design, N, seed, correlations): see
// sample_inputs.

#include <Eigen/Core>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/study/variables.hpp"
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
  io::input_role role = io::input_role::fixed;
  double value = 0.0;                             ///< fixed value, design value [SI]
  std::optional<uq::distribution> distribution;  ///< aleatoric only, in SI
  double low = 0.0, high = 0.0;                   ///< design bounds [SI] (design only)
};

// One combination of epistemic choices, with the model it is evaluated with.
struct epistemic_case {
  std::string label;                ///< e.g. "law=hertz, g0=1 mm"; "nominal" without epistemic
  std::vector<std::size_t> choice;  ///< index of the choice of each epistemic parameter
  model::model model;
  // When the case's model has other inputs than the study's (a contact law with parameters of
  // its own): for each of its inputs the study column it takes, or npos for its nominal value.
  // Empty when the inputs are the study's.
  std::vector<std::size_t> input_columns;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

struct sampling_options {
  uq::design_options design;             ///< kind, seed, stratum position
  std::size_t samples = 0;               ///< N, in [1, 1e9]
  // Target Spearman matrix over the aleatoric inputs, in their order; empty: independent.
  Eigen::MatrixXd rank_correlation;
  failure_policy failures = failure_policy::record;
  int retries = 2;                       ///< extra attempts under `retry`, in [1, 100]
  bool sobol = false;                    ///< pick-freeze design: N (d + 2) evaluations
};

// What a reader accepts beyond an ensemble study.
struct study_reading {
  // An [optimization] table at the root (read by opt::read_optimization_study), for
  // `contactuq optimize`.
  bool design_inputs = false;
  // Root tables the calling method reads itself (e.g. "morris"), accepted beside the study's.
  std::vector<std::string> method_tables = {};
  // false: the method makes its own design of the aleatoric inputs; [sampling] is refused and
  // sampling holds its defaults (the method sets samples, the rows it evaluates).
  bool sampling = true;
  // How refusals name the study, e.g. "a morris study"; "": a sample, nested or optimize study.
  std::string study_kind = {};

  friend bool operator==(const study_reading&, const study_reading&) = default;
};

struct ensemble_study {
  std::string title;
  model::model model;  ///< the model as the [model] table builds it (the first case's model)
  std::vector<input_spec> inputs;  ///< one per model input, in the model's order
  sampling_options sampling;       ///< sampling.samples: N aleatoric samples per case
  std::vector<epistemic_parameter> epistemic;
  // Every combination, first parameter slowest (a case table's columns move with it); empty
  // means one case with `model`.
  std::vector<epistemic_case> cases;
  // How read_ensemble_study read it: another process reads the same document the same way.
  study_reading reading = {};

  // Indices into `inputs` of the aleatoric inputs: the columns of the design.
  std::vector<std::size_t> aleatoric() const;
  // Evaluations per case: N, or N (d + 2) for a Sobol (pick-freeze) design.
  std::size_t per_case() const { return sampling.samples * (sampling.sobol ? aleatoric().size() + 2 : 1); }
  // Samples the study evaluates: cases x per_case(); row r is aleatoric point r % per_case()
  // under case r / per_case().
  std::size_t rows() const { return std::max<std::size_t>(cases.size(), 1) * per_case(); }
  // The model of case c.
  const model::model& case_model(std::size_t c) const { return cases.empty() ? model : cases.at(c).model; }
  // Indices into `inputs` of the design variables (role "design"), in the model's order.
  std::vector<std::size_t> design_variables() const;
};

// Reads and validates an ensemble study (models must be registered first); every error names
// the file, line and key.
ensemble_study read_ensemble_study(const io::study_document& doc, const study_reading& reading = {});

// Model inputs of every sample, rows() x inputs.size(): the columns of the aleatoric inputs are
// the N x d design of uniforms (uq::unit_design), rank correlation imposed (uq::
// impose_rank_correlation), mapped through their distributions (uq::map_to_inputs), repeated
// for every case; epistemic inputs hold their case's choice, the others their fixed or design
// value. A pure function of the study.
io::sample_matrix sample_inputs(const ensemble_study& study);

// The rows of sample_inputs(study), a block at a time. Where the design allows it (Monte Carlo,
// Sobol' and Halton points, without rank correlation or a pick-freeze design) rows are made when
// asked for, so the inputs of a plan of 10^9 samples never exist at once; otherwise (a Latin
// hypercube permutes whole columns, Iman–Conover reorders whole replicates) the design of uniforms
// is sampled once, whole, and mapped to the inputs block by block (a pick-freeze plan is made
// whole). `study` (and `given`) must outlive the plan.
class sample_plan {
 public:
  explicit sample_plan(const ensemble_study& study);
  // Rows of `given` (study.rows() x inputs) instead of the study's own: tests and benchmarks.
  sample_plan(const ensemble_study& study, const io::sample_matrix& given);

  // Whether rows(study) can be made alone: the plan of `study` is then streamed.
  static bool streams(const ensemble_study& study);
  bool streamed() const noexcept { return !unit_ && !whole_ && !given_; }
  // Whether the rows are given (a method's own): another process cannot remake them from the study.
  bool given() const noexcept { return given_ != nullptr; }
  std::size_t rows() const noexcept { return rows_; }
  std::size_t cols() const noexcept { return study_->inputs.size(); }
  // Rows [first, first + count) of sample_inputs(study), bit for bit; first + count <= rows().
  io::sample_matrix rows(std::size_t first, std::size_t count) const;

 private:
  const ensemble_study* study_;
  std::size_t rows_;
  std::vector<std::size_t> aleatoric_;
  std::vector<uq::distribution> distributions_;
  std::optional<Eigen::MatrixXd> unit_;       // a design made whole, mapped block by block
  std::optional<io::sample_matrix> whole_;    // a pick-freeze plan, made whole
  const io::sample_matrix* given_ = nullptr;
};

}  // namespace contactuq::study
