#pragma once
// Robust design (optimisation) studies, `contactuq optimize`: an ensemble study whose
// [parameters] may also give design variables, and an [optimization] table.
//
//   [parameters.<input>]   role = "design", low = "<quantity>", high = "<quantity>",
//                          value = "<start>" (default the midpoint); fixed and aleatoric
//                          inputs as in an ensemble study (ensemble_study.hpp)
//   [sampling]             the common-random-number set: design, samples = N, seed, ...
//   [optimization]         algorithm = "hybrid" | "sga" | "de" | "cmaes" | "nsga2" | "slsqp" |
//                          "mma" | "lbfgs" | "cobyla" | "bobyqa"; global, local (hybrid's
//                          stages); seed, population, generations, evaluations, xtol, ftol,
//                          gradient_step, constraint_tolerance, over_models = "worst" | "mean"
//                          (opt::optimizer_options)
//   [[optimization.objective]]   one, or two for nsga2:
//       output = "<model output>", statistic = "mean" | "mean_plus_sd" | "quantile" |
//       "probability", kappa (mean_plus_sd, default 3), level (quantile), above = "<limit>" or
//       below = "<limit>" (probability), smoothing = "<width>" (probability), sense =
//       "minimize" (default) | "maximize"
//   [[optimization.constraint]]  any number, the same keys but sense, and max = <bound> or
//       min = <bound>: the statistic's value must stay <= max (>= min); a probability's bound
//       is a plain number or a percentage ("1 %")
// Quantities take the unit of their output; docs/robust-design.md has the details.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "contactuq/opt/optimization_store.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/opt/optimizer.hpp"
#include "contactuq/opt/robust_objective.hpp"
#include "contactuq/study/ensemble_study.hpp"

namespace contactuq::opt {

struct optimization_study {
  study::ensemble_study base;  ///< model, inputs (with the design variables) and the CRN sampling
  std::vector<opt::objective> objectives;
  std::vector<opt::constraint> constraints;
  opt::optimizer_options optimizer;

  // The start values of the design variables [SI], in the model's order.
  std::vector<double> start() const;
};

// Reads and validates an optimisation study (models registered first); every error names the
// file, line and key.
optimization_study read_optimization_study(const io::study_document& doc);

// SI unit of a measure of model m's output: "" for a probability, else the output's.
std::string measure_unit(const model::model& m, const opt::measure& what);

// The models to optimise under: one per epistemic case (e.g. each contact law), labelled by the
// case, else the study's model under its name.
std::vector<std::pair<std::string, model::model>> optimization_models(const optimization_study& s);

// The result file's schema of a study: design variables, objectives and constraints described
// with their SI units, the models, the algorithm and where and when it runs.
optimization_schema optimization_schema_of(const optimization_study& s,
                                               const io::study_document& doc,
                                               std::size_t threads);

// The evaluations of an interrupted run of the same study in `path`, to replay. Throws
// io::ensemble_error when the file was written for another study.
std::vector<opt::evaluation_record> resume_history(const std::filesystem::path& path,
                                                   const io::study_document& doc);

}  // namespace contactuq::opt
