#pragma once
// A model given by formulas, type "expression": each output is a formula in the inputs,
//   y_j = f_j(x_1, ..., x_n),
// parsed once by muparser (operators + - * / ^, comparisons, `? :`, functions sin cos tan asin
// acos atan atan2 sinh cosh tanh asinh acosh atanh exp ln = log log2 log10 sqrt abs sign rint
// min max sum avg, constants pi = _pi and _e). E.g. a limit state g = R - S.
//
// Inputs are SI values of the dimension their nominal value was written with ("200 N" is a force,
// a bare number is dimensionless); formulas see SI values. A number written in a formula is
// dimensionless: a constant with units is an input ("capacity = \"100 N\"").
//
// Units of an output, by scaling (Buckingham): a formula whose units are consistent is a
// homogeneous function of the base units. For each base dimension d (length, mass, duration,
// angle) the check scales every input by f^(its exponent of d), f = 2 and 3, and requires the
// output to scale by f^k for one whole k, to 1e-9 relative, at the nominal point and at two points
// near it (an input with nominal 0 is probed away from 0). The k of every base dimension is the
// formula's dimension: a declared `units` must equal it, and without one the output takes it.
// A formula that is not a whole power of length, mass or duration (R + L, R - 100, exp(R),
// sqrt(R)) is an error. Angles are the exception, since radians are a ratio and a trigonometric
// function takes one: where a formula is not a power of the angles (sin(theta)), its angle
// exponent is the declared one, else 0.
//
// The [model] table:
//   type = "expression"
//   [model.inputs]   name = "<quantity>" | <number> | { value = ..., low = ..., high = ... }
//                    (low/high: the input's valid range, same dimension; unbounded otherwise)
//   [model.outputs]  name = "<formula>" | { formula = "<formula>", units = "<unit>" }
// Names are identifiers ([A-Za-z_][A-Za-z0-9_]*), unique over inputs and outputs, and none of
// muparser's function or constant names. A formula uses inputs only, one value, no assignment.
//
// An evaluation whose formula gives NaN or an infinity throws model_error (a failed sample).
// A muparser parser is not safe to evaluate from two threads, so thread_safe() is false and the
// engine evaluates a clone per thread; a copy compiles its own parsers bound to its own inputs.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/declared_inputs.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

using expression_input = declared_input;  // [model.inputs]: declared_inputs.hpp

struct expression_output {
  std::string name;
  std::string formula;
  std::optional<std::string> units = {};  ///< declared unit text, e.g. "N" or "1"; none: inferred
};

class expression_model {
 public:
  // Compiles the formulas and checks their units as above. Throws parameter_error whose field is
  // the input or output at fault (the model's name for a missing input or output).
  expression_model(std::vector<expression_input> inputs, std::vector<expression_output> outputs);
  // Reads the [model] table above; errors at file, line and key.
  static expression_model from_study(const io::study_table& table);

  expression_model(const expression_model& other);
  expression_model& operator=(const expression_model& other);
  expression_model(expression_model&&) noexcept;
  expression_model& operator=(expression_model&&) noexcept;
  ~expression_model();

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  bool thread_safe() const { return false; }  // one parser's evaluation stack per object
  std::string name() const { return "expression"; }
  // Throws model_error where a formula is not finite at x.
  evaluation evaluate(std::span<const double> x) const;

  const std::vector<expression_input>& input_table() const noexcept { return inputs_; }
  const std::vector<expression_output>& output_table() const noexcept { return outputs_; }

 private:
  struct compiled;  // the parsers and the input values they are bound to

  std::vector<expression_input> inputs_;
  std::vector<expression_output> outputs_;
  std::vector<units::dimension> output_dims_;  ///< declared, or found by scaling
  std::vector<std::string> output_units_;      ///< the declared unit where it is an SI name
  std::unique_ptr<compiled> compiled_;
};

}  // namespace contactuq::model
