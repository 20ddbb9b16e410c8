#pragma once
// Calibration studies of any registered model (`contactuq fit STUDY.toml`; docs/calibration.md):
//
//   [model]                 type = "<registered name>" and that model's own keys
//   [parameters.<input>]    role = "calibrated", low, high, start (optional: the model's value)
//                           role = "fixed", value (study::read_variables: values and bounds in
//                           the input's valid range; calibrated in the key order of [parameters])
//   [data]                  tables = ["<csv>", ...]: one case per row; a column
//                           "<input> [unit]" sets that input for the row (e.g. an approach
//                           velocity), "<output> [unit]" is its measured value (an empty cell:
//                           not measured), "case" labels the row's cluster (default: the row);
//                           "part" names the physical part of the row (the bayesian method)
//   [[data.curves]]         file = "<csv>" with two columns "<abscissa> [unit]",
//                           "<curve> [unit]", curve = "<model curve>", label, inputs = {...}
//   [calibrate]             starts, seed, loss, loss_scale (in residual scales), confidence,
//                           bootstrap, max_evaluations, tolerance, difference_step, parallel
//   [calibrate.scales]      <output or curve> = "<quantity>": its residual scale (the
//                           measurement sd; default: the rms of its measured values)
//   [output] units = { <input, output or curve> = "<unit>" }: units of the report
//
// An old receptacle–pin fit study ([fit] and [data] files) is read by fit_study.hpp; a [fit]
// table next to [parameters.* role = "calibrated"] is an error naming [calibrate].
// Result file (write_calibration_hdf5): root attributes format = "contactuq-calibration",
// format_version = 1, method = "calibrate", model = <registered name>.

#include <filesystem>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "contactuq/calibrate/calibration.hpp"
#include "contactuq/io/study_file.hpp"

namespace contactuq::calibrate {

struct calibration_study {
  std::string title;
  calibration_setup setup;
  fit_options options;
  std::vector<measured_case> cases;
  std::map<std::string, std::string> units;  ///< report unit per input, output or curve name
};

// Whether a study file is a calibration of a registered model (a [calibrate] table or a
// calibrated parameter) rather than an insertion-curve fit.
bool is_calibration_study(const io::study_document& doc);

// Reads the study and its data files (models must be registered first); every error names
// the file, line and key (or data file, line and column).
calibration_study read_calibration_study(const io::study_document& doc);

// Reads a data table (the [data] tables format) into cases of model m.
std::vector<measured_case> read_case_table(const std::filesystem::path& path,
                                           const model::model& m);

// Writes cases as a data table: the columns of the inputs the first case varies and of the
// outputs it measures, in SI units unless `units` names others; `comments` become '#' lines.
void write_case_table(const std::filesystem::path& path, const model::model& m,
                      const std::vector<measured_case>& cases,
                      const std::map<std::string, std::string>& units,
                      const std::vector<std::string>& comments);

// The report: data, estimates with Jacobian, clustered and bootstrap intervals, correlations,
// residuals per output.
std::string describe_calibration(const calibration_study& study, const calibration_result& r);

// Synthetic measurements made by the model (`contactuq synthesize SPEC.toml`):
//   [model]        the generating model and values (the truth)
//   [synthetic]    vary = { <input> = ["<quantity>", ...] } (one case per value, first key
//                  slowest when several are given: full factorial), repeats = k (cases per
//                  combination, labelled "<combination>.<repeat>"), outputs = ["<output>", ...],
//                  noise = { <output> = "<sd>" }, seed
//   [output]       file, units = { <name> = "<unit>" }
struct synthetic_cases_spec {
  std::string title;
  model::model model;
  std::vector<double> inputs;          ///< the truth [SI]
  std::vector<measured_case> cases;    ///< varied inputs and the outputs to fill
  std::vector<double> noise_sd;        ///< per model output [SI]
  std::uint64_t seed = 1;
  std::map<std::string, std::string> units;
  std::filesystem::path output;        ///< [output] file, resolved; empty when not given
};
bool is_synthetic_cases_spec(const io::study_document& doc);
synthetic_cases_spec read_synthetic_cases_spec(const io::study_document& doc);
// Fills the cases (synthesize_cases) and writes the data table with its provenance.
void write_synthetic_cases(const synthetic_cases_spec& spec, const std::string& spec_path,
                           const std::filesystem::path& output);

void write_calibration_hdf5(const std::filesystem::path& path, const io::study_document& doc,
                            const calibration_study& study, const calibration_result& result);

}  // namespace contactuq::calibrate
