#pragma once
// Which inputs drive an output: Spearman rank correlation, partial rank correlation (PRCC) and
// standardized regression coefficients (SRC), with bootstrap percentile intervals (Saltelli et
// al., Sensitivity Analysis in Practice, 2004, ch. 1; Marino et al., J. Theor. Biol. 254, 2008).
//
// All three come from correlation matrices of the rows (x_1..x_d, y): Spearman from that of
// their ranks, PRCC_j = -P_jy / sqrt(P_jj P_yy) with P its inverse (the correlation of the
// residuals of rank(x_j) and rank(y) after regressing both on the other ranks), SRC from that of
// the values (beta = C_xx^-1 c_xy, R^2 = c_xy' beta; SRC is meaningful where R^2 is near 1).

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "contactuq/uq/sensitivity.hpp"

namespace contactuq::uq {

struct ranking_options {
  std::size_t bootstrap_resamples = 200;  ///< 0: no intervals (NaN); each resample re-ranks the rows
  double confidence = 0.95;
  std::uint64_t seed = 1;
};

struct input_ranking {
  std::vector<estimate> spearman, prcc, src;  ///< one per input (column of x)
  estimate r2;                                ///< of the linear regression behind SRC
  std::size_t used = 0;  ///< rows with a finite output and finite inputs
};

// x: n x d inputs, y: n outputs. Rows with a non-finite value are left out. A coefficient that
// is undefined (a constant input or output, fewer than d + 2 rows, collinear inputs) is NaN.
input_ranking rank_inputs(const Eigen::MatrixXd& x, std::span<const double> y, const ranking_options& options = {});

// Ranks 1..n of the values, ties given their average rank.
std::vector<double> ranks(std::span<const double> values);

}  // namespace contactuq::uq
