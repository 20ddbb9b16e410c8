#pragma once
// The pin-slot model's [model] table (Skrinjar et al., 003_..., Section 5; multibody/pinslot.hpp):
// the joint's Table 1-2 defaults overridden by the table's keys, with units. The registry's
// "pinslot" model and the pinslot study read their set-up through it.
//
//   [model]
//   type = "pinslot"
//   joint = "pscj"                 # "pscj" | "rcj" | "irj" (epistemic: joint idealisation)
//   law = "lankarani_nikravesh"    # multibody::clearance_laws() (epistemic: contact law)
//   clearance = "0.05 mm"          # ... any key of pinslot_keys(), with units

#include <cstddef>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/multibody/pinslot.hpp"

namespace contactuq::model {

struct pinslot_setup {
  multibody::pinslot_params params;
  multibody::simulation_options simulation = multibody::pinslot_simulation_defaults();
  std::size_t window = 301;  ///< moving-average width [samples], odd (Section 5.2)
};

// Every key a pinslot [model] table may hold (besides type), sorted.
std::vector<std::string> pinslot_keys();

// Reads a [model] table of type "pinslot": the joint's Table 1-2 defaults, then the table's keys.
// `over`: a [[cases]] entry whose keys (label, joint, ...) override the table's. Errors name the
// file, line and key.
pinslot_setup read_pinslot_setup(const io::study_table& model,
                                 const io::study_table* over = nullptr);

}  // namespace contactuq::model
