#pragma once
// Writing curve-study results: CSV (one row per stroke point) or HDF5.

#include <filesystem>
#include <vector>

#include "contactuq/study/curve_study.hpp"

namespace contactuq::study {

// CSV columns: [sweep parameter,] x, then per arm group g (one arm):
//   g<g>_Fx g<g>_Fy g<g>_Fn g<g>_Ft g<g>_theta g<g>_alpha g<g>_Lmn g<g>_Lmt
// then Fx_total Fy_total (all arms). Headers carry units, e.g. "x [in]". alpha, Lmn and Lmt
// are empty cells where the arm is not over the pin (no contact point exists).
void write_curve_csv(const std::filesystem::path& path, const curve_study_options& options,
                     const std::vector<curve_case>& cases);

// HDF5 layout (k = sweep case, n = stroke points; every dataset has a "units" attribute):
//   /study                 the study file verbatim (attributes: file, title, contactuq_version)
//   /x, /v_norm            [n] displacement and normalised velocity
//   /Fx_total, /Fy_total   [k x n]
//   /groups/g<g>/<field>   [k x n] for Fx Fy Fn Ft theta alpha Lmn Lmt (one arm; NaN where
//                          the arm is not over the pin); attributes d0, direction, count
//   /groups/g<g>/x_c, x_cr [k], [k x 4] first-contact and critical displacements (NaN: never)
//   /summary/peak_insertion, peak_insertion_x, peak_withdrawal, peak_withdrawal_x  [k]
//   /sweep                 [k] swept values (attribute parameter), only with a sweep
void write_curve_hdf5(const std::filesystem::path& path, const io::study_document& study,
                      const curve_study_options& options, const std::vector<curve_case>& cases);

}  // namespace contactuq::study
