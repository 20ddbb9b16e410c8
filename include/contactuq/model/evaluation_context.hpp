#pragma once
// What a model may know about the run it is part of, beyond its inputs, for models that tell a
// program of the user's (the external model's work directories and params.json). Set on the
// calling thread by those who know it, read by a model; no model's values may depend on it.
//
//   study_output_scope   engine::run_study, while a study's method runs: the result file, so
//                        that a model built then can put its files beside it.
//   evaluation_scope     study::block_evaluator, around the evaluation of one row of an
//                        ensemble: its sample and epistemic case.

#include <filesystem>
#include <string_view>

namespace contactuq::model {

// The result file of the study this thread runs (absolute), or "" outside a run or for a run
// that writes none. Models read it when they are built (on the thread that runs the study).
const std::filesystem::path& study_output() noexcept;

// Sets study_output() on this thread while it lives; restores the previous value after.
class study_output_scope {
 public:
  explicit study_output_scope(const std::filesystem::path& output);
  ~study_output_scope();
  study_output_scope(const study_output_scope&) = delete;
  study_output_scope& operator=(const study_output_scope&) = delete;

 private:
  std::filesystem::path previous_;
};

// The evaluation running on this thread, as the ensemble runner numbers it.
struct evaluation_context {
  // Row r of an ensemble is aleatoric sample r % per_case() of case r / per_case()
  // (study::ensemble_study): this sample's index in its case, the same at any -j, under MPI and
  // after a resume (a sample study: its row of the result file); -1 outside an ensemble.
  long long sample = -1;
  std::string_view case_label = {};  ///< its epistemic case's label; "" for none
};

// The context of the evaluation this thread runs; {-1, ""} outside one.
const evaluation_context& current_evaluation() noexcept;

// Sets current_evaluation() on this thread while it lives (the label must outlive it); restores
// the previous context after.
class evaluation_scope {
 public:
  explicit evaluation_scope(const evaluation_context& context) noexcept;
  ~evaluation_scope();
  evaluation_scope(const evaluation_scope&) = delete;
  evaluation_scope& operator=(const evaluation_scope&) = delete;

 private:
  evaluation_context previous_;
};

}  // namespace contactuq::model
