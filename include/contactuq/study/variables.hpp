#pragma once
// The variables of a study: what it does with each model input (its role), read from the
// [parameters.*] tables once, for every method.
//
//   [parameters.<input>]    any model input, by name:
//       role = "fixed",      value = "<quantity>"
//       role = "design",     low = "<quantity>", high = "<quantity>", value = "<start>"
//                            (a design variable of robust design, default start (low + high) / 2;
//                            a run evaluates it at value)
//       role = "aleatoric",  distribution = "<kind>", <the kind's parameters with units>
//                            (uq::make_distribution names; a discrete one takes
//                            values = [...] and optionally weights = [...])
//       role = "epistemic",  choices = ["<quantity>", ...]  or  low, high and points = k >= 2
//                            (k equally spaced values; the end points by default)
//       role = "calibrated", low = "<quantity>", high = "<quantity>", start = "<quantity>"
//                            (fitted within [low, high]; default start: the model's value)
//   [parameters.<key>]      a key of the [model] table that is no input, e.g. the contact law:
//       role = "epistemic", choices = ["hertz", "thornton", ...]; the model is built once per
//                           choice (every choice must give the same outputs and curves)
//   [parameters.<name>]     a case table: role = "epistemic", choices = ["<case>", ...] naming
//                           the cases and <input> = [one value per case] for each input it sets
//     inputs not listed keep the model's nominal value (role fixed).
//
// Every value a study gives an input lies in the input's valid range (model::variable::valid):
// fixed values, design and calibrated bounds, epistemic choices, and the support of a
// distribution up to a negligible probability (truncation is the remedy). A method names the
// roles it accepts (accepted_roles); any other role is refused at its `role` key, naming them.
// A new role (a Bayesian prior or population) is one more enumerator of variable_role and one
// more reading function in variables.cpp.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/uq/distribution.hpp"

namespace contactuq::study {

// What a study does with a model input.
enum class variable_role {
  fixed,       ///< one value
  design,      ///< varied within bounds by robust design
  aleatoric,   ///< drawn from a distribution (natural variability)
  epistemic,   ///< one of a set of choices (lack of knowledge): one case per choice
  calibrated,  ///< fitted to measurements within bounds
};
std::string_view to_string(variable_role r);

// The roles a method accepts, and how its refusals name it.
struct accepted_roles {
  std::string method;                ///< e.g. "an evaluate study", as refusals name the method
  std::vector<variable_role> roles;  ///< in the order refusals list them
  // The role of a table without a `role` key; none: `role` is required.
  std::optional<variable_role> implied = std::nullopt;
  std::string hint = {};  ///< appended to a refusal, e.g. where the other roles belong

  bool accepts(variable_role r) const;
};

// A model input and what the study does with it.
struct variable {
  std::string name;  ///< the model's input name
  std::string unit;  ///< SI unit of its values
  variable_role role = variable_role::fixed;
  bool given = false;  ///< set by a [parameters.*] table; false: fixed at the model's nominal value
  // Fixed value, design start, calibrated first start; the model's nominal value for aleatoric
  // and epistemic inputs [SI].
  double value = 0.0;
  std::optional<uq::distribution> distribution;  ///< aleatoric only, in SI
  double low = 0.0, high = 0.0;                  ///< design and calibrated bounds [SI]
};

// An epistemic parameter: a model input or a [model] key, and its choices.
struct epistemic_parameter {
  std::string name;                 ///< input name or [model] key
  bool model_key = false;           ///< true: a [model] key; the model is rebuilt per choice
  std::size_t input = 0;            ///< index of the model input (model_key false)
  std::vector<std::string> labels;  ///< each choice as written, e.g. "hertz", "1 mm"
  std::vector<double> values;       ///< each choice in SI (model_key false)
  // A case table ([parameters.<name>] with `choices` naming the cases and one list of values
  // per input): true on its head, which names the cases and sets no input itself. Its columns
  // are epistemic inputs that follow it.
  bool case_table = false;
  // Index of the epistemic parameter whose choice this one takes (a column of a case table);
  // npos: it is chosen on its own, in every combination with the others.
  std::size_t follows = npos;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

struct variables {
  std::vector<variable> inputs;  ///< one per model input, in the model's order
  // Indices into `inputs` of those a [parameters.<input>] table sets, in the key order of
  // [parameters] (a method that orders its parameters as written, e.g. calibrate, uses it).
  std::vector<std::size_t> listed;
  // In the key order of [parameters]; a case table's head is followed by its columns.
  std::vector<epistemic_parameter> epistemic;

  // Indices into `inputs` of the inputs with role r, in the model's order.
  std::vector<std::size_t> with_role(variable_role r) const;
  // Those of `listed` with role r, in the key order of [parameters].
  std::vector<std::size_t> listed_with_role(variable_role r) const;
  // The value of every input, in the model's order.
  std::vector<double> values() const;
};

// Reads every [parameters.<name>] table of `root` (none when the table is absent) for model m,
// refusing a role `accepted` does not hold, an unknown name (listing the model's inputs), a key
// of a role's table that it does not take, and a value outside its input's valid range; every
// error names the file, line and key.
variables read_variables(const io::study_table& root, const model::model& m,
                         const accepted_roles& accepted);

}  // namespace contactuq::study
