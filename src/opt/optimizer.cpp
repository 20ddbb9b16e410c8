#include "contactuq/opt/optimizer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <nlopt.hpp>
#include <pagmo/algorithm.hpp>
#include <pagmo/algorithms/cmaes.hpp>
#include <pagmo/algorithms/de.hpp>
#include <pagmo/algorithms/nsga2.hpp>
#include <pagmo/algorithms/sga.hpp>
#include <pagmo/batch_evaluators/member_bfe.hpp>
#include <pagmo/bfe.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>

#include "contactuq/error.hpp"

namespace contactuq::opt {

namespace {

constexpr algorithm all_algorithms[] = {
    algorithm::sga, algorithm::de,    algorithm::cmaes,  algorithm::nsga2,  algorithm::slsqp,
    algorithm::mma, algorithm::lbfgs, algorithm::cobyla, algorithm::bobyqa, algorithm::hybrid};
// What the algorithms see of a design whose model failed.
constexpr double failed_value = 1e150;

}  // namespace

std::string_view to_string(algorithm a) {
  switch (a) {
    case algorithm::sga:
      return "sga";
    case algorithm::de:
      return "de";
    case algorithm::cmaes:
      return "cmaes";
    case algorithm::nsga2:
      return "nsga2";
    case algorithm::slsqp:
      return "slsqp";
    case algorithm::mma:
      return "mma";
    case algorithm::lbfgs:
      return "lbfgs";
    case algorithm::cobyla:
      return "cobyla";
    case algorithm::bobyqa:
      return "bobyqa";
    case algorithm::hybrid:
      return "hybrid";
  }
  return "?";
}

algorithm parse_algorithm(std::string_view name) {
  std::vector<std::string_view> names;
  for (const auto a : all_algorithms) {
    if (to_string(a) == name) return a;
    names.push_back(to_string(a));
  }
  throw parameter_error("algorithm", fmt::format("unknown algorithm '{}': expected one of {}", name,
                                                 fmt::join(names, ", ")));
}

bool is_global(algorithm a) {
  return a == algorithm::sga || a == algorithm::de || a == algorithm::cmaes ||
         a == algorithm::nsga2;
}
bool uses_gradient(algorithm a) {
  return a == algorithm::slsqp || a == algorithm::mma || a == algorithm::lbfgs;
}

std::string_view to_string(model_aggregate a) {
  return a == model_aggregate::worst ? "worst" : "mean";
}

std::string_view to_string(phase p) { return phase_names().at(static_cast<std::size_t>(p)); }

const std::vector<std::string>& phase_names() {
  static const std::vector<std::string> names{"global", "local", "cross", "models_global",
                                              "models_local"};
  return names;
}

void optimizer_options::validate() const {
  const auto local_method = [](algorithm a) { return !is_global(a) && a != algorithm::hybrid; };
  if (method == algorithm::hybrid) {
    if (!is_global(global) || global == algorithm::nsga2)
      throw parameter_error(
          "global", fmt::format("global = {}: the global stage of hybrid is sga, de or cmaes",
                                to_string(global)));
    if (!local_method(local))
      throw parameter_error(
          "local",
          fmt::format("local = {}: the polish of hybrid is slsqp, mma, lbfgs, cobyla or bobyqa",
                      to_string(local)));
  }
  require(seed < (std::uint64_t{1} << 32), "seed", static_cast<double>(seed), "", "< 2^32");
  require(population >= 5 && population <= 100000, "population", static_cast<double>(population),
          "", "in [5, 100000]");
  if (method == algorithm::nsga2)
    require(population % 4 == 0, "population", static_cast<double>(population), "",
            "a multiple of 4 for nsga2");
  // Each generation evaluates the whole population (in a robust study, each design over all its
  // samples). The global searches here settle in 10^1-10^3 generations; 10^4 is generous.
  require(generations >= 1 && generations <= 10000, "generations",
          static_cast<double>(generations), "", "in [1, 10000]");
  require(evaluations >= 1 && evaluations <= 100000000, "evaluations",
          static_cast<double>(evaluations), "", "in [1, 1e8]");
  require(xtol >= 0 && std::isfinite(xtol), "xtol", xtol, "", "finite and >= 0");
  require(ftol >= 0 && std::isfinite(ftol), "ftol", ftol, "", "finite and >= 0");
  require(gradient_step > 0 && gradient_step <= 0.1, "gradient_step", gradient_step, "",
          "in (0, 0.1]");
  require(constraint_tolerance >= 0 && constraint_tolerance < 1, "constraint_tolerance",
          constraint_tolerance, "", "in [0, 1)");
}

// ---- history ----

namespace {
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}
}  // namespace

