#pragma once
// The [model.inputs] table of a model that a study defines itself (expression, external,
// umbridge): one entry per input, in the order the file writes them,
//   name = "<value with units>" | number | { value = ..., low = ..., high = ... }
// The value's units give the input its dimension; low and high (same dimension) its valid range.

#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::model {

struct declared_input {
  std::string name;
  units::dimension dim;
  double nominal = 0.0;  ///< [SI], finite, inside `valid`
  valid_range valid = {};
  double unit_to_si = 1.0;  ///< SI value of one of the unit it is written in ("0.3 in": 0.0254)
};

// The keys of a table in the order the file writes them (a TOML table is sorted by name).
std::vector<std::string> keys_as_written(const io::study_table& table);

// Input `name` of the [model.inputs] table `inputs`; errors at the file, line and key.
declared_input read_declared_input(const io::study_table& inputs, const std::string& name);

// Every input of the table, in written order.
std::vector<declared_input> read_declared_inputs(const io::study_table& inputs);

}  // namespace contactuq::model
