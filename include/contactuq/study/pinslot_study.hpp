#pragma once
// The `pinslot` study: deterministic runs of the pin-slot validation set-up of Skrinjar et al.
// (003_..., Section 5; multibody/pinslot.hpp), one per [[cases]] entry, written to HDF5 (format
// "contactuq-pinslot", docs/pinslot.md). The same [model] table (type = "pinslot") builds the
// registry's "pinslot" model for sampling studies.
//
//   [model]
//   type = "pinslot"
//   joint = "pscj"                 # "pscj" | "rcj" | "irj" (epistemic: joint idealisation)
//   law = "lankarani_nikravesh"    # multibody::clearance_laws() (epistemic: contact law)
//   clearance = "0.05 mm"          # ... any key below, with units
//   [[cases]]                      # each: label plus any [model] key but type
//   label = "RCJ"
//   joint = "rcj"

#include <cstddef>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/pinslot_table.hpp"
#include "contactuq/multibody/pinslot.hpp"

namespace contactuq::study {

// The [model] table reader lives with the model (model/pinslot_table.hpp).
using model::pinslot_keys;
using model::pinslot_setup;
using model::read_pinslot_setup;

struct pinslot_case {
  std::string label;
  pinslot_setup setup;
};

struct pinslot_study {
  std::string title;
  std::vector<pinslot_case> cases;  ///< [model] alone when there are no [[cases]]
  std::string output;               ///< [output] file, may be empty
};

pinslot_study read_pinslot_study(const io::study_document& doc);

struct pinslot_case_result {
  std::string label;
  pinslot_setup setup;
  multibody::pinslot_result result;
  double wall_time = 0.0;  ///< [s] of the simulation
};

// Runs the cases in parallel (each is independent and deterministic).
std::vector<pinslot_case_result> run_pinslot_study(const pinslot_study& study);

// Writes the results (layout in docs/pinslot.md); `study_text` is stored verbatim.
void write_pinslot_h5(const std::string& path, const std::string& study_text, const std::string& study_path,
                      const std::string& title, const std::vector<pinslot_case_result>& results);

}  // namespace contactuq::study
