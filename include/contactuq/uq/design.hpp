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
//   Sobol' (RQMC):     u_ij = S_j(x_j(i)) with x_j(i) = XOR_k i_k v_jk the i-th point of the
//                      Sobol' sequence (Joe & Kuo 2008 direction numbers v_jk, 32 bits) and S_j
//                      a nested uniform scramble (Owen 1995): bit k of x is flipped by a random
//                      bit drawn for (column, k, bits above k), and the digits below the 32nd
//                      are uniform. Every point is U(0, 1)^d and the set keeps its (t, m, s)-net
//                      structure, so averages converge near O(N^-1 (log N)^d) instead of N^-1/2.
//   Halton (RQMC):     u_ij = sum_l pi_jl(a_l(i)) b_j^-(l+1), a_l(i) the base-b_j digits of i, b_j
//                      the j-th prime, pi_jl(a) = (alpha a + beta) mod b_j a random affine digit
//                      permutation drawn for (column, l, digits below l) (nested linear
//                      scrambling, Matousek 1998), again every point U(0, 1)^d.
//   Replicates:        a QMC design of N = R m rows is R independent scrambles of the same m
//                      points (rows r m .. r m + m - 1 for replicate r, stream (seed, qmc_scramble,
//                      r)); the spread of the R replicate estimates gives an honest confidence
//                      interval (uq/replicates.hpp), which bootstrapping QMC points does not.
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
  sobol,   ///< scrambled Sobol' sequence (randomized QMC)
  halton,  ///< scrambled Halton sequence (randomized QMC)
};

// True for the randomized quasi-Monte Carlo kinds (sobol, halton).
bool is_quasi_monte_carlo(design_kind kind) noexcept;

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
  // R independent scrambles of a QMC design, >= 1 and <= 1e6; the design's N must be a multiple
  // of R. Monte Carlo and Latin hypercubes take 1 only.
  std::size_t replicates = 1;

  // Throws contactuq::parameter_error naming the field and value.
  void validate() const;
};

// "monte_carlo", "latin_hypercube", "maximin_latin_hypercube", "sobol", "halton".
std::string to_string(design_kind kind);
// Inverse of to_string; throws parameter_error (field "design") listing the known designs.
design_kind parse_design_kind(std::string_view name);
// "random", "centred"; parse also accepts "centered".
std::string to_string(stratum_position position);
stratum_position parse_stratum_position(std::string_view name);

// The N x d design of uniforms in (0, 1). n >= 1, d >= 1 (parameter_error otherwise).
Eigen::MatrixXd unit_design(std::size_t n, std::size_t d, const design_options& options);

// Whether rows of the design can be made alone (rows_of_unit_design): Monte Carlo rows and
// scrambled Sobol' and Halton points can; a Latin hypercube is a permutation of the whole column.
bool has_row_access(design_kind kind) noexcept;

// Rows [first, first + count) of unit_design(n, d, options), bit for bit, without making the
// others; for designs with has_row_access only (parameter_error otherwise). first + count <= n.
Eigen::MatrixXd rows_of_unit_design(std::size_t n, std::size_t d, const design_options& options, std::size_t first,
                                    std::size_t count);

// Row i of the Monte Carlo design with this seed and d columns: equal, bit for bit, to row i of
// unit_design(n, d, {kind = monte_carlo, seed}) for every n > i.
Eigen::RowVectorXd monte_carlo_row(std::uint64_t seed, std::size_t i, std::size_t d);

// x_ij = F_j^-1(u_ij): maps a design of uniforms through the inputs' quantile functions.
// inputs.size() must equal u.cols().
Eigen::MatrixXd map_to_inputs(const Eigen::MatrixXd& u, std::span<const distribution> inputs);

// Column j of the nested-scrambled Sobol' design: rows i in [first, first + count) of the
// scramble `key` (any 64-bit word), u in (0, 1). j < 3667 (the Joe-Kuo table Boost ships).
void scrambled_sobol_column(std::span<double> out, std::size_t first, std::size_t j, std::uint64_t key);
// The same for the scrambled Halton design in base prime(j).
void scrambled_halton_column(std::span<double> out, std::size_t first, std::size_t j, std::uint64_t key);

// Centred L2 discrepancy of points in [0, 1]^d (Hickernell 1998), O(N^2 d):
//   CD^2 = (13/12)^d - 2/N sum_i prod_j (1 + |z_ij|/2 - z_ij^2/2)
//          + 1/N^2 sum_ik prod_j (1 + |z_ij|/2 + |z_kj|/2 - |x_ij - x_kj|/2),  z = x - 1/2.
double centred_l2_discrepancy(const Eigen::MatrixXd& points);

// Smallest Euclidean distance between two rows (+inf for fewer than two rows). O(N^2 d).
double min_pairwise_distance(const Eigen::MatrixXd& points);

}  // namespace contactuq::uq
