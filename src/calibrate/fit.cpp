#include "contactuq/calibrate/fit.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <Eigen/SVD>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <unsupported/Eigen/LevenbergMarquardt>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::calibrate {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// Where a free parameter lives: one of the 11 receptacle_pin_params fields or the d0 of a group.
struct target {
  std::string name;
  units::dimension dim;
  double contact::receptacle_pin_params::*field = nullptr;
  std::size_t group = 0;  // for d0
};

target find_target(const std::string& name, std::size_t groups) {
  for (const auto& p : study::receptacle_pin_parameters())
    if (name == p.name) return {name, p.dim, p.field, 0};
  std::vector<std::string> known;
  for (const auto& p : study::receptacle_pin_parameters()) known.emplace_back(p.name);
  for (std::size_t g = 1; g <= groups; ++g) {
    known.push_back(fmt::format("g{}_d0", g));
    if (name == known.back()) return {name, units::length, nullptr, g - 1};
  }
  throw parameter_error(
      name, fmt::format("\"{}\" is not an input of the receptacle_pin model; its inputs: {}", name,
                        fmt::join(known, ", ")));
}

void apply(const target& t, double value, contact::receptacle_pin_params& p,
           std::vector<contact::arm_group>& g) {
  if (t.field)
    p.*t.field = value;
  else
    g[t.group].d0 = value;
}

double read(const target& t, const contact::receptacle_pin_params& p,
            const std::vector<contact::arm_group>& g) {
  return t.field ? p.*t.field : g[t.group].d0;
}

// r~ = sign(r) sqrt(rho(r^2)), so that sum r~^2 is the robust cost.
double robust(double r, loss_kind loss, double c) {
  const double a = std::abs(r);
  switch (loss) {
    case loss_kind::squared:
      return r;
    case loss_kind::huber:
      return a <= c ? r : std::copysign(std::sqrt(2.0 * c * a - c * c), r);
    case loss_kind::cauchy:
      return std::copysign(c * std::sqrt(std::log1p(a * a / (c * c))), r);
  }
  return r;
}

// The least-squares problem over the independent parameters q: the free parameters, then the
// offsets of insertions 1..n-1 (the last is minus their sum).
class problem {
 public:
  problem(const insertion_model& model, const insertion_data& data, const fit_options& options)
      : model_(model), data_(data), options_(options), insertions_(data.insertions()) {
    for (const auto& fp : options.parameters) {
      targets_.push_back(find_target(fp.name, model.groups.size()));
      low_.push_back(fp.low);
      high_.push_back(fp.high);
    }
    if (options.offsets)
      for (std::size_t k = 0; k + 1 < insertions_.size(); ++k) {
        low_.push_back(options.offsets->first);
        high_.push_back(options.offsets->second);
      }
    for (const auto& s : data.strokes) {
      stroke_insertion_.push_back(static_cast<std::size_t>(
          std::find(insertions_.begin(), insertions_.end(), s.insertion) - insertions_.begin()));
      m_ += s.x.size();
      for (std::size_t i = 0; i < s.x.size(); ++i)
        penalty_ = std::max(penalty_, std::sqrt(s.weight[i]) * std::abs(s.force[i]));
    }
    penalty_ = 1e3 * (penalty_ + 1.0);
  }

  std::size_t size() const { return low_.size(); }
  std::size_t residuals() const { return m_; }
  double low(std::size_t k) const { return low_[k]; }
  double high(std::size_t k) const { return high_[k]; }
  const std::vector<target>& targets() const { return targets_; }
  const std::vector<std::string>& insertions() const { return insertions_; }
  bool has_offsets() const { return options_.offsets.has_value(); }

  std::vector<double> offsets(const Eigen::VectorXd& q) const {
    std::vector<double> o(insertions_.size(), 0.0);
    if (!has_offsets()) return o;
    double sum = 0.0;
    for (std::size_t k = 0; k + 1 < o.size(); ++k) {
      o[k] = q[static_cast<Eigen::Index>(targets_.size() + k)];
      sum += o[k];
    }
    o.back() = -sum;
    return o;
  }

  void set_model(const Eigen::VectorXd& q, contact::receptacle_pin_params& p,
                 std::vector<contact::arm_group>& g) const {
    p = model_.params;
    g = model_.groups;
    for (std::size_t k = 0; k < targets_.size(); ++k)
      apply(targets_[k], q[static_cast<Eigen::Index>(k)], p, g);
  }

