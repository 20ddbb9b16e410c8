#pragma once
// Writing fit results: HDF5 (format "contactuq-fit", docs/calibration.md gives the layout), CSV
// of the fitted curves, and a model curve at the fitted parameters for plots.

#include <filesystem>
#include <vector>

#include "contactuq/calibrate/fit.hpp"
#include "contactuq/calibrate/fit_study.hpp"
#include "contactuq/io/study_file.hpp"

namespace contactuq::calibrate {

// Fx_total at the fitted parameters (no offset) on `points` equally spaced x over the data's
// displacement range, forward and reverse. NaN where the model has no solution.
struct model_curve {
  std::vector<double> x;        ///< [m]
  std::vector<double> forward;  ///< [N]
  std::vector<double> reverse;  ///< [N]
};
model_curve fitted_curve(const fit_result& result, const insertion_data& data, double v_norm,
                         int points = 400);

// One row per measured point: insertion, direction, x, F_measured, F_fitted, residual, in the
// study's report units (headers carry them).
void write_fit_csv(const std::filesystem::path& path, const fit_study& study,
                   const insertion_data& data, const fit_result& result);

// Root attributes format = "contactuq-fit", format_version = 1; values in SI with a "units"
// attribute on every dataset, and the report units as root attributes.
void write_fit_hdf5(const std::filesystem::path& path, const io::study_document& doc,
                    const fit_study& study, const insertion_data& data, const fit_result& result);

}  // namespace contactuq::calibrate