std::vector<robust_value> history::evaluate(const robust_problem& problem, std::size_t model,
                                            phase stage,
                                            const std::vector<std::vector<double>>& xs) {
  std::vector<evaluation_record> batch(xs.size());
  std::vector<std::size_t> todo;
  std::size_t replayed = 0;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    batch[k] = {model, stage, xs[k], {}};
    if (next_ < replay_.size()) {
      const auto& r = replay_[next_];
      if (r.model == model && r.stage == stage && same_bits(r.x, xs[k])) {
        batch[k].value = r.value;
        ++next_;
        ++replayed;
        continue;
      }
      diverged_ = true;
      next_ = replay_.size();  // the run went another way: evaluate everything from here
    }
    todo.push_back(k);
  }
  if (!todo.empty()) {
    if (stop && stop->load())
      throw interrupted(
          fmt::format("interrupted after {} evaluations", records_.size() + replayed));
    if (computed() + todo.size() > max_new)
      throw interrupted(
          fmt::format("stopped after {} new evaluations (limit {})", computed(), max_new));
    const auto one = [&](std::size_t t) {
      batch[todo[t]].value = problem.evaluate(batch[todo[t]].x);
    };
    if (executor) {
      std::vector<std::vector<double>> new_xs;
      for (const std::size_t k : todo) new_xs.push_back(xs[k]);
      std::vector<robust_value> values = executor->evaluate(problem, model, new_xs);
      for (std::size_t t = 0; t < todo.size(); ++t) batch[todo[t]].value = std::move(values[t]);
    } else if (problem.model().thread_safe())  // else never called from two threads at once
      tbb::parallel_for(std::size_t{0}, todo.size(), one);
    else
      for (std::size_t t = 0; t < todo.size(); ++t) one(t);
  }
  std::vector<robust_value> out;
  out.reserve(batch.size());
  for (auto& r : batch) out.push_back(r.value);
  records_.insert(records_.end(), batch.begin(), batch.end());
  replayed_ += replayed;
  if (on_records) on_records(std::span<const evaluation_record>(records_).last(batch.size()));
  return out;
}

// ---- running an algorithm on the unit box ----

namespace detail {

std::size_t best_point(const std::vector<box_point>& points, double tolerance) {
  std::size_t best = 0;
  const auto feasible = [&](const box_point& p) { return p.violation <= tolerance; };
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& a = points[i];
    const auto& b = points[best];
    if (feasible(a) != feasible(b)) {
      if (feasible(a)) best = i;
    } else if (feasible(a)) {
      if (a.objectives[0] < b.objectives[0]) best = i;
    } else if (a.violation < b.violation) {
      best = i;
    }
  }
  return best;
}

namespace {

// The points a run evaluated, shared by the algorithm wrappers.
struct recorder {
  const box_problem& problem;
  box_run& run;
  bool local_stage = false;

  std::vector<box_point> evaluate(const std::vector<std::vector<double>>& u) {
    auto points = problem.evaluate(u, local_stage);
    run.u.insert(run.u.end(), u.begin(), u.end());
    run.points.insert(run.points.end(), points.begin(), points.end());
    return points;
  }
};

// ---- pagmo ----

// Deb's ordering as one number per objective (header of optimizer.hpp).
struct fitness_map {
  bool constrained = false;
  std::vector<double> scale;  // |f(start)| per objective, 1 where 0 or not finite
  double tolerance = 0.0;

  std::vector<double> operator()(const box_point& p) const {
    std::vector<double> f(p.objectives.size());
    for (std::size_t k = 0; k < f.size(); ++k) {
      if (!constrained) {
        f[k] = std::isnan(p.objectives[k]) ? failed_value : p.objectives[k];
      } else if (p.violation <= tolerance) {
        const double z = p.objectives[k] / scale[k];
        f[k] = z / (1.0 + std::abs(z));
      } else {
        f[k] = 2.0 + std::min(p.violation, failed_value);
      }
    }
    return f;
  }
};

struct pagmo_problem {
  recorder* rec = nullptr;
  fitness_map map;