  // Model forces at every point, stroke by stroke. Throws what the model throws.
  std::vector<std::vector<double>> forces(const Eigen::VectorXd& q) const {
    contact::receptacle_pin_params p;
    std::vector<contact::arm_group> g;
    set_model(q, p, g);
    const contact::receptacle r(p, g);
    const auto o = offsets(q);
    std::vector<std::vector<double>> out;
    out.reserve(data_.strokes.size());
    for (std::size_t s = 0; s < data_.strokes.size(); ++s) {
      const measured_stroke& st = data_.strokes[s];
      auto& f = out.emplace_back(st.x.size());
      const double offset = o[stroke_insertion_[s]];
      for (std::size_t i = 0; i < st.x.size(); ++i)
        f[i] = model_force(r, st.x[i] + offset, st.direction, model_.v_norm);
    }
    return out;
  }

  // r~ at q; false (and penalty residuals) where the model has no solution.
  bool residual(const Eigen::VectorXd& q, Eigen::VectorXd& r) const {
    r.resize(static_cast<Eigen::Index>(m_));
    try {
      const auto f = forces(q);
      Eigen::Index j = 0;
      for (std::size_t s = 0; s < f.size(); ++s) {
        const measured_stroke& st = data_.strokes[s];
        for (std::size_t i = 0; i < f[s].size(); ++i, ++j)
          r[j] = robust(std::sqrt(st.weight[i]) * (f[s][i] - st.force[i]), options_.loss,
                        options_.loss_scale);
      }
      return true;
    } catch (const model_error&) {
    } catch (const parameter_error&) {
    }
    r.setConstant(penalty_);
    return false;
  }

  // MINUIT's bound transform, q = low + (high - low) (1 + sin u) / 2, and its inverse.
  Eigen::VectorXd to_q(const Eigen::VectorXd& u) const {
    Eigen::VectorXd q(u.size());
    for (Eigen::Index k = 0; k < u.size(); ++k) {
      const auto i = static_cast<std::size_t>(k);
      q[k] = low_[i] + (high_[i] - low_[i]) * 0.5 * (1.0 + std::sin(u[k]));
    }
    return q;
  }
  Eigen::VectorXd to_u(const Eigen::VectorXd& q) const {
    Eigen::VectorXd u(q.size());
    for (Eigen::Index k = 0; k < q.size(); ++k) {
      const auto i = static_cast<std::size_t>(k);
      u[k] = std::asin(std::clamp(2.0 * (q[k] - low_[i]) / (high_[i] - low_[i]) - 1.0, -1.0, 1.0));
    }
    return u;
  }

 private:
  const insertion_model& model_;
  const insertion_data& data_;
  const fit_options& options_;
  std::vector<std::string> insertions_;
  std::vector<target> targets_;
  std::vector<double> low_, high_;
  std::vector<std::size_t> stroke_insertion_;
  std::size_t m_ = 0;
  double penalty_ = 0.0;
};

// Eigen's LM functor over the unbounded u; the Jacobian by forward differences.
struct lm_functor : Eigen::DenseFunctor<double> {
  lm_functor(const problem& pr)
      : Eigen::DenseFunctor<double>(static_cast<int>(pr.size()), static_cast<int>(pr.residuals())),
        pr_(pr) {}

  int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& f) const {
    ++sweeps;
    pr_.residual(pr_.to_q(u), f);
    return 0;
  }
  int df(const Eigen::VectorXd& u, Eigen::MatrixXd& jac) const {
    Eigen::VectorXd f0, f1, v = u;
    (*this)(u, f0);
    for (Eigen::Index k = 0; k < u.size(); ++k) {
      const double h = 1e-7 * std::max(1.0, std::abs(u[k]));
      v[k] = u[k] + h;
      (*this)(v, f1);
      jac.col(k) = (f1 - f0) / h;
      v[k] = u[k];
    }
    return 0;  // sweeps are counted in operator()
  }

  const problem& pr_;
  mutable int sweeps = 0;
};

