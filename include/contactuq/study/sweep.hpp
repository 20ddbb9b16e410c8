#pragma once
// A sweep: any registered model evaluated at each value of one input, every other input fixed.
//
//   method = "sweep"
//   [model]            any model of the registry
//   [parameters.<x>]   value = "<quantity>" for inputs fixed away from their nominal value
//   [sweep]
//   parameter = "<input>"                       the swept input, by name
//   values = ["<quantity>", ...]                its values, with units, or
//   low = "<quantity>", high = "<quantity>", points = k   k >= 2 equally spaced values
//
// Every value lies in the input's valid range (model::variable::valid). The receptacle–pin
// studies written with a root [stroke] table are sweeps of the same kind in their own layout
// (study/curve_study.hpp).

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::study {

struct sweep_plan {
  std::size_t input = 0;       ///< index of the swept model input
  std::vector<double> values;  ///< its values, in order [SI]
  std::vector<double> base;    ///< every input's value, the swept one at its nominal value [SI]

  // The inputs of point k: base with the swept input at values[k].
  std::vector<double> inputs(std::size_t k) const;
};

// The values of `input` a [sweep] table lists (`values`, or `low`, `high`, `points`), each
// checked against the input's valid range; errors name file, line and key.
std::vector<double> read_swept_values(const io::study_table& sweep, const model::variable& input);

// Reads the [sweep] and [parameters.*] tables of `root` for model m. Only fixed values are
// accepted in [parameters.*]; the swept input takes its values from [sweep] alone, and every
// other input needs a nominal value or a fixed one. Errors name file, line and key.
sweep_plan read_sweep(const io::study_table& root, const model::model& m);

// One point of a sweep: the model's result, or the message of its failure.
struct sweep_point {
  double value = 0.0;        ///< the swept input's value [SI]
  model::evaluation result;  ///< empty where the evaluation failed
  std::string error;         ///< "" where it succeeded
};

// Evaluates m at every point of the plan, in order. With keep_failures a point the model
// rejects (parameter_error) or cannot solve (model_error) is recorded with its message;
// otherwise the model's exception ends the sweep.
std::vector<sweep_point> run_sweep(const model::model& m, const sweep_plan& plan,
                                   bool keep_failures);

// HDF5 layout (format "contactuq-sweep"; k points, d inputs, m outputs, SI values, every
// dataset with a "units" attribute):
//   root attributes        format, format_version, method = "sweep", model, title, parameter,
//                          failed (points whose evaluation failed)
//   /study                 the study verbatim
//   /sweep                 [k] the swept values (attribute parameter)
//   /inputs                [k x d] every input of every point (attribute names)
//   /outputs               [k x m] scalar outputs, NaN where a point failed (attribute names)
//   /messages              [k] "" or why a point failed
//   /curves/<name>         [k x p] each curve output, NaN rows where a point failed
//                          (attributes abscissa_name, abscissa_unit, abscissa; group: names)
void write_sweep_hdf5(const std::filesystem::path& path, const io::study_document& study,
                      const model::model& m, const sweep_plan& plan,
                      const std::vector<sweep_point>& points);

}  // namespace contactuq::study
