#pragma once
// Study files of the calibration: `contactuq fit STUDY.toml` and `contactuq synthesize SPEC.toml`
// (docs/calibration.md describes both).
//
//   fit:   [model] (a receptacle_pin table, as for `curve`, without a stroke; free parameters
//          hold their first start), [data] files = [...], force_convention, v_norm,
//          [fit] starts, seed, loss, loss_scale, confidence, bootstrap, max_evaluations,
//          tolerance, offsets = { low, high }, [fit.parameters.<input>] low, high, start;
//          [output] units.
//   synthesize: [model] with the generating values, [synthetic] (synthetic_options with units),
//          disclose, [output] units, file.
//
// Paths in a study are relative to the study file's folder. Every error names file, line, key.

#include <filesystem>
#include <string>
#include <vector>

#include "contactuq/calibrate/fit.hpp"
#include "contactuq/calibrate/synthetic.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/study/curve_study.hpp"

namespace contactuq::calibrate {

struct fit_study {
  std::string title;
  insertion_model model;
  std::vector<std::filesystem::path> files;  ///< data files, resolved against the study's folder
  force_convention convention = force_convention::on_receptacle;
  fit_options options;
  study::output_units units;  ///< reports; length and force default to the first data file's
  bool units_given = false;   ///< [output] units set them
};

// Reads and validates a fit study; bounds are checked against the model (a bound the model
// rejects, e.g. K low = 0, is an error at that key).
fit_study read_fit_study(const io::study_document& doc);

// Reads the study's data files; sets the report units from the first file unless the study gave
// them. Throws data_error.
insertion_data load_fit_data(fit_study& study);

struct synthetic_study {
  std::string title;
  contact::receptacle_pin_params params;
  std::vector<contact::arm_group> groups;
  synthetic_options options;
  bool disclose = true;          ///< write the generating values into the file
  study::output_units units;     ///< units of the CSV ("m", "N" by default)
  std::filesystem::path output;  ///< [output] file, resolved; empty when not given
  int digits = 0;                ///< [output] digits: significant digits written, 0: all
};

synthetic_study read_synthetic_study(const io::study_document& doc);

// The '#' lines of a synthetic data file: that it is synthetic, the command that made it and,
// when disclosed, the generating values and what each insertion drew.
std::vector<std::string> describe_synthetic(const synthetic_study& study,
                                            const synthetic_dataset& data,
                                            const std::string& spec_path);

}  // namespace contactuq::calibrate
