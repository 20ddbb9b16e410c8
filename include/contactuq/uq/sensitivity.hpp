#pragma once
// Variance-based sensitivity of one scalar output to independent inputs: Saltelli pick-freeze
// designs and the first- and total-order Sobol indices estimated from them.
//
// Sobol indices of Y = f(X_1..X_d), X_i independent (Sobol 1993, 2001):
//   first order   S_i  = Var_Xi( E[Y | X_i] ) / Var(Y)
//   total order   S_Ti = E_X~i( Var_Xi[Y | X~i] ) / Var(Y)      (X~i: every input but X_i)
// S_i is the share of the variance X_i explains alone, S_Ti the share it takes part in,
// interactions included; S_i <= S_Ti, and sum S_i = 1 for an additive f.
//
// Pick-freeze design (Saltelli 2002; Saltelli et al. 2010, sec. 3): two independent N x d
// designs A and B, and for each input i the matrix AB_i, which is A with column i taken from B.
// f is evaluated at the N (d + 2) rows of A, B and AB_1..AB_d. Writing f_A, f_B, f_ABi for the
// N-vectors of outputs, y_bar for the mean and V for the variance of the 2N values [f_A; f_B],
//   V     = (1/2N) sum_j [ (f_A,j - y_bar)^2 + (f_B,j - y_bar)^2 ]
//   S_i   = (1/N)  sum_j (f_B,j - y_bar) (f_ABi,j - f_A,j) / V
//             Saltelli et al. (2010), Table 2 estimator (b)
//   S_Ti  = (1/2N) sum_j (f_A,j - f_ABi,j)^2 / V
//             Jansen (1999); Saltelli et al. (2010), Table 2 estimator (f)
// Centring f_B on y_bar leaves the expectation of S_i unchanged (E[f_ABi - f_A] = 0) and makes
// the estimate exactly invariant to a constant added to f, which keeps it accurate when the
// output sits on a large offset.
//
// Failed evaluations are NaN (infinite values are treated the same): a row j with any
// non-finite value among f_A,j, f_B,j, f_AB1,j .. f_ABd,j is dropped from every matrix and
// counted, so every index rests on the same rows. Indices are NaN when fewer than 2 rows remain
// or V = 0.
//
// Bootstrap intervals resample the N' remaining rows with replacement (all d + 2 outputs of a
// row move together) and recompute y_bar, V, S_i and S_Ti; the interval at confidence c is the
// (1-c)/2 and (1+c)/2 quantiles (Hyndman-Fan definition 7) of the B replicates (percentile
// method, Efron & Tibshirani 1993, ch. 13; Archer, Saltelli & Sobol 1997 for Sobol indices).
// Replicate b is drawn from stream (seed, bootstrap_replicate, b), as in statistics.hpp, so the
// intervals do not depend on the thread count. The bootstrap treats rows as independent, as
// they are in a Monte Carlo design; on Latin hypercube rows, whose stratification the resamples
// break, the intervals can be somewhat wider than the estimator's real scatter (conservative).
//
// References: I.M. Sobol, Math. Model. Comput. Exp. 1 (1993) 407-414; A. Saltelli, Comput. Phys.
// Commun. 145 (2002) 280-297; A. Saltelli, P. Annoni, I. Azzini, F. Campolongo, M. Ratto,
// S. Tarantola, Comput. Phys. Commun. 181 (2010) 259-270; M.J.W. Jansen, Comput. Phys.
// Commun. 117 (1999) 35-43; G.E.B. Archer, A. Saltelli, I.M. Sobol, J. Stat. Comput. Simul. 58
// (1997) 99-120.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "contactuq/uq/design.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq {

// Where each of the N (d + 2) evaluations of a pick-freeze design lives in a flat vector. The
// d + 2 evaluations of row j are contiguous:
//   index(j, slot) = j (d + 2) + slot,   slot 0: A,  slot 1: B,  slot 2 + i: AB_i  (i < d)
// so a row's outputs, which are kept or dropped together, sit side by side.
struct pick_freeze_layout {
  std::size_t rows = 0;    ///< N, >= 1
  std::size_t inputs = 0;  ///< d, >= 1

  std::size_t slots() const { return inputs + 2; }     ///< d + 2 evaluations per row
  std::size_t size() const { return rows * slots(); }  ///< N (d + 2)
  std::size_t a(std::size_t row) const { return row * slots(); }
  std::size_t b(std::size_t row) const { return row * slots() + 1; }
  // Evaluation of AB_i at this row, i < d.
  std::size_t ab(std::size_t input, std::size_t row) const { return row * slots() + 2 + input; }

  // Throws contactuq::parameter_error (fields "rows", "inputs") unless both are >= 1.
  void validate() const;
};

// A and B, and the points at which f is evaluated.
class pick_freeze_design {
 public:
  // From two N x d designs of the same shape (parameter_error otherwise). They are used as
  // given: unit designs in (0, 1) or already mapped to the inputs alike.
  pick_freeze_design(Eigen::MatrixXd a, Eigen::MatrixXd b);

  const Eigen::MatrixXd& a() const { return a_; }
  const Eigen::MatrixXd& b() const { return b_; }
  // AB_i: A with column i from B; i < d.
  Eigen::MatrixXd ab(std::size_t input) const;
  pick_freeze_layout layout() const;
  // The N (d + 2) x d matrix of every evaluation point, row layout().a(j) = A_j etc.
  Eigen::MatrixXd points() const;

 private:
  Eigen::MatrixXd a_;
  Eigen::MatrixXd b_;
};

// A and B as columns 0..d-1 and d..2d-1 of unit_design(n, 2d, options): independent Latin
// hypercubes (or Monte Carlo designs) of uniforms in (0, 1), reproducible from the seed.
pick_freeze_design make_pick_freeze_design(std::size_t n, std::size_t d,
                                           const design_options& options);

// An estimate and its bootstrap percentile interval (NaN when bootstrap_resamples = 0).
struct estimate {
  double value = 0.0;
  interval ci{0.0, 0.0};
};

struct sensitivity_options {
  double confidence = 0.95;                ///< of the bootstrap intervals, in (0, 1)
  std::size_t bootstrap_resamples = 1000;  ///< B, 0 (no intervals: NaN) or in [10, 1e7]
  std::uint64_t seed = 1;                  ///< bootstrap seed; any value

  // Throws contactuq::parameter_error naming the field and value.
  void validate() const;
};

struct sobol_result {
  std::size_t rows = 0;               ///< N rows of the design
  std::size_t used = 0;               ///< rows whose d + 2 outputs are all finite
  std::size_t dropped = 0;            ///< rows - used
  double mean = 0.0;                  ///< y_bar of [f_A; f_B]
  estimate variance;                  ///< V of [f_A; f_B] (divisor 2N')
  std::vector<estimate> first_order;  ///< S_i, one per input
  std::vector<estimate> total_order;  ///< S_Ti, one per input
  double confidence = 0.0;            ///< of every interval above
  std::size_t bootstrap_resamples = 0;
};

// Sobol indices from the N (d + 2) outputs of a pick-freeze design, in layout order;
// outputs.size() must equal layout.size() (parameter_error "outputs" otherwise).
sobol_result sobol_indices(std::span<const double> outputs, const pick_freeze_layout& layout,
                           const sensitivity_options& options = {});

}  // namespace contactuq::uq
