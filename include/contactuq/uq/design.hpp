#pragma once
// Sampling designs: N x d matrices of uniforms u_ij in the open interval (0, 1), one row per
// sample, one column per uncertain input, then mapped through each input's quantile function,
// x_ij = F_j^-1(u_ij).
//
//   Monte Carlo:       u_ij independent uniforms; row i drawn from its own stream
//                      (seed, monte_carlo_row, i), so any row can be regenerated alone.
//   Latin hypercube:   u_ij = (pi_j(i) + v_ij)/N with pi_j a random permutation of 0..N-1 per
//                      column (McKay, Beckman & Conover 1979): every stratum [k/N, (k+1)/N) of
//                      every column holds exactly one sample. v_ij ~ U(0, 1) ("random") or
//                      v_ij = 1/2 ("centred", the stratum midpoints).
//   Maximin LHS:       a Latin hypercube improved by swapping two entries of one column (which
//                      keeps it a Latin hypercube), accepting a swap when it lowers the
//                      Morris & Mitchell (1995) criterion over the pairs it changes,
//                        phi_p = sum_{pairs} d_ik^-p,   d_ik Euclidean distance of rows i, k,
//                      and the closest of those pairs is no closer than before. The smallest
//                      pairwise distance therefore never decreases from the plain Latin
//                      hypercube with the same seed.
//
// Reproducible by construction: the matrix depends only on (seed, kind, N, d, options), never
// on threads or timing; column j of a Latin hypercube does not depend on d, so adding an input
// leaves the other columns as they were.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "contactuq/uq/distribution.hpp"

namespace contactuq::uq {

enum class design_kind {
  monte_carlo,
  latin_hypercube,
  maximin_latin_hypercube,
};

// Where a Latin hypercube puts its point inside each stratum.
enum class stratum_position {
  random,   ///< uniformly at random within the stratum
  centred,  ///< at the stratum midpoint (k + 1/2)/N
};

struct design_options {
  design_kind kind = design_kind::latin_hypercube;
  std::uint64_t seed = 1;                                ///< study seed; any value
  stratum_position position = stratum_position::random;  ///< Latin hypercubes only
  // Swaps tried by the maximin optimiser, >= 0 and <= 1e9. Each costs O(N d), so the
  // optimiser is meant for the small designs where space filling matters (N up to a few
  // thousand).
  std::size_t maximin_iterations = 10000;
  // Exponent p of the Morris-Mitchell criterion, in [1, 500]; large p approaches pure maximin.
  double maximin_exponent = 50.0;

  // Throws contactuq::parameter_error naming the field and value.
  void validate() const;
};

// "monte_carlo", "latin_hypercube", "maximin_latin_hypercube".
std::string to_string(design_kind kind);
// Inverse of to_string; throws parameter_error (field "design") listing the known designs.
design_kind parse_design_kind(std::string_view name);
// "random", "centred"; parse also accepts "centered".
std::string to_string(stratum_position position);
stratum_position parse_stratum_position(std::string_view name);

// The N x d design of uniforms in (0, 1). n >= 1, d >= 1 (parameter_error otherwise).
Eigen::MatrixXd unit_design(std::size_t n, std::size_t d, const design_options& options);

// Row i of the Monte Carlo design with this seed and d columns: equal, bit for bit, to row i of
// unit_design(n, d, {kind = monte_carlo, seed}) for every n > i.
Eigen::RowVectorXd monte_carlo_row(std::uint64_t seed, std::size_t i, std::size_t d);

// x_ij = F_j^-1(u_ij): maps a design of uniforms through the inputs' quantile functions.
// inputs.size() must equal u.cols().
Eigen::MatrixXd map_to_inputs(const Eigen::MatrixXd& u, std::span<const distribution> inputs);

// Smallest Euclidean distance between two rows (+inf for fewer than two rows). O(N^2 d).
double min_pairwise_distance(const Eigen::MatrixXd& points);

}  // namespace contactuq::uq