  pagmo::vector_double fitness(const pagmo::vector_double& u) const {
    return map(rec->evaluate({u}).front());
  }
  pagmo::vector_double batch_fitness(const pagmo::vector_double& dvs) const {
    const std::size_t d = rec->problem.dimension;
    std::vector<std::vector<double>> us;
    for (std::size_t i = 0; i + d <= dvs.size(); i += d)
      us.emplace_back(dvs.begin() + static_cast<std::ptrdiff_t>(i),
                      dvs.begin() + static_cast<std::ptrdiff_t>(i + d));
    pagmo::vector_double out;
    for (const auto& p : rec->evaluate(us)) {
      const auto f = map(p);
      out.insert(out.end(), f.begin(), f.end());
    }
    return out;
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const {
    return {pagmo::vector_double(rec->problem.dimension, 0.0),
            pagmo::vector_double(rec->problem.dimension, 1.0)};
  }
  pagmo::vector_double::size_type get_nobj() const { return rec->problem.objectives; }
  std::string get_name() const { return "contactuq robust problem"; }
};

// Deletes a pagmo algorithm, except, under AddressSanitizer, one holding CMA-ES: libpagmo (built
// without sanitizers) allocates the Eigen members of pagmo::cmaes during evolve() with plain
// malloc, while Eigen compiled with -fsanitize=address frees them (in cmaes' inline
// destructor, in our code) as its own hand-aligned blocks, a false heap error. Sanitized builds
// (tests only) leak that one object instead.
struct algorithm_deleter {
  bool cmaes = false;
  void operator()(pagmo::algorithm* a) const {
#if defined(__SANITIZE_ADDRESS__)
    if (cmaes) return;
#endif
    delete a;
  }
};

std::string run_pagmo(recorder& rec, algorithm method, std::span<const double> u0,
                      const optimizer_options& o) {
  const box_problem& problem = rec.problem;
  // The start design first: it fixes the objective scales of the constrained fitness.
  const box_point start = rec.evaluate({std::vector<double>(u0.begin(), u0.end())}).front();
  pagmo_problem udp;
  udp.rec = &rec;
  udp.map.constrained = problem.constraints > 0;
  udp.map.tolerance = o.constraint_tolerance;
  for (double f : start.objectives)
    udp.map.scale.push_back(std::isfinite(f) && f != 0.0 ? std::abs(f) : 1.0);
  const auto seed = static_cast<unsigned>(o.seed);
  const auto gens = static_cast<unsigned>(o.generations);
  pagmo::problem prob(udp);
  const pagmo::bfe batch{pagmo::member_bfe{}};
  pagmo::population pop(prob, batch, o.population - 1, seed);
  pop.push_back(std::vector<double>(u0.begin(), u0.end()), udp.map(start));
  std::unique_ptr<pagmo::algorithm, algorithm_deleter> algo(new pagmo::algorithm(),
                                                            {method == algorithm::cmaes});
  switch (method) {
    case algorithm::sga:
      *algo = pagmo::algorithm(pagmo::sga(gens, 0.9, 1.0, 0.02, 1.0, 2u, "exponential",
                                          "polynomial", "tournament", seed));
      break;
    case algorithm::de:
      *algo = pagmo::algorithm(pagmo::de(gens, 0.8, 0.9, 2u, 0.0, 0.0, seed));
      break;
    case algorithm::cmaes:
      *algo =
          pagmo::algorithm(pagmo::cmaes(gens, -1, -1, -1, -1, 0.3, 0.0, 0.0, false, true, seed));
      break;
    case algorithm::nsga2: {
      pagmo::nsga2 n(gens, 0.95, 10.0, 0.01, 50.0, seed);
      n.set_bfe(batch);
      *algo = pagmo::algorithm(n);
      break;
    }
    default:
      throw std::logic_error("run_pagmo: not a pagmo algorithm");
  }
  algo->evolve(pop);
  return fmt::format("{}: {} generations of {}", to_string(method), o.generations, o.population);
}

// ---- NLopt ----

struct nlopt_state {
  recorder* rec = nullptr;
  double step = 1e-6;
  std::vector<double> u;  // the design of the cached points
  bool with_gradient = false;
  box_point value;                                        // at u
  std::vector<std::vector<double>> gradient_objective;    // d x 1 per objective: [k][i]
  std::vector<std::vector<double>> gradient_constraints;  // [k][i]
  std::exception_ptr error;
};

double finite_or_failed(double v) { return std::isfinite(v) ? v : failed_value; }

// Evaluates u (and its 2d central-difference neighbours when a gradient is needed), once.
void compute(nlopt_state& s, const double* x, unsigned n, bool gradient) {
  std::vector<double> u(x, x + n);
  if (u == s.u && (s.with_gradient || !gradient)) return;
  std::vector<std::vector<double>> batch{u};
  std::vector<double> plus(n), minus(n);
  if (gradient) {
    for (unsigned i = 0; i < n; ++i) {
      auto up = u, down = u;
      up[i] = std::min(1.0, u[i] + s.step);
      down[i] = std::max(0.0, u[i] - s.step);
      plus[i] = up[i];
      minus[i] = down[i];
      batch.push_back(std::move(up));
      batch.push_back(std::move(down));
    }
  }
  const auto points = s.rec->evaluate(batch);
  s.u = u;
  s.with_gradient = gradient;
  s.value = points[0];
  const std::size_t nobj = s.value.objectives.size(), ncon = s.value.constraints.size();
  s.gradient_objective.assign(nobj, std::vector<double>(n, 0.0));
  s.gradient_constraints.assign(ncon, std::vector<double>(n, 0.0));
  if (!gradient) return;
  for (unsigned i = 0; i < n; ++i) {
    const auto& p = points[1 + 2 * i];
    const auto& m = points[2 + 2 * i];
    const double h = plus[i] - minus[i];
    for (std::size_t k = 0; k < nobj; ++k)
      s.gradient_objective[k][i] =
          (finite_or_failed(p.objectives[k]) - finite_or_failed(m.objectives[k])) / h;
    for (std::size_t k = 0; k < ncon; ++k)
      s.gradient_constraints[k][i] =
          (finite_or_failed(p.constraints[k]) - finite_or_failed(m.constraints[k])) / h;
  }
}

double nlopt_objective(unsigned n, const double* x, double* grad, void* data) {
  auto& s = *static_cast<nlopt_state*>(data);
  try {
    compute(s, x, n, grad != nullptr);
    if (grad)
      for (unsigned i = 0; i < n; ++i) grad[i] = s.gradient_objective[0][i];
    return finite_or_failed(s.value.objectives[0]);
  } catch (...) {
    s.error = std::current_exception();
    throw nlopt::forced_stop();
  }
}

void nlopt_constraints(unsigned m, double* result, unsigned n, const double* x, double* grad,
                       void* data) {
  auto& s = *static_cast<nlopt_state*>(data);
  try {
    compute(s, x, n, grad != nullptr);
    for (unsigned k = 0; k < m; ++k) {
      result[k] = finite_or_failed(s.value.constraints[k]);
      if (grad)
        for (unsigned i = 0; i < n; ++i) grad[k * n + i] = s.gradient_constraints[k][i];
    }
  } catch (...) {
    s.error = std::current_exception();
    throw nlopt::forced_stop();
  }
}

std::string nlopt_result_text(nlopt::result r) {
  switch (r) {
    case nlopt::SUCCESS:
      return "success";
    case nlopt::STOPVAL_REACHED:
      return "stopval reached";
    case nlopt::FTOL_REACHED:
      return "ftol reached";
    case nlopt::XTOL_REACHED:
      return "xtol reached";
    case nlopt::MAXEVAL_REACHED:
      return "evaluation budget reached";
    case nlopt::MAXTIME_REACHED:
      return "time limit reached";
    default:
      return fmt::format("NLopt code {}", static_cast<int>(r));
  }
}

std::string run_nlopt(recorder& rec, algorithm method, std::span<const double> u0,
                      const optimizer_options& o) {
  const box_problem& problem = rec.problem;
  const auto n = static_cast<unsigned>(problem.dimension);
  const bool constrained = problem.constraints > 0;
  const auto code = [](algorithm a) {
    switch (a) {
      case algorithm::slsqp:
        return nlopt::LD_SLSQP;
      case algorithm::mma:
        return nlopt::LD_MMA;
      case algorithm::lbfgs:
        return nlopt::LD_LBFGS;
      case algorithm::cobyla:
        return nlopt::LN_COBYLA;
      case algorithm::bobyqa:
        return nlopt::LN_BOBYQA;
      default:
        throw std::logic_error("run_nlopt: not an NLopt algorithm");
    }
  };
  // L-BFGS and BOBYQA know bounds only: constraints through the augmented Lagrangian.
  const bool auglag = constrained && (method == algorithm::lbfgs || method == algorithm::bobyqa);
  nlopt::opt opt(auglag ? nlopt::AUGLAG : code(method), n);
  const std::vector<double> lower(n, 0.0), upper(n, 1.0);
  opt.set_lower_bounds(lower);
  opt.set_upper_bounds(upper);
  const auto tolerances = [&](nlopt::opt& x) {
    x.set_xtol_abs(o.xtol);
    x.set_ftol_rel(o.ftol);
  };
  tolerances(opt);
  if (auglag) {
    nlopt::opt inner(code(method), n);
    tolerances(inner);
    opt.set_local_optimizer(inner);
  }
  opt.set_maxeval(static_cast<int>(o.evaluations));
  nlopt_state s;
  s.rec = &rec;
  s.step = o.gradient_step;
  opt.set_min_objective(nlopt_objective, &s);
  if (constrained)
    opt.add_inequality_mconstraint(nlopt_constraints, &s,
                                   std::vector<double>(problem.constraints, 0.0));
  std::vector<double> u(u0.begin(), u0.end());
  double f = 0.0;
  std::string message;
  try {
    message = nlopt_result_text(opt.optimize(u, f));
  } catch (const nlopt::forced_stop&) {
    message = "stopped";
  } catch (const nlopt::roundoff_limited&) {
    message = "roundoff limited";
  } catch (const std::exception& e) {
    message = fmt::format("NLopt failed: {}", e.what());
  }
  if (s.error) std::rethrow_exception(s.error);
  return fmt::format("{}: {} after {} calls", to_string(method), message, opt.get_numevals());
}

}  // namespace

box_run run_box(const box_problem& problem, std::span<const double> u0,
                const optimizer_options& o) {
  box_run run;
  recorder rec{problem, run};
  const auto one = [&](algorithm method, std::span<const double> from) {
    rec.local_stage = !is_global(method);
    return is_global(method) ? run_pagmo(rec, method, from, o) : run_nlopt(rec, method, from, o);
  };
  if (o.method != algorithm::hybrid) {
    run.message = one(o.method, u0);
    return run;
  }
  const std::string global = one(o.global, u0);
  const std::vector<double> polish_from = run.u[best_point(run.points, o.constraint_tolerance)];
  const std::string local = one(o.local, polish_from);
  run.message = fmt::format("{}; then {}", global, local);
  return run;
}

}  // namespace detail

