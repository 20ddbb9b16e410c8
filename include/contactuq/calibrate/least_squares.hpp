#pragma once
// The calibration method, whatever the model: weighted, optionally robust, bounded nonlinear
// least squares over the free parameters q with clustered residuals,
//
//   min over q in [low, high]   sum_i rho( r_i(q)^2 ),   r_i = w_i (y_model,i(q) - y_i)
//
// rho is the identity (least squares), Huber's or Cauchy's loss with scale c (in the units of
// the weighted residuals):
//   huber:  rho(s) = s for s <= c^2, 2 c sqrt(s) - c^2 above
//   cauchy: rho(s) = c^2 log(1 + s / c^2)
//
// Solver: Levenberg–Marquardt (Eigen's unsupported LevenbergMarquardt, a port of MINPACK's
// lmder) on r~_i = sign(r_i) sqrt(rho(r_i^2)), so that sum r~^2 is the robust cost. Bounds enter
// through MINUIT's transform q = low + (high - low) (1 + sin u) / 2, which also puts every
// parameter on a scale of 1 whatever its unit. Multi-start: the study's values and a Latin
// hypercube in the bounds; the lowest cost wins (ties: the lower start index), so the result
// does not depend on the thread count.
//
// Uncertainty: covariance from the Jacobian J = d r~ / d q at the optimum (central differences),
//   C = s^2 (J^T J)^-1,  s^2 = sum r~^2 / (N - P),
// intervals value +- t_{(1+c)/2, N-P} sqrt(C_kk); with G >= 3 clusters of residuals (an
// insertion, a measured curve, a data row) the cluster-robust sandwich covariance (Liang &
// Zeger 1986; CR1 factor, Cameron & Miller 2015, J. Human Resources 50(2), eq. 12)
//   C_cl = G/(G-1) (N-1)/(N-P) (J^T J)^-1 [sum_g (J_g^T r~_g)(J_g^T r~_g)^T] (J^T J)^-1
// with intervals value +- t_{(1+c)/2, G-1} sqrt(C_cl,kk); and optionally a bootstrap over
// clusters (whole clusters resampled with replacement and refitted; percentile intervals).
//
// A concrete calibration (fit.hpp: receptacle–pin insertion curves; calibration.hpp: any
// registered model) supplies a residual_problem and calls solve(), then adds its own
// diagnostics.

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/study/executor.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::calibrate {

// The fit could not produce an estimate: the best fit lies on a bound, no start could be
// evaluated, or the data cannot determine a parameter.
class fit_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A model input the fit adjusts (role "calibrated").
struct free_parameter {
  std::string name;
  double low = 0.0;             ///< lower bound [SI], finite
  double high = 0.0;            ///< upper bound [SI], finite, > low
  std::optional<double> start;  ///< first start [SI], in [low, high]; default: the model's value
};

enum class loss_kind { squared, huber, cauchy };
std::string_view to_string(loss_kind k);

struct fit_options {
  std::vector<free_parameter> parameters;  ///< at least one, names unique
  // Per-insertion displacement offsets [m], bounds of each, low < 0 < high; none: no offsets
  // (insertion-curve fits only, fit.hpp).
  std::optional<std::pair<double, double>> offsets;
  int starts = 8;          ///< Levenberg–Marquardt starts, in [1, 1000]
  std::uint64_t seed = 1;  ///< Latin hypercube of the starts and bootstrap draws
  loss_kind loss = loss_kind::squared;
  double loss_scale = 0.0;     ///< c [N for insertion curves, else weighted units], > 0 for huber and cauchy
  double confidence = 0.95;    ///< level of the intervals, in (0, 1)
  int bootstrap = 0;           ///< replicates over clusters, 0 (off) or in [10, 10000]
  int max_evaluations = 2000;  ///< model sweeps per start (Jacobian columns count), >= 10
  double tolerance = 1e-12;    ///< relative step and cost tolerance of LM, in [1e-15, 1e-2]
  // Finite-difference step of LM's Jacobian in the transformed u, h = step max(1, |u|); the
  // covariance's central differences use 10 step (high - low). Raise it for models whose
  // outputs carry integration noise (ODE models with adaptive steps). In [1e-12, 1e-2].
  double difference_step = 1e-7;
  bool parallel = true;  ///< run starts and replicates on TBB threads
  // Where starts and replicates run: nullptr, this process; else the executor's map() (every
  // process of an MPI job runs the same calibration, each a share of these fits), started.
  study::executor* executor = nullptr;

  void validate() const;  // throws parameter_error naming the field
};

// One fitted quantity, in SI.
struct parameter_estimate {
  std::string name;      ///< model input name, or "offset[<insertion>]"
  units::dimension dim;  ///< its dimension
  std::string unit;      ///< SI unit ("N*m/rad", "", "m")
  double value = 0.0;
  double standard_error = 0.0;   ///< sqrt(C_kk)
  double low = 0.0, high = 0.0;  ///< Jacobian interval at the confidence level
  double bound_low = 0.0, bound_high = 0.0;
  double start = 0.0;  ///< the study's start value
  // Cluster-robust (sandwich) standard error and interval, t with G - 1 degrees of freedom;
  // empty with fewer than 3 clusters.
  std::optional<double> clustered_se, clustered_low, clustered_high;
  std::optional<double> bootstrap_sd, bootstrap_low, bootstrap_high;  ///< percentile interval
  bool derived = false;  ///< the last offset, minus the sum of the others
};

// One Levenberg–Marquardt run.
struct start_record {
  std::vector<double> start;  ///< independent parameters [SI]
  std::vector<double> end;
  double cost = 0.0;    ///< sum r~^2 (infinite when the model failed)
  int evaluations = 0;  ///< model sweeps
  std::string status;   ///< why LM stopped
};

// What every calibration reports.
struct least_squares_result {
  std::vector<parameter_estimate> parameters;  ///< free parameters, then any derived quantities
  Eigen::MatrixXd covariance;                  ///< [SI^2], over the independent parameters
  Eigen::MatrixXd clustered_covariance;        ///< cluster-robust; empty below 3 clusters
  Eigen::MatrixXd correlation;
  double confidence = 0.95;
  double cost = 0.0;       ///< sum r~^2 at the optimum
  double rms = 0.0;        ///< sqrt(mean r^2) over all points, unweighted (insertion fits) [N]
  double sigma = 0.0;      ///< s = sqrt(cost / (N - P))
  std::size_t points = 0;  ///< N (residuals with weight > 0)
  std::size_t dof = 0;     ///< N - P
  std::size_t clusters = 0;  ///< G
  std::vector<start_record> starts;
  std::size_t starts_at_best = 0;  ///< starts that ended within 1e-6 of the best cost
  Eigen::MatrixXd bootstrap;       ///< replicate x independent parameter [SI] (empty if off)
  int bootstrap_failed = 0;        ///< replicates whose refit failed (left out)
  int evaluations = 0;             ///< model sweeps, all starts and replicates
  double seconds = 0.0;            ///< wall time of the fit
};

// The least-squares problem over the independent parameters q as the method sees it.
class residual_problem {
 public:
  virtual ~residual_problem() = default;
  std::size_t size() const noexcept { return low_.size(); }
  std::size_t residuals() const noexcept { return cluster_.size(); }
  double low(std::size_t k) const { return low_[k]; }
  double high(std::size_t k) const { return high_[k]; }
  // Cluster of each residual (0 .. clusters() - 1), e.g. the insertion of a measured point.
  const std::vector<std::size_t>& cluster() const noexcept { return cluster_; }
  std::size_t clusters() const noexcept { return clusters_; }
  // r~ at q; false (and penalty residuals) where the model has no solution.
  virtual bool residual(const Eigen::VectorXd& q, Eigen::VectorXd& r) const = 0;
  // The same problem on the data of clusters picks[0], picks[1], ... (with repetition, each a
  // cluster of its own): a bootstrap replicate.
  virtual std::unique_ptr<residual_problem> resample(const std::vector<std::size_t>& picks) const = 0;

  // MINUIT's bound transform, q = low + (high - low) (1 + sin u) / 2, and its inverse.
  Eigen::VectorXd to_q(const Eigen::VectorXd& u) const;
  Eigen::VectorXd to_u(const Eigen::VectorXd& q) const;

 protected:
  std::vector<double> low_, high_;
  std::vector<std::size_t> cluster_;
  std::size_t clusters_ = 0;
};

// r~ = sign(r) sqrt(rho(r^2)), so that sum r~^2 is the robust cost.
double robust_residual(double r, loss_kind loss, double c);

// Names and dimensions of the independent parameters, for messages and estimates.
struct parameter_labels {
  std::vector<std::string> names;  ///< one per independent parameter
  std::vector<units::dimension> dims;
  std::string no_solution_hint;  ///< appended when no start could be evaluated
  double cost_scale = 0.0;       ///< sum w y^2 of the data: costs 1e-20 of it apart are equal
};

// The method's steps, in order; solve() runs them all.
namespace steps {
// Starts: `first` nudged inside the bounds, then options.starts - 1 Latin hypercube points.
std::vector<Eigen::VectorXd> starts(const residual_problem& pr, const Eigen::VectorXd& first,
                                    const fit_options& o);
start_record levenberg_marquardt(const residual_problem& pr, const Eigen::VectorXd& q0,
                                 const fit_options& o);
// Every start, in parallel; the index of the best (lowest cost, ties to the lower index).
std::size_t multi_start(const residual_problem& pr, const std::vector<Eigen::VectorXd>& starts,
                        const fit_options& o, least_squares_result& res);
// Throws fit_error when q sits on a bound.
void require_interior(const residual_problem& pr, const Eigen::VectorXd& q,
                      const parameter_labels& labels);
// Central-difference Jacobian of r~ with respect to q.
Eigen::MatrixXd jacobian(const residual_problem& pr, const Eigen::VectorXd& q, double step);
// Covariance and correlation from J and r~; throws fit_error for a rank-deficient J.
void covariance(const Eigen::MatrixXd& J, const Eigen::VectorXd& r,
                const parameter_labels& labels, least_squares_result& res);
void clustered_covariance(const residual_problem& pr, const Eigen::MatrixXd& J,
                          const Eigen::VectorXd& r, least_squares_result& res);
// Refits of resampled clusters from q.
void bootstrap(const residual_problem& pr, const Eigen::VectorXd& q, const fit_options& o,
               least_squares_result& res);
}  // namespace steps

// Runs every step from `first` and adds the estimates of the free parameters (the first
// o.parameters.size() of q); returns the optimum q. `points`: residuals with weight > 0 (N).
Eigen::VectorXd solve(const residual_problem& pr, const Eigen::VectorXd& first,
                      const fit_options& o, const parameter_labels& labels, std::size_t points,
                      least_squares_result& res);

// The estimate of c^T q (a parameter: c a unit vector; a derived quantity otherwise) from a
// solved result: Jacobian, clustered and bootstrap standard errors and intervals.
parameter_estimate linear_estimate(const least_squares_result& res, std::string name,
                                   units::dimension dim, double value, const Eigen::VectorXd& c,
                                   double bound_low, double bound_high, double start,
                                   bool derived);

}  // namespace contactuq::calibrate