std::string_view status_text(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case RelativeReductionTooSmall:
      return "converged: relative reduction of the cost below tolerance";
    case RelativeErrorTooSmall:
      return "converged: relative step below tolerance";
    case RelativeErrorAndReductionTooSmall:
      return "converged: relative step and cost reduction below tolerance";
    case CosinusTooSmall:
      return "converged: residuals orthogonal to the Jacobian (or the model failed at the start)";
    case TooManyFunctionEvaluation:
      return "stopped: evaluation limit reached";
    case FtolTooSmall:
      return "stopped: cost tolerance too small for machine precision";
    case XtolTooSmall:
      return "stopped: step tolerance too small for machine precision";
    case GtolTooSmall:
      return "stopped: gradient tolerance too small for machine precision";
    default:
      return "stopped: improper input";
  }
}

start_record run_lm(const problem& pr, const Eigen::VectorXd& q0, const fit_options& o) {
  lm_functor f(pr);
  Eigen::LevenbergMarquardt<lm_functor> lm(f);
  lm.setXtol(o.tolerance);
  lm.setFtol(o.tolerance);
  lm.setGtol(0.0);
  // Each Jacobian costs P sweeps on top of the trial steps LM counts.
  lm.setMaxfev(std::max<Eigen::Index>(2, o.max_evaluations / static_cast<int>(pr.size() + 1)));
  Eigen::VectorXd u = pr.to_u(q0);
  const auto status = lm.minimize(u);
  Eigen::VectorXd r;
  const Eigen::VectorXd q = pr.to_q(u);
  const bool ok = pr.residual(q, r);
  start_record rec;
  rec.start.assign(q0.data(), q0.data() + q0.size());
  rec.end.assign(q.data(), q.data() + q.size());
  rec.cost = ok ? r.squaredNorm() : infinity;
  rec.evaluations = f.sweeps + 1;
  rec.status =
      ok ? std::string(status_text(status)) : "failed: the model has no solution at this point";
  return rec;
}

// Starts: the study's values nudged inside the bounds, then a Latin hypercube in the bounds.
std::vector<Eigen::VectorXd> make_starts(const problem& pr, const Eigen::VectorXd& first,
                                         const fit_options& o) {
  const auto p = static_cast<Eigen::Index>(pr.size());
  std::vector<Eigen::VectorXd> starts;
  Eigen::VectorXd q = first;
  for (Eigen::Index k = 0; k < p; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double w = pr.high(i) - pr.low(i);
    q[k] = std::clamp(q[k], pr.low(i) + 1e-3 * w, pr.high(i) - 1e-3 * w);
  }
  starts.push_back(q);
  if (o.starts > 1) {
    uq::design_options d;
    d.kind = uq::design_kind::latin_hypercube;
    d.seed = o.seed;
    const Eigen::MatrixXd u = uq::unit_design(static_cast<std::size_t>(o.starts - 1), pr.size(), d);
    for (Eigen::Index s = 0; s < u.rows(); ++s) {
      for (Eigen::Index k = 0; k < p; ++k) {
        const auto i = static_cast<std::size_t>(k);
        q[k] = pr.low(i) + (pr.high(i) - pr.low(i)) * u(s, k);
      }
      starts.push_back(q);
    }
  }
  return starts;
}

template <class F>
void for_each_index(std::size_t n, bool parallel, F&& f) {
  if (parallel)
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { f(i); });
  else
    for (std::size_t i = 0; i < n; ++i) f(i);
}

// Best of several LM runs: lowest cost, ties to the lower index.
std::size_t best_of(const std::vector<start_record>& runs) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < runs.size(); ++i)
    if (runs[i].cost < runs[best].cost) best = i;
  return best;
}

std::string unit_text(units::dimension d) { return units::si_unit(d); }

