#pragma once
// Optimisers of robust problems (robust_objective.hpp), and the record of every design they
// evaluate.
//
// Every algorithm works on the design scaled to the unit box, u_k = (x_k - low_k) /
// (high_k - low_k), so that tolerances and finite-difference steps are fractions of each
// variable's range.
//   global (pagmo2): sga, de, cmaes (one objective), nsga2 (two objectives). The initial
//     population (the start design and population - 1 random designs) and, for nsga2, every
//     generation are evaluated as one batch in parallel. These algorithms do not handle
//     constraints; with constraints they see, per objective, Deb's feasibility ordering as
//     one number:
//       phi(x) = z / (1 + |z|),  z = f(x) / |f(start)|   when V(x) <= constraint_tolerance,
//       phi(x) = 2 + V(x)                                 otherwise,
//     so any feasible design beats any infeasible one and infeasible designs rank by their
//     violation V. sga, de and cmaes rank and compare fitness only, so this ordering is all
//     they use.
//   local (NLopt): slsqp, mma, lbfgs (gradient-based, with central finite differences of
//     the CRN objective, step gradient_step of each range, one-sided at a bound; the 2d
//     shifted designs are evaluated as one batch in parallel), cobyla and bobyqa
//     (derivative-free). Constraints go to NLopt as g_k(x) <= 0 (normalised, see
//     robust_objective.hpp); lbfgs and bobyqa, which only know bounds, then run inside
//     NLopt's augmented Lagrangian (AUGLAG).
//   hybrid: the global algorithm `global`, then the local algorithm `local` from its best
//     design.
// The best design of a run is chosen from everything it evaluated: the feasible design with
// the best first objective, or, when none is feasible, the design of least violation, and the
// run is then reported as infeasible. For two objectives, the feasible non-dominated designs
// form the Pareto front.
//
// A design where a sample's model throws is infeasible (V = inf); the global algorithms see
// phi = 2 + 1e150, the local ones objective and constraints 1e150.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/opt/robust_objective.hpp"
#include "contactuq/study/executor.hpp"

namespace contactuq::opt {

enum class algorithm { sga, de, cmaes, nsga2, slsqp, mma, lbfgs, cobyla, bobyqa, hybrid };
std::string_view to_string(algorithm a);
// Inverse of to_string; throws parameter_error (field "algorithm") listing the names.
algorithm parse_algorithm(std::string_view name);
bool is_global(algorithm a);      ///< sga, de, cmaes, nsga2
bool uses_gradient(algorithm a);  ///< slsqp, mma, lbfgs

// How a design is scored over several models (epistemic.hpp).
enum class model_aggregate {
  worst,  ///< max_j regret_j(x): the min-max regret design
  mean,   ///< mean_j regret_j(x)
};
std::string_view to_string(model_aggregate a);

struct optimizer_options {
  algorithm method = algorithm::hybrid;
  algorithm global = algorithm::de;    ///< hybrid's global stage: sga, de or cmaes
  algorithm local = algorithm::slsqp;  ///< hybrid's polish: slsqp, mma, lbfgs, cobyla or bobyqa
  std::uint64_t seed = 1;              ///< random seed of the global algorithms, < 2^32
  std::size_t population = 20;    ///< global: designs per generation, >= 5 (nsga2: a multiple of 4)
  std::size_t generations = 40;   ///< global: generations, >= 1
  std::size_t evaluations = 200;  ///< local: NLopt objective calls (a gradient counts once), >= 1
  double xtol = 1e-6;           ///< local: stop when a step is below this [fraction of range], >= 0
  double ftol = 1e-10;          ///< local: stop on this relative objective change, >= 0
  double gradient_step = 1e-6;  ///< central-difference step [fraction of range], in (0, 0.1]
  double constraint_tolerance = 1e-6;  ///< feasible when V(x) <= this, in [0, 1)
  model_aggregate over_models = model_aggregate::worst;

  // Throws parameter_error naming the field and value.
  void validate() const;
};

// Where an evaluation was made.
enum class phase : std::int32_t {
  global = 0,         ///< global stage of one model's optimisation
  local = 1,          ///< local stage (or a local method alone) of one model's optimisation
  cross = 2,          ///< one model's optimum evaluated under a model (regret matrix)
  models_global = 3,  ///< global stage of the design over all models
  models_local = 4,   ///< local stage of the design over all models
};
std::string_view to_string(phase p);
const std::vector<std::string>& phase_names();  ///< indexed by code

// One evaluated design.
struct evaluation_record {
  std::size_t model = 0;  ///< index of the model it was evaluated under
  phase stage = phase::global;
  std::vector<double> x;  ///< the design [SI]
  robust_value value;
};

// Thrown by history::evaluate when asked to stop (history::stop, history::max_new).
class interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Batches of designs evaluated by a study::executor (the ranks of an MPI job), with
// robust_problem::evaluate's contract: the same values, bit for bit. A batch of K designs under
// model (epistemic case) c is an ensemble of the study: its K x N rows are the N CRN samples of
// each design with the design columns set, a plan of given rows (study::sample_plan::given)
// that the executor sends to the processes evaluating them, as the rows of case c of the study
// read with N K samples. Each design's measures are then reduced here, in sample order, by
// robust_problem::value_of, from the outputs and failures the blocks bring back. Not thread
// safe: the optimisers call it from one thread.
class design_ensembles {
 public:
  // `doc` is the optimisation study's document and `study` its base as read_optimization_study
  // read it (the other processes read it again); `threads` per process (0: all cores). The
  // executor, doc and study must outlive this.
  design_ensembles(study::executor& executor, const io::study_document& doc, const study::ensemble_study& study,
                   std::size_t threads);
  std::size_t processes() const;
  // The values of xs under `problem`, made by make_robust_problem from the study for the model
  // of case `model` (opt::optimization_models' order).
  std::vector<robust_value> evaluate(const robust_problem& problem, std::size_t model,
                                     const std::vector<std::vector<double>>& xs);

