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

}  // namespace contactuq::study