// ---- one model ----

namespace {

std::vector<std::vector<double>> pareto_front(const std::vector<detail::box_point>& points,
                                              double tolerance, std::vector<std::size_t>& index) {
  std::vector<std::vector<double>> front;
  const auto dominates = [](const std::vector<double>& a, const std::vector<double>& b) {
    bool better = false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k] > b[k]) return false;
      if (a[k] < b[k]) better = true;
    }
    return better;
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].violation > tolerance) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j)
      dominated = j != i && points[j].violation <= tolerance &&
                  dominates(points[j].objectives, points[i].objectives);
    // One point per distinct objective vector.
    for (std::size_t j : index)
      if (points[j].objectives == points[i].objectives) dominated = true;
    if (!dominated) index.push_back(i);
  }
  std::sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
    return points[a].objectives[0] < points[b].objectives[0];
  });
  for (std::size_t i : index) front.push_back(points[i].objectives);
  return front;
}

}  // namespace

optimization_result optimize(const robust_problem& problem, std::span<const double> start,
                             const optimizer_options& options, history& log, std::size_t model) {
  options.validate();
  const std::size_t d = problem.dimension();
  const std::size_t nobj = problem.objectives().size();
  if (start.size() != d)
    throw parameter_error(
        "start", fmt::format("a start of {} values for {} design variables", start.size(), d));
  for (std::size_t k = 0; k < d; ++k)
    if (!(start[k] >= problem.low()[k] && start[k] <= problem.high()[k]))
      throw parameter_error("start", fmt::format("start[{}] = {} is outside [{}, {}]", k, start[k],
                                                 problem.low()[k], problem.high()[k]));
  if ((nobj == 2) != (options.method == algorithm::nsga2))
    throw parameter_error("algorithm", nobj == 2 ? "two objectives need algorithm nsga2"
                                                 : "nsga2 needs two objectives");

  const auto to_x = [&](const std::vector<double>& u) {
    std::vector<double> x(d);
    for (std::size_t k = 0; k < d; ++k) {
      const double v = problem.low()[k] + u[k] * (problem.high()[k] - problem.low()[k]);
      x[k] = std::clamp(v, problem.low()[k], problem.high()[k]);
    }
    return x;
  };
  std::vector<double> u0(d);
  for (std::size_t k = 0; k < d; ++k)
    u0[k] = (start[k] - problem.low()[k]) / (problem.high()[k] - problem.low()[k]);

  const std::size_t first = log.records().size();
  detail::box_problem box;
  box.dimension = d;
  box.objectives = nobj;
  box.constraints = problem.constraints().size();
  box.evaluate = [&](const std::vector<std::vector<double>>& us, bool local_stage) {
    std::vector<std::vector<double>> xs;
    for (const auto& u : us) xs.push_back(to_x(u));
    const auto values =
        log.evaluate(problem, model, local_stage ? phase::local : phase::global, xs);
    std::vector<detail::box_point> points;
    for (const auto& v : values) {
      detail::box_point p;
      for (std::size_t k = 0; k < nobj; ++k)
        p.objectives.push_back(problem.objectives()[k].maximize ? -v.objectives[k]
                                                                : v.objectives[k]);
      for (std::size_t k = 0; k < v.constraints.size(); ++k)
        p.constraints.push_back(problem.constraints()[k].normalised(v.constraints[k]));
      p.violation = v.violation;
      if (std::isnan(p.objectives[0])) p.violation = std::numeric_limits<double>::infinity();
      points.push_back(std::move(p));
    }
    return points;
  };
  const detail::box_run run = detail::run_box(box, u0, options);

  optimization_result result;
  result.method = options.method;
  result.evaluations = log.records().size() - first;
  result.message = run.message;
  const std::size_t best = detail::best_point(run.points, options.constraint_tolerance);
  const auto& record = log.records()[first + best];
  result.x = record.x;
  result.value = record.value;
  result.feasible = run.points[best].violation <= options.constraint_tolerance;
  result.status = result.feasible ? "optimal" : "infeasible";
  // best_point returns the first of equal points: the last improvement of the search.
  result.last_improvement = best + 1;
  for (std::size_t k = 0; k < run.points[best].constraints.size(); ++k) {
    const double g = run.points[best].constraints[k];
    if (g >= -active_tolerance && g <= options.constraint_tolerance)
      result.active_constraints.push_back(k);
  }
  const bool local_last = options.method == algorithm::hybrid || !is_global(options.method);
  const std::size_t then = run.message.rfind("; then ");
  const std::string local_message =
      then == std::string::npos ? run.message : run.message.substr(then + 7);
  const bool stopped_on_tolerance = local_message.find("xtol reached") != std::string::npos ||
                                    local_message.find("ftol reached") != std::string::npos ||
                                    local_message.find(": success after") != std::string::npos;
  const bool budget = local_message.find("evaluation budget reached") != std::string::npos;
  result.converged = local_last && stopped_on_tolerance && !budget;
  result.convergence =
      result.converged ? "converged: the local stage met its tolerance"
      : !local_last    ? "not converged: a global algorithm alone has no convergence test"
      : budget         ? "not converged: the local stage ran out of evaluations"
                       : fmt::format("not converged: {}", local_message);
  if (nobj == 2) {
    std::vector<std::size_t> index;
    pareto_front(run.points, options.constraint_tolerance, index);
    for (std::size_t i : index) {
      result.pareto_x.push_back(log.records()[first + i].x);
      result.pareto_objectives.push_back(log.records()[first + i].value.objectives);
    }
  }
  return result;
}

}  // namespace contactuq::opt