 private:
  study::executor& executor_;
  const io::study_document& doc_;
  study::ensemble_study batch_;  // the study; its samples are those of the batch run
  io::sample_matrix crn_;        // the N CRN samples in the study's columns (one case's rows)
  std::vector<std::size_t> design_;  // the study's columns of the design variables
  std::size_t threads_;
};

// Every design evaluated, in order. A history made from the records of an earlier,
// interrupted run replays them: while the designs asked for are those recorded (same model,
// phase and bits of x), their recorded values are returned instead of evaluating the model
// again. The optimisers are deterministic, so a rerun of the same study asks for the same
// designs in the same order and goes on, after the replayed ones, exactly as the uninterrupted
// run would have. Not thread safe: the optimisers call it from one thread.
class history {
 public:
  history() = default;
  explicit history(std::vector<evaluation_record> replay) : replay_(std::move(replay)) {}

  // Called with each batch of records as they join the history, replayed ones included.
  std::function<void(std::span<const evaluation_record>)> on_records;
  // When set and true, the next batch that needs evaluations throws interrupted.
  const std::atomic<bool>* stop = nullptr;
  // Throws interrupted before a batch that would take the number of new evaluations above this.
  std::size_t max_new = std::numeric_limits<std::size_t>::max();
  // Where new designs are evaluated: nullptr, in this process (TBB); else as ensembles on an
  // executor.
  design_ensembles* executor = nullptr;

  const std::vector<evaluation_record>& records() const noexcept { return records_; }
  std::size_t replayed() const noexcept { return replayed_; }  ///< records taken from the replay
  std::size_t computed() const noexcept { return records_.size() - replayed_; }
  // Whether a design asked for differed from the next record to replay (the replay then ended).
  bool diverged() const noexcept { return diverged_; }

  // The values of designs xs under `problem` (model index `model`), in order; the designs not
  // replayed are evaluated in parallel (one after another when the model is not thread safe).
  std::vector<robust_value> evaluate(const robust_problem& problem, std::size_t model, phase stage,
                                     const std::vector<std::vector<double>>& xs);

 private:
  std::vector<evaluation_record> replay_;
  std::size_t next_ = 0;  // next record of replay_ to match
  std::vector<evaluation_record> records_;
  std::size_t replayed_ = 0;
  bool diverged_ = false;
};

struct optimization_result {
  algorithm method = algorithm::hybrid;
  bool feasible = false;        ///< a feasible design was found
  std::vector<double> x;        ///< the best design [SI]
  robust_value value;           ///< its measures
  std::size_t evaluations = 0;  ///< designs this run evaluated (records added to the history)
  std::string status;           ///< "optimal" (best feasible found) or "infeasible"
  std::string message;          ///< what stopped the algorithm(s)
  // Two objectives: the feasible non-dominated designs evaluated, by increasing first objective.
  std::vector<std::vector<double>> pareto_x;
  std::vector<std::vector<double>> pareto_objectives;
  // Convergence diagnostics. The best design was found at evaluation last_improvement (1-based,
  // of this run's); `evaluations - last_improvement` more brought nothing better.
  std::size_t last_improvement = 0;
  // The local stage stopped on its step or objective tolerance (not on its budget), and no
  // other model's optimum was better under this model (epistemic.hpp). A global algorithm
  // alone has no convergence test and is reported as not converged.
  bool converged = false;
  std::string convergence;  ///< why (not) converged, in words
  // Constraints active at the best design: normalised g_k in [-active_tolerance, tolerance].
  std::vector<std::size_t> active_constraints;
};

// |g_k| below which a met constraint counts as active (binding) at an optimum.
inline constexpr double active_tolerance = 1e-3;

// Optimises `problem` from `start` (dimension() values [SI] within the bounds), recording every
// evaluation in `log` under model index `model` (phases global and local). Throws
// parameter_error for bad options or a bad start, interrupted when the history says so.
optimization_result optimize(const robust_problem& problem, std::span<const double> start,
                             const optimizer_options& options, history& log, std::size_t model = 0);

namespace detail {
// A problem on the unit box as the algorithms see it; used by optimize and epistemic.cpp.
struct box_point {
  std::vector<double> objectives;   ///< to minimise (maximised measures negated); NaN when failed
  std::vector<double> constraints;  ///< normalised g_k, <= 0 when met; NaN when failed
  double violation = 0.0;           ///< V >= 0, inf when failed
};
struct box_problem {
  std::size_t dimension = 0;
  std::size_t objectives = 1;
  std::size_t constraints = 0;
  std::function<std::vector<box_point>(const std::vector<std::vector<double>>& u, bool local_stage)>
      evaluate;
};
// Runs options.method (or hybrid's stages) on `problem` from u0; returns the index of the best
// point among `all` (every point evaluated, in order), and a message.
struct box_run {
  std::vector<std::vector<double>> u;
  std::vector<box_point> points;
  std::string message;
};
box_run run_box(const box_problem& problem, std::span<const double> u0,
                const optimizer_options& options);
// Index of the best point (Deb's rule on the first objective); points non-empty.
std::size_t best_point(const std::vector<box_point>& points, double tolerance);
}  // namespace detail

}  // namespace contactuq::opt
