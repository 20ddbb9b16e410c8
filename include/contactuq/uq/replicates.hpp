#pragma once
// Confidence intervals from R independent replicates of a randomized quasi-Monte Carlo design
// (design.hpp): the N values are R blocks of m = N / R, block r the estimate's replicate r.
//   theta_r    the statistic (mean, sd, quantile) of block r,
//   CI         theta_hat -/+ t_{R-1, (1+c)/2} s_theta / sqrt(R),
//              s_theta^2 = 1/(R-1) sum_r (theta_r - mean_r theta_r)^2,
// with theta_hat the statistic of all N values (L'Ecuyer & Lemieux 2002, sec. 3). The replicates
// are independent and identically distributed, so the interval is honest where bootstrapping
// the (dependent) points of one QMC set is not.

#include <cstddef>
#include <span>

#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq {

// summarize(values) with the intervals from `replicates` >= 2 blocks instead of the bootstrap
// (options.bootstrap_resamples is ignored; summary::bootstrap_resamples is 0). values.size()
// must be a multiple of replicates; NaN and infinite values are left out of each block.
summary summarize_replicates(std::span<const double> values, std::size_t replicates,
                             const summary_options& options = {});

// The half-width t_{R-1, (1+c)/2} s / sqrt(R) of the t interval of the mean of R >= 2 values.
double replicate_half_width(std::span<const double> estimates, double confidence);

}  // namespace contactuq::uq