// Can stroke s touch the pin for some parameters in the bounds? Corners of the box of the
// parameters that move the contact (all but K and mu) and the offset bounds are tried.
void check_reaches_contact(const problem& pr, const insertion_model& model,
                           const insertion_data& data, const fit_options& o) {
  std::vector<std::size_t> geometric;
  for (std::size_t k = 0; k < pr.targets().size(); ++k)
    if (pr.targets()[k].name != "K" && pr.targets()[k].name != "mu") geometric.push_back(k);
  if (geometric.size() > 6) return;  // 2^7 corners and up: leave it to the fit
  struct contact_range {
    double engage = infinity;      // smallest x_c of an engaging arm
    double disengage = -infinity;  // largest x_c of a disengaging arm
  } range;
  for (std::size_t corner = 0; corner < (std::size_t{1} << geometric.size()); ++corner) {
    contact::receptacle_pin_params p = model.params;
    std::vector<contact::arm_group> g = model.groups;
    for (std::size_t j = 0; j < geometric.size(); ++j) {
      const std::size_t k = geometric[j];
      apply(pr.targets()[k], (corner >> j) & 1 ? pr.high(k) : pr.low(k), p, g);
    }
    try {
      const contact::receptacle r(p, g);
      for (const auto& arm : r.arms()) {
        if (!arm.critical().xc) continue;
        if (arm.direction() == contact::arm_direction::engage)
          range.engage = std::min(range.engage, *arm.critical().xc);
        else
          range.disengage = std::max(range.disengage, *arm.critical().xc);
      }
    } catch (const parameter_error&) {
    }
  }
  const double shift_low = o.offsets ? o.offsets->first : 0.0,
               shift_high = o.offsets ? o.offsets->second : 0.0;
  for (const auto& s : data.strokes) {
    const auto [lo, hi] = std::minmax_element(s.x.begin(), s.x.end());
    if (*hi + shift_high >= range.engage || *lo + shift_low <= range.disengage) continue;
    const auto in = [&](double v) { return units::from_si(v, data.length_unit, units::length); };
    std::string where = "no arm ever touches the pin";
    if (std::isfinite(range.engage))
      where =
          fmt::format("the first contact is at x >= {:.5g} {}", in(range.engage), data.length_unit);
    throw data_error(
        s.file, s.line.front(),
        fmt::format(
            "insertion {}, {} stroke (x = {:.5g} .. {:.5g} {}) never reaches contact for any "
            "parameters within the bounds: {}; the stroke says nothing about K or mu. "
            "Check the d0 bounds (or the offsets), or drop the stroke",
            s.insertion, to_string(s.direction), in(*lo), in(*hi), data.length_unit, where));
  }
}

// Central-difference Jacobian of r~ with respect to q.
Eigen::MatrixXd jacobian(const problem& pr, const Eigen::VectorXd& q) {
  Eigen::MatrixXd J(static_cast<Eigen::Index>(pr.residuals()), q.size());
  Eigen::VectorXd rp, rm, v = q;
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double h = 1e-6 * (pr.high(i) - pr.low(i));
    v[k] = q[k] + h;
    const bool ok_p = pr.residual(v, rp);
    v[k] = q[k] - h;
    const bool ok_m = pr.residual(v, rm);
    v[k] = q[k];
    if (!ok_p || !ok_m)
      throw fit_error(fmt::format(
          "the model has no solution next to the optimum (step {} in parameter {}): the "
          "covariance cannot be computed",
          h, k));
    J.col(k) = (rp - rm) / (2.0 * h);
  }
  return J;
}

// Fits a data set from given starts (no bound checks, no uncertainty): for the bootstrap.
start_record refit(const insertion_model& model, const insertion_data& data, const fit_options& o,
                   const Eigen::VectorXd& q0) {
  const problem pr(model, data, o);
  return run_lm(pr, q0, o);
}

}  // namespace

std::string_view to_string(loss_kind k) {
  switch (k) {
    case loss_kind::squared:
      return "squared";
    case loss_kind::huber:
      return "huber";
    case loss_kind::cauchy:
      return "cauchy";
  }
  return "?";
}

void insertion_model::validate() const {
  params.validate();
  if (groups.empty()) throw parameter_error("arms", "the receptacle needs at least one arm group");
  for (const auto& g : groups) g.validate();
  require(std::isfinite(v_norm) && v_norm > 0, "v_norm", v_norm, "", "> 0");
}

double model_force(const contact::receptacle& r, double x, stroke_direction d, double v_norm) {
  const double v =
      d == stroke_direction::forward ? v_norm : -v_norm;  // (1.84): friction opposes the motion
  double f = 0.0;
  for (std::size_t g = 0; g < r.arms().size(); ++g)
    f += r.groups()[g].count * r.arms()[g].evaluate(x, v).Fx;
  return f;
}

