#pragma once
// What a model may know about the run it is part of, beyond its inputs, for models that tell a
// program of the user's (the external model's work directories and params.json). Set on the
// calling thread by those who know it, read by a model; no model's values may depend on it.
//
//   study_output_scope   engine::run_study, while a study's method runs: the result file, so
//                        that a model built then can put its files beside it.

#include <filesystem>

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

}  // namespace contactuq::model
