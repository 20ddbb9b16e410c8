#include "contactuq/calibrate/fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>

#include "contactuq/error.hpp"

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

// The least-squares problem over the independent parameters q: the free parameters, then the
// offsets of insertions 1..n-1 (the last is minus their sum).
class problem final : public residual_problem {
 public:
  problem(const insertion_model& model, const insertion_data& data, const fit_options& options)
      : model_(model), data_(std::make_shared<const insertion_data>(data)), options_(options),
        insertions_(data.insertions()) {
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
    clusters_ = insertions_.size();
    for (const auto& s : data.strokes) {
      stroke_insertion_.push_back(static_cast<std::size_t>(
          std::find(insertions_.begin(), insertions_.end(), s.insertion) - insertions_.begin()));
      cluster_.insert(cluster_.end(), s.x.size(), stroke_insertion_.back());
      for (std::size_t i = 0; i < s.x.size(); ++i)
        penalty_ = std::max(penalty_, std::sqrt(s.weight[i]) * std::abs(s.force[i]));
    }
    penalty_ = 1e3 * (penalty_ + 1.0);
  }

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
    out.reserve(data_->strokes.size());
    for (std::size_t s = 0; s < data_->strokes.size(); ++s) {
      const measured_stroke& st = data_->strokes[s];
      auto& f = out.emplace_back(st.x.size());
      const double offset = o[stroke_insertion_[s]];
      for (std::size_t i = 0; i < st.x.size(); ++i)
        f[i] = model_force(r, st.x[i] + offset, st.direction, model_.v_norm);
    }
    return out;
  }

  // r~ at q; false (and penalty residuals) where the model has no solution.
  bool residual(const Eigen::VectorXd& q, Eigen::VectorXd& r) const override {
    r.resize(static_cast<Eigen::Index>(residuals()));
    try {
      const auto f = forces(q);
      Eigen::Index j = 0;
      for (std::size_t s = 0; s < f.size(); ++s) {
        const measured_stroke& st = data_->strokes[s];
        for (std::size_t i = 0; i < f[s].size(); ++i, ++j)
          r[j] = robust_residual(std::sqrt(st.weight[i]) * (f[s][i] - st.force[i]), options_.loss,
                        options_.loss_scale);
      }
      return true;
    } catch (const model_error&) {
    } catch (const parameter_error&) {
    }
    r.setConstant(penalty_);
    return false;
  }

  // Whole insertions drawn with replacement, relabelled by their slot.
  std::unique_ptr<residual_problem> resample(const std::vector<std::size_t>& picks) const override {
    insertion_data d;
    d.length_unit = data_->length_unit;
    d.force_unit = data_->force_unit;
    for (std::size_t slot = 0; slot < picks.size(); ++slot)
      for (const auto& s : data_->strokes)
        if (s.insertion == insertions_[picks[slot]]) {
          d.strokes.push_back(s);
          d.strokes.back().insertion = fmt::format("{}", slot);
        }
    return std::make_unique<problem>(model_, d, options_);
  }

 private:
  const insertion_model& model_;
  std::shared_ptr<const insertion_data> data_;
  const fit_options& options_;
  std::vector<std::string> insertions_;
  std::vector<target> targets_;
  std::vector<std::size_t> stroke_insertion_;
  double penalty_ = 0.0;
};

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

}  // namespace

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

namespace {

// The first start of each free parameter (the study's start or the model's value), after
// checking that both bounds are values the model accepts.
Eigen::VectorXd first_start(const problem& pr, const insertion_model& model,
                            const fit_options& o) {
  Eigen::VectorXd first = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(pr.size()));
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
    const auto ik = static_cast<Eigen::Index>(k);
    first[ik] = fp.start.value_or(read(t, model.params, model.groups));
    if (!(first[ik] >= fp.low && first[ik] <= fp.high))
      throw parameter_error(
          fp.name, fmt::format("{} = {} {} of [model] is the first start and must lie within "
                               "the bounds [{}, {}]; give a start or widen the bounds",
                               fp.name, first[ik], unit_text(t.dim), fp.low, fp.high));
  }
  return first;
}