void fit_options::validate() const {
  if (parameters.empty())
    throw parameter_error("parameters", "the fit needs at least one free parameter");
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& p = parameters[i];
    for (std::size_t j = 0; j < i; ++j)
      if (parameters[j].name == p.name)
        throw parameter_error(p.name, fmt::format("{} is listed twice", p.name));
    if (!(std::isfinite(p.low) && std::isfinite(p.high) && p.low < p.high))
      throw parameter_error(
          p.name,
          fmt::format("{} bounds [{}, {}]: must be finite with low < high", p.name, p.low, p.high));
    if (p.start && !(*p.start >= p.low && *p.start <= p.high))
      throw parameter_error(
          p.name, fmt::format("{} start = {}: must lie within the bounds [{}, {}]", p.name,
                              *p.start, p.low, p.high));
  }
  if (offsets && !(std::isfinite(offsets->first) && std::isfinite(offsets->second) &&
                   offsets->first < 0 && offsets->second > 0))
    throw parameter_error(
        "offsets", fmt::format("offset bounds [{}, {}] m: must be finite with low < 0 < high",
                               offsets->first, offsets->second));
  require(starts >= 1 && starts <= 1000, "starts", starts, "", "an integer in [1, 1000]");
  if (loss != loss_kind::squared)
    require(std::isfinite(loss_scale) && loss_scale > 0, "loss_scale", loss_scale, "N",
            "> 0 for a robust loss");
  require(confidence > 0 && confidence < 1, "confidence", confidence, "", "in (0, 1)");
  require(bootstrap == 0 || (bootstrap >= 10 && bootstrap <= 100000), "bootstrap", bootstrap, "",
          "0 (off) or an integer in [10, 100000]");
  require(max_evaluations >= 10, "max_evaluations", max_evaluations, "", "an integer >= 10");
  require(tolerance >= 1e-15 && tolerance <= 1e-2, "tolerance", tolerance, "", "in [1e-15, 1e-2]");
}

