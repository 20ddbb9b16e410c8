#pragma once
// The `impact` study: the registry's impact model (model/impact_model.hpp) swept over a range of
// approach velocities with each of a list of contact laws, to compare the laws' predicted
// restitution, peak force, overlap and dissipated energy (Brake 2014, seeds/001_…), in its own
// result layout (format "contactuq-impact").

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/dynamics/single_impact.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/impact_model.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::study {

struct impact_study_options {
  std::string title;
  contact::contact_pair pair;       ///< bodies, materials, radii
  dynamics::impact_options solver;  ///< masses, tolerances; approach_velocity set per case
  std::vector<std::string> laws;    ///< registry names, in the order reported
  std::vector<std::string> labels;  ///< what each entry is called in results (label or name)
  std::vector<std::map<std::string, model::law_value>> law_parameters;  ///< per law: explicit values
  std::vector<double> velocities;   ///< approach velocities v0 [m/s]
};

// Reads and validates an impact study; laws are built once here so that a bad law parameter is
// reported with its file, line and key. `data_dir` holds materials.toml unless the study names
// another table.
impact_study_options read_impact_study(const io::study_document& doc, const std::string& data_dir);

struct impact_case {
  std::string law;   ///< the entry's label
  double velocity;  ///< v0 [m/s]
  dynamics::impact_result result;
};

// The registry's impact model (model/impact_model.hpp) for entry l of the study: its law and
// parameters, the bodies and solver options of the study, no curves.
model::model impact_law_model(const impact_study_options& options, std::size_t l);

// Every law at every velocity: for each [[laws]] entry (law is the outer, swept choice), a sweep
// (study/sweep.hpp) of that entry's impact model over approach_velocity. A failed impact is
// recorded in its result's status and message, never thrown. Each result holds status, message,
// law and the six outputs of the model (restitution, peak_force, contact_duration, peak_overlap,
// residual_overlap, energy_dissipated), not the simulator's step counts or history.
std::vector<impact_case> run_impact_study(const impact_study_options& options);

// CSV, one row per (law, v0): law,v0 [m/s],status,restitution,peak_force [N],peak_overlap [m],
// contact_duration [s],residual_overlap [m],energy_dissipated [J],message
void write_impact_csv(const std::string& path, const std::vector<impact_case>& cases);

// The sweep as HDF5 (format "contactuq-impact", docs/hdf5-schema.md): root attributes format,
// format_version, method = "impact", model = "impact", title and laws (the labels); the study
// verbatim; approach_velocity [m/s]; one laws x velocities matrix per output (restitution,
// peak_force, peak_overlap, contact_duration, residual_overlap, energy_dissipated; NaN where a
// case failed, units attribute), status (0 ok, 1 failed) and messages (row-major, "" where ok).
void write_impact_hdf5(const std::string& path, const io::study_document& doc, const impact_study_options& options,
                       const std::vector<impact_case>& cases);

}  // namespace contactuq::study