// Points with weight > 0; more than the independent parameters.
std::size_t count_points(const problem& pr, const insertion_data& data) {
  std::size_t n = 0;
  for (const auto& s : data.strokes)
    for (double w : s.weight) n += w > 0;
  if (n <= pr.size())
    throw data_error(
        data.strokes.front().file, 0,
        fmt::format(
            "{} points with weight > 0 for {} free parameters: the fit needs more points than "
            "parameters",
            n, pr.size()));
  return n;
}

parameter_labels labels_of(const problem& pr, const insertion_data& data, const fit_options& o) {
  parameter_labels l;
  for (std::size_t k = 0; k < o.parameters.size(); ++k) {
    l.names.push_back(o.parameters[k].name);
    l.dims.push_back(pr.targets()[k].dim);
  }
  for (std::size_t k = o.parameters.size(); k < pr.size(); ++k) {
    l.names.push_back(fmt::format("offset[{}]", pr.insertions()[k - o.parameters.size()]));
    l.dims.push_back(units::length);
  }
  l.no_solution_hint =
      " (friction lock or a geometry it cannot represent): the bounds exclude any fit; narrow "
      "mu's upper bound or move the geometric bounds";
  for (const auto& s : data.strokes)
    for (std::size_t i = 0; i < s.x.size(); ++i)
      l.cost_scale += s.weight[i] * s.force[i] * s.force[i];
  return l;
}

// Every insertion's offset as a combination of q (the last is minus the sum of the others).
void add_offsets(const problem& pr, const Eigen::VectorXd& q, const fit_options& o,
                 fit_result& res) {
  res.insertions = pr.insertions();
  res.offsets = pr.offsets(q);
  if (!o.offsets) return;
  const auto P = q.size();
  const std::size_t nfree = o.parameters.size();
  for (std::size_t k = 0; k < res.insertions.size(); ++k) {
    Eigen::VectorXd c = Eigen::VectorXd::Zero(P);
    if (k + 1 < res.insertions.size())
      c[static_cast<Eigen::Index>(nfree + k)] = 1.0;
    else
      c.tail(P - static_cast<Eigen::Index>(nfree)).setConstant(-1.0);
    res.parameters.push_back(linear_estimate(res, fmt::format("offset[{}]", res.insertions[k]),
                                             units::length, res.offsets[k], c, o.offsets->first,
                                             o.offsets->second, 0.0,
                                             k + 1 == res.insertions.size()));
  }
}

// The model at the optimum and the residuals of every stroke.
void add_diagnostics(const problem& pr, const Eigen::VectorXd& q, const insertion_data& data,
                     fit_result& res) {
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
}

}  // namespace

fit_result fit(const insertion_model& model, const insertion_data& data, const fit_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  model.validate();
  o.validate();
  if (data.strokes.empty()) throw data_error("data", 0, "no strokes to fit");
  const problem pr(model, data, o);
  const Eigen::VectorXd first = first_start(pr, model, o);
  const std::size_t n_points = count_points(pr, data);
  if (o.offsets && pr.insertions().size() < 2)
    throw parameter_error("offsets", "per-insertion offsets need at least two insertions");
  if (o.bootstrap > 0 && pr.insertions().size() < 2)
    throw parameter_error("bootstrap",
                          "the bootstrap over insertions needs at least two insertions");
  check_reaches_contact(pr, model, data, o);

  fit_result res;
  const Eigen::VectorXd q = solve(pr, first, o, labels_of(pr, data, o), n_points, res);
  add_offsets(pr, q, o, res);
  add_diagnostics(pr, q, data, res);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::string export_toml(const least_squares_result& result, const study::output_units& units,
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