fit_result fit(const insertion_model& model, const insertion_data& data, const fit_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  model.validate();
  o.validate();
  if (data.strokes.empty()) throw data_error("data", 0, "no strokes to fit");
  const problem pr(model, data, o);
  const auto P = static_cast<Eigen::Index>(pr.size());

  // Bounds and starts the model accepts; the first start.
  Eigen::VectorXd first(P);
  for (std::size_t k = 0; k < o.parameters.size(); ++k) {
    const auto& fp = o.parameters[k];
    const target& t = pr.targets()[k];
    for (double v : {fp.low, fp.high}) {
      contact::receptacle_pin_params p = model.params;
      std::vector<contact::arm_group> g = model.groups;
      apply(t, v, p, g);
      try {
        p.validate();
        for (const auto& gr : g) gr.validate();
      } catch (const parameter_error& e) {
        throw parameter_error(
            fp.name, fmt::format("bound {} = {} {} of {}: {}", v == fp.low ? "low" : "high", v,
                                 unit_text(t.dim), fp.name, e.what()));
      }
    }
    first[static_cast<Eigen::Index>(k)] = fp.start.value_or(read(t, model.params, model.groups));
    if (!(first[static_cast<Eigen::Index>(k)] >= fp.low &&
          first[static_cast<Eigen::Index>(k)] <= fp.high))
      throw parameter_error(
          fp.name, fmt::format("{} = {} {} of [model] is the first start and must lie within "
                               "the bounds [{}, {}]; give a start or widen the bounds",
                               fp.name, first[static_cast<Eigen::Index>(k)], unit_text(t.dim),
                               fp.low, fp.high));
  }
  for (Eigen::Index k = static_cast<Eigen::Index>(o.parameters.size()); k < P; ++k) first[k] = 0.0;

  std::size_t n_points = 0;
  for (const auto& s : data.strokes)
    for (double w : s.weight) n_points += w > 0;
  if (n_points <= pr.size())
    throw data_error(
        data.strokes.front().file, 0,
        fmt::format(
            "{} points with weight > 0 for {} free parameters: the fit needs more points than "
            "parameters",
            n_points, pr.size()));
  if (o.offsets && pr.insertions().size() < 2)
    throw parameter_error("offsets", "per-insertion offsets need at least two insertions");
  if (o.bootstrap > 0 && pr.insertions().size() < 2)
    throw parameter_error("bootstrap",
                          "the bootstrap over insertions needs at least two insertions");
  check_reaches_contact(pr, model, data, o);

  // Multi-start Levenberg–Marquardt.
  fit_result res;
  res.confidence = o.confidence;
  const auto starts = make_starts(pr, first, o);
  res.starts.resize(starts.size());
  for_each_index(starts.size(), o.parallel,
                 [&](std::size_t s) { res.starts[s] = run_lm(pr, starts[s], o); });
  for (const auto& s : res.starts) res.evaluations += s.evaluations;
  const std::size_t best = best_of(res.starts);
  const start_record& b = res.starts[best];
  if (!std::isfinite(b.cost))
    throw fit_error(fmt::format(
        "the model has no solution anywhere the {} start{} went within the bounds (friction "
        "lock or a geometry it cannot represent): the bounds exclude any fit; narrow mu's "
        "upper bound or move the geometric bounds",
        starts.size(), starts.size() == 1 ? "" : "s"));
  double data_scale = 0.0;  // sum w F^2: costs this far below it count as zero
  for (const auto& s : data.strokes)
    for (std::size_t i = 0; i < s.x.size(); ++i)
      data_scale += s.weight[i] * s.force[i] * s.force[i];
  for (const auto& s : res.starts)
    res.starts_at_best += std::abs(s.cost - b.cost) <= 1e-6 * b.cost + 1e-20 * data_scale;
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(b.end.data(), P);

  // A parameter pinned at a bound means the bounds exclude the best fit.
  for (Eigen::Index k = 0; k < P; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double w = pr.high(i) - pr.low(i);
    const bool at_low = q[k] - pr.low(i) <= 1e-4 * w, at_high = pr.high(i) - q[k] <= 1e-4 * w;
    if (!at_low && !at_high) continue;
    const bool is_offset = i >= o.parameters.size();
    const std::string name =
        is_offset ? fmt::format("offset of insertion {}", pr.insertions()[i - o.parameters.size()])
                  : o.parameters[i].name;
    const std::string unit = is_offset ? "m" : unit_text(pr.targets()[i].dim);
    throw fit_error(fmt::format(
        "{} = {} {} sits on its {} bound (bounds [{}, {}] {}): the bounds exclude the best "
        "fit, which lies {}; widen them",
        name, q[k], unit, at_low ? "lower" : "upper", pr.low(i), pr.high(i), unit,
        at_low ? "below" : "above"));
  }

  // Covariance from the Jacobian at the optimum.
  const Eigen::MatrixXd J = jacobian(pr, q);
  Eigen::VectorXd r;
  pr.residual(q, r);
  res.cost = r.squaredNorm();
  res.points = n_points;
  res.dof = n_points - pr.size();
  const double s2 = res.cost / static_cast<double>(res.dof);
  res.sigma = std::sqrt(s2);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
  const Eigen::VectorXd sv = svd.singularValues();
  if (sv[P - 1] <= 1e-10 * sv[0]) {
    const Eigen::VectorXd v = svd.matrixV().col(P - 1);
    std::vector<std::string> involved;
    for (Eigen::Index k = 0; k < P; ++k)
      if (std::abs(v[k]) > 0.1) {
        const auto i = static_cast<std::size_t>(k);
        involved.push_back(
            i < o.parameters.size()
                ? o.parameters[i].name
                : fmt::format("offset[{}]", pr.insertions()[i - o.parameters.size()]));
      }
    if (involved.size() == 1)
      throw fit_error(fmt::format(
          "the data do not determine {} (the residuals do not change with it): fix it or "
          "add data where it acts",
          involved.front()));
    throw fit_error(fmt::format(
        "the data cannot tell {} apart (the Jacobian is rank-deficient, condition number "
        "{:.3g}): fix one of them or add data that separates them",
        fmt::join(involved, " and "), sv[0] / std::max(sv[P - 1], 1e-300)));
  }
  const Eigen::MatrixXd V = svd.matrixV();
  res.covariance = s2 * V * sv.cwiseInverse().cwiseAbs2().asDiagonal() * V.transpose();
  const Eigen::VectorXd se = res.covariance.diagonal().cwiseSqrt();
  res.correlation = res.covariance.cwiseQuotient(se * se.transpose());
  const double t = boost::math::quantile(boost::math::students_t(static_cast<double>(res.dof)),
                                         0.5 * (1.0 + o.confidence));

  // Insertion-clustered sandwich covariance (CR1).
  const std::size_t G = pr.insertions().size();
  double t_cl = 0.0;
  if (G >= 3) {
    Eigen::MatrixXd scores = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(G), P);
    Eigen::Index row = 0;
    for (const auto& st : data.strokes) {
      const auto g = static_cast<Eigen::Index>(
          std::find(pr.insertions().begin(), pr.insertions().end(), st.insertion) -
          pr.insertions().begin());
      const auto n = static_cast<Eigen::Index>(st.x.size());
      scores.row(g) += (J.middleRows(row, n).transpose() * r.segment(row, n)).transpose();
      row += n;
    }
    const Eigen::MatrixXd bread = V * sv.cwiseInverse().cwiseAbs2().asDiagonal() * V.transpose();
    const double Gd = static_cast<double>(G), N = static_cast<double>(res.points),
                 Pd = static_cast<double>(P);
    res.clustered_covariance =
        Gd / (Gd - 1.0) * (N - 1.0) / (N - Pd) * bread * scores.transpose() * scores * bread;
    t_cl = boost::math::quantile(boost::math::students_t(Gd - 1.0), 0.5 * (1.0 + o.confidence));
  }

  // Bootstrap over insertions: whole insertions drawn with replacement and refitted from the
  // optimum.
  if (o.bootstrap > 0) {
    const auto labels = pr.insertions();
    const std::size_t n = labels.size();
    std::vector<std::optional<Eigen::VectorXd>> reps(static_cast<std::size_t>(o.bootstrap));
    std::vector<int> sweeps(reps.size(), 0);
    fit_options single = o;
    single.starts = 1;
    for_each_index(reps.size(), o.parallel, [&](std::size_t b_index) {
      auto e = uq::make_engine(o.seed, uq::stream_purpose::bootstrap_replicate, b_index);
      insertion_data d;
      d.length_unit = data.length_unit;
      d.force_unit = data.force_unit;
      for (std::size_t slot = 0; slot < n; ++slot) {
        const std::string& pick = labels[uq::uniform_index(e, n)];
        for (const auto& s : data.strokes)
          if (s.insertion == pick) {
            d.strokes.push_back(s);
            d.strokes.back().insertion = fmt::format("{}", slot);
          }
      }
      try {
        const start_record rec = refit(model, d, single, q);
        sweeps[b_index] = rec.evaluations;
        if (std::isfinite(rec.cost))
          reps[b_index] = Eigen::Map<const Eigen::VectorXd>(rec.end.data(), P);
      } catch (const std::exception&) {
      }
    });
    std::vector<Eigen::VectorXd> ok;
    for (std::size_t i = 0; i < reps.size(); ++i) {
      res.evaluations += sweeps[i];
      if (reps[i])
        ok.push_back(*reps[i]);
      else
        ++res.bootstrap_failed;
    }
    res.bootstrap.resize(static_cast<Eigen::Index>(ok.size()), P);
    for (std::size_t i = 0; i < ok.size(); ++i)
      res.bootstrap.row(static_cast<Eigen::Index>(i)) = ok[i].transpose();
  }

  // Estimates: the free parameters, then every insertion's offset (the last derived).
  const std::size_t nfree = o.parameters.size();
  auto add = [&](std::string name, units::dimension dim, double value, double se_k, double lo,
                 double hi, double start, const Eigen::VectorXd& coeff, bool derived) {
    const std::optional<Eigen::VectorXd> boot =
        res.bootstrap.rows() > 0 ? std::optional<Eigen::VectorXd>(res.bootstrap * coeff)
                                 : std::nullopt;
    parameter_estimate e{std::move(name),
                         dim,
                         unit_text(dim),
                         value,
                         se_k,
                         value - t * se_k,
                         value + t * se_k,
                         lo,
                         hi,
                         start,
                         std::nullopt,
                         std::nullopt,
                         std::nullopt,
                         std::nullopt,
                         std::nullopt,
                         std::nullopt,
                         derived};
    if (res.clustered_covariance.size() > 0) {
      const double se_cl = std::sqrt(coeff.dot(res.clustered_covariance * coeff));
      e.clustered_se = se_cl;
      e.clustered_low = value - t_cl * se_cl;
      e.clustered_high = value + t_cl * se_cl;
    }
    if (boot && boot->size() >= 2) {
      std::vector<double> v(boot->data(), boot->data() + boot->size());
      std::sort(v.begin(), v.end());
      const double mean = boot->mean();
      e.bootstrap_sd =
          std::sqrt((boot->array() - mean).square().sum() / static_cast<double>(boot->size() - 1));
      e.bootstrap_low = uq::sorted_quantile(v, 0.5 * (1.0 - o.confidence));
      e.bootstrap_high = uq::sorted_quantile(v, 0.5 * (1.0 + o.confidence));
    }
    res.parameters.push_back(std::move(e));
  };
  for (std::size_t k = 0; k < nfree; ++k) {
    const auto ik = static_cast<Eigen::Index>(k);
    add(o.parameters[k].name, pr.targets()[k].dim, q[ik], se[ik], pr.low(k), pr.high(k), first[ik],
        Eigen::VectorXd::Unit(P, ik), false);
  }
  res.insertions = pr.insertions();
  res.offsets = pr.offsets(q);
  if (o.offsets) {
    for (std::size_t k = 0; k < res.insertions.size(); ++k) {
      Eigen::VectorXd c = Eigen::VectorXd::Zero(P);  // offset k as a combination of q
      if (k + 1 < res.insertions.size())
        c[static_cast<Eigen::Index>(nfree + k)] = 1.0;
      else
        c.tail(P - static_cast<Eigen::Index>(nfree)).setConstant(-1.0);
      add(fmt::format("offset[{}]", res.insertions[k]), units::length, res.offsets[k],
          std::sqrt(c.dot(res.covariance * c)), o.offsets->first, o.offsets->second, 0.0, c,
          k + 1 == res.insertions.size());
    }
  }

  // The model at the optimum and the residual diagnostics.
  pr.set_model(q, res.params, res.groups);
  res.fitted = pr.forces(q);
  double sum2 = 0.0;
  std::size_t count = 0;
  for (std::size_t s = 0; s < data.strokes.size(); ++s) {
    const measured_stroke& st = data.strokes[s];
    stroke_diagnostics d{st.insertion, st.direction, st.x.size(), 0.0, 0.0, 0.0};
    for (std::size_t i = 0; i < st.x.size(); ++i) {
      const double e = res.fitted[s][i] - st.force[i];
      d.rms += e * e;
      d.bias += e;
      d.max_abs = std::max(d.max_abs, std::abs(e));
    }
    sum2 += d.rms;
    count += st.x.size();
    d.rms = std::sqrt(d.rms / static_cast<double>(st.x.size()));
    d.bias /= static_cast<double>(st.x.size());
    res.strokes.push_back(d);
  }
  res.rms = std::sqrt(sum2 / static_cast<double>(count));
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::string export_toml(const fit_result& result, const study::output_units& units,
                        const std::string& source) {
  std::string out = fmt::format(
      "# Fitted by contactuq fit from {}.\n"
      "# Each parameter: normal with the fitted value as mean and the largest of its standard "
      "errors\n"
      "# (Jacobian, insertion-clustered, bootstrap) as sd, i.e. the uncertainty of the estimate, "
      "not\n"
      "# part-to-part scatter. Paste into a `contactuq run` study.\n",
      source);
  std::vector<std::size_t> exported;
  for (std::size_t k = 0; k < result.parameters.size(); ++k) {
    const parameter_estimate& e = result.parameters[k];
    if (e.name.starts_with("offset[")) continue;
    exported.push_back(k);
    const units::dimension dim = e.dim;
    const std::string unit = units.unit_for(dim);
    const double sd =
        std::max({e.standard_error, e.clustered_se.value_or(0.0), e.bootstrap_sd.value_or(0.0)});
    auto value = [&](double si) {
      const double v = units.from_si(si, dim);
      return unit.empty() ? fmt::format("{:.6g}", v) : fmt::format("\"{:.6g} {}\"", v, unit);
    };
    out += fmt::format(
        "\n[parameters.{}]\nrole = \"aleatoric\"\ndistribution = \"normal\"\nmean = {}\nsd = {}\n",
        e.name, value(e.value), value(sd));
  }
  for (std::size_t a = 0; a < exported.size(); ++a)
    for (std::size_t b = a + 1; b < exported.size(); ++b) {
      const double r = result.correlation(static_cast<Eigen::Index>(exported[a]),
                                          static_cast<Eigen::Index>(exported[b]));
      const double rho = 6.0 / std::numbers::pi * std::asin(r / 2.0);
      out += fmt::format(
          "\n[[sampling.correlation]]   # Pearson r = {:.4f} of the estimates\nbetween = [\"{}\", "
          "\"{}\"]\n"
          "rho = {:.4f}\n",
          r, result.parameters[exported[a]].name, result.parameters[exported[b]].name, rho);
    }
  return out;
}

}  // namespace contactuq::calibrate
