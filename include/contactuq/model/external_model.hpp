#pragma once
// A model that runs the user's own program once per evaluation, type "external":
//   y = program(x)
// through files (docs/external-models.md): each evaluation gets a fresh work directory holding
//   params.json   {"inputs": {name: value in its declared units}, "case": label, "sample": s,
//                  "evaluation": n}
// (s and label: the sample and epistemic case of an ensemble row, model::current_evaluation();
// null and "" outside an ensemble; n: the evaluation's number in this run of the model, from 0,
// which names the work directory) and the templated files, the program runs there, and writes
//   results.json  {"outputs": {name: value in declared units},
//                  "curves": {name: {"x": [...], "y": [...]}}}
// A curve is linearly interpolated onto the abscissa the study declares, which its x must span.
//
// The [model] table:
//   type = "external"
//   command = ["python3", "drivers/r_minus_s.py"]   argv; an argument naming a file or folder
//                                  relative to the study's folder is made absolute; argv[0]
//                                  without a '/' is looked up in PATH. No shell, unless
//   shell = false                  true: command is one string, run by /bin/sh -c
//   timeout = "10 min"             a duration; default none
//   keep_workdirs = "failed"       "failed" | "all" | "none"
//   workdirs = "path"              where work directories go (relative: to the study's folder);
//                                  default beside the study's result file (model::study_output,
//                                  set while engine::run_study runs it), in RESULT.work-PID-N,
//                                  or else under the system's temporary folder
//   templates = ["deck.inp"]       files (relative to the study's folder) copied into each work
//                                  directory with {name} replaced by input name's value
//   format = "{:.17g}"             how a value is written into a template (fmt syntax)
//   [model.inputs]   name = "<quantity>" | <number> | { value = ..., low = ..., high = ... }
//                    (the program sees values in the units written here: "0.3 in" -> 0.3)
//   [model.outputs]  name = "<units>" (e.g. "N", "1" or "" for a number)
//                  | { curve = true, units = "N", x_name = "stroke", x_units = "mm",
//                      x = [0, 1, 2] or x = { from = 0, to = 10, points = 11 } }
//
// A failed evaluation throws model_error (a failed case, never a crash): the program could not
// start, exited nonzero, was killed by a signal, ran past its timeout, left processes running,
// wrote no or malformed results.json, or left out an output or gave NaN. Its message quotes the
// last lines of the program's stderr and names the kept work directory.
//
// Each evaluation has a work directory and a process of its own: thread_safe() is true, and
// `-j N` runs N programs at once.

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/declared_inputs.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

using external_input = declared_input;  // [model.inputs]: declared_inputs.hpp

struct external_output {
  std::string name;
  units::dimension dim;
  double unit_to_si = 1.0;
  std::string unit = {};  ///< the SI unit's name where the declared one is SI, else ""
};

struct external_curve {
  std::string name;
  units::dimension dim;
  double unit_to_si = 1.0;
  std::string x_name;
  units::dimension x_dim;
  double x_unit_to_si = 1.0;
  std::vector<double> x;  ///< the abscissa in declared units, increasing
};

struct external_options {
  std::vector<std::string> command;  ///< argv, paths made absolute
  bool shell = false;
  double timeout = 0.0;  ///< [s]; infinite: none
  enum class keep { failed, all, none } keep_workdirs = keep::failed;
  std::filesystem::path workdirs = {};  ///< empty: beside result_file, or else in the temporary folder
  // The result file of the study that runs the model (absolute), "" for none: without workdirs,
  // the work directories go in a folder beside it, <result_file>.work-<pid>-<n>.
  std::filesystem::path result_file = {};
  std::vector<std::filesystem::path> templates = {};
  std::string format = "{:.17g}";
};

class external_model {
 public:
  // Throws parameter_error whose field is the input, output or option at fault.
  external_model(std::vector<external_input> inputs, std::vector<external_output> outputs,
                 std::vector<external_curve> curves, external_options options);
  // Reads the [model] table above; errors at file, line and key.
  static external_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  std::vector<curve_output> curves() const;
  bool thread_safe() const { return true; }
  std::string name() const { return "external"; }
  // Runs the program once; throws model_error for a failed evaluation (see above).
  evaluation evaluate(std::span<const double> x) const;

  const external_options& options() const noexcept { return options_; }
  // The command line as a reader would type it, for `contactuq check`.
  std::string command_text() const;

 private:
  struct state;  // shared by copies: the evaluation counter, the work root, template texts

  // params.json and the templates, in the work directory.
  void write_inputs(const std::filesystem::path& dir, std::span<const double> x, long long number) const;
  // results.json's outputs and curves in SI.
  evaluation read_results(const std::filesystem::path& dir) const;

  std::vector<external_input> inputs_;
  std::vector<external_output> outputs_;
  std::vector<external_curve> curves_;
  external_options options_;
  std::shared_ptr<state> state_;
};

// The commands the external models of a study would run, one line each ("" for none), for
// `contactuq check`: a study with an external model runs programs, as a Makefile does.
std::vector<std::string> external_commands(const io::study_table& model_table);

}  // namespace contactuq::model
