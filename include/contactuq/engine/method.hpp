#pragma once
// A method: an algorithm over a study's model and variables that writes one result file
// (evaluate, sweep, sample, optimize, calibrate, ...). Each lives in one file,
// src/engine/<name>_method.cpp, and is known to the engine by its entry in the method registry:
// its name, what the engine and front ends need to know to run it, and the function that runs it.
// docs/howto-add-method.md walks through adding one.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/io/study_file.hpp"

namespace contactuq::engine {

struct run_options;
struct run_result;

struct method {
  std::string name = {};          ///< what a study's root key `method` says, e.g. "sample"
  std::string summary = {};       ///< what it does, in one line (help texts, docs)
  std::string counts = "cases";   ///< what run_result::planned counts ("samples", "curves"), for `check`
  // Front ends show progress in these units ("samples", "evaluations"); "": the method reports none.
  std::string progress_unit = {};
  bool resumable = false;         ///< continues an unfinished run (--resume) and stops at --time-limit
  bool shards = false;            ///< its cases split into parts run apart (--shard k/K)
  bool result_optional = false;   ///< may run without writing its result file (run_options::write_result)
  // Runs the study and writes its result to `out` ("" when result_optional and not written).
  run_result (*run)(const io::study_document& doc, const run_options& options, const std::filesystem::path& out) =
      nullptr;
};

// Adds a method to the registry; throws std::invalid_argument when its name is taken or it has
// no run function. The built-in methods are registered on first use of the registry.
void register_method(method m);

// The method of that name; std::invalid_argument listing the known names when there is none.
const method& find_method(std::string_view name);

// Every registered method, in registration order.
std::vector<const method*> methods();

// "evaluate, curve, sweep, ..." for messages.
std::string method_names();

}  // namespace contactuq::engine
