// Reliability (method = "reliability"): the probability that a model's output violates its
// specification limit, P(g(X) <= 0), down to parts per million and below, by FORM, SORM,
// importance sampling around the design points, subset simulation or plain Monte Carlo
// (uq/reliability.hpp), with X the aleatoric inputs reached from standard normals by the Nataf
// transform (uq/nataf.hpp).
//
//   method = "reliability"
//   [model]                  any registered model
//   [parameters.<input>]     role = "aleatoric" (continuous distributions) or fixed values
//   [output.limits]          the event: <output> = { low = "...", high = "..." }; the margin is
//                            g = high - y (or y - low; the smaller of both when both are given),
//                            in the output's SI unit, from the continuous output
//   [reliability]            algorithm = "form" | "sorm" | "importance" | "subset" | "monte_carlo";
//                            output (default: the one limited output); seed (1);
//                            samples (importance, monte_carlo: in all; subset: per level);
//                            subset: p0, max_levels, proposal_scale, replicates, keep_samples;
//                            form, sorm, importance: starts, max_iterations, tolerance,
//                            difference_step; failures = "record" | "retry", retries;
//                            [[reliability.correlation]] between = [a, b], rho,
//                            kind = "spearman" (default) | "pearson" | "normal"
//
// Every batch of points an algorithm asks for is evaluated by the engine's block evaluator, in
// parallel over this process's threads (the same evaluator sample studies use), or over the
// ranks of an MPI job (`mpirun -n R contactuq run`: the run's executor, the same bits), under the
// study's failure policy; a failed evaluation is a NaN margin, counted, never taken as safe.
// Each batch is journaled to OUT.part before the algorithm sees it (reliability_journal.hpp):
// a run interrupted (a signal, --time-limit, --max-new) or killed continues with --resume, and
// gives the file an uninterrupted run gives.
#include <fmt/format.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "contactuq/error.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "methods.hpp"
#include "reliability_journal.hpp"
#include "reliability_method.hpp"

namespace contactuq::engine::detail {
namespace {

constexpr std::string_view algorithm_names[] = {"form", "sorm", "importance", "subset", "monte_carlo"};
constexpr std::string_view algorithm_titles[] = {"FORM", "SORM", "importance sampling around the design points",
                                                 "subset simulation", "plain Monte Carlo"};

// A [reliability] number that must lie in [low, high].
double bounded_number(const io::study_table& t, std::string_view key, double fallback, double low, double high) {
  const double v = t.quantity_or(key, units::dimensionless, fallback);
  if (!(v >= low && v <= high)) t.fail(key, fmt::format("must be a number in [{:g}, {:g}]", low, high));
  return v;
}
std::int64_t bounded_integer(const io::study_table& t, std::string_view key, std::int64_t fallback, std::int64_t low,
                             std::int64_t high) {
  const std::int64_t v = t.integer_or(key, fallback);
  if (v < low || v > high) t.fail(key, fmt::format("must be an integer in [{}, {}]", low, high));
  return v;
}

// The limited output and its limit: [reliability] output, else the only one [output.limits] has.
void read_event(const io::study_document& doc, const io::study_table& t, reliability_study& r) {
  const io::study_table root = doc.root();
  std::vector<io::named_dimension> outputs;
  for (const auto& v : r.study.model.outputs()) outputs.push_back({v.name, v.dim});
  const auto output = root.optional_table("output");
  const std::vector<io::output_limit> limits =
      output ? io::read_output_limits(*output, outputs) : std::vector<io::output_limit>{};
  if (limits.empty())
    root.fail("a reliability study needs the failure event as a limit on an output: [output.limits] <output> = "
              "{ high = \"...\" } (or low)");
  std::string name = t.string_or("output", limits.size() == 1 ? limits.front().name : "");
  if (name.empty())
    t.fail(fmt::format("[output.limits] limits {} outputs: say which one this study is about with output = \"...\"",
                       limits.size()));
  const auto limit = std::find_if(limits.begin(), limits.end(), [&](const auto& l) { return l.name == name; });
  if (limit == limits.end()) {
    std::string known;
    for (const auto& l : limits) known += (known.empty() ? "" : ", ") + l.name;
    t.fail("output", fmt::format("\"{}\" has no limit in [output.limits]; limited: {}", name, known));
  }
  r.limit = *limit;
  const auto at = std::find_if(outputs.begin(), outputs.end(), [&](const auto& o) { return o.name == name; });
  r.output = static_cast<std::size_t>(at - outputs.begin());
  // The event in the study's [output] units, as summarize shows limits.
  const io::display_units shown = output ? io::read_display_units(*output, outputs) : io::display_units{};
  const units::dimension dim = outputs[r.output].dim;
  const double factor = shown.factor(name, dim);
  const std::string unit = shown.unit_for(name, dim), u = unit.empty() ? std::string() : " " + unit;
  if (std::isinf(r.limit.low)) r.event = fmt::format("{} > {:.6g}{}", name, r.limit.high * factor, u);
  else if (std::isinf(r.limit.high)) r.event = fmt::format("{} < {:.6g}{}", name, r.limit.low * factor, u);
  else r.event = fmt::format("{} outside [{:.6g}, {:.6g}]{}", name, r.limit.low * factor, r.limit.high * factor, u);
}

void read_correlations(const io::study_table& t, reliability_study& r) {
  if (!t.has("correlation")) return;
  for (const io::study_table& c : t.tables("correlation")) {
    c.allow_only({"between", "rho", "kind"});
    const auto between = c.strings("between");
    uq::correlation_pair p;
    for (int k = 0; k < 2 && between.size() == 2; ++k) {
      const auto at = std::find_if(r.random.begin(), r.random.end(),
                                   [&](std::size_t i) { return r.study.inputs[i].name == between[static_cast<std::size_t>(k)]; });
      if (at == r.random.end())
        c.fail("between", fmt::format("\"{}\" is not an aleatoric parameter", between[static_cast<std::size_t>(k)]));
      (k == 0 ? p.i : p.j) = static_cast<std::size_t>(at - r.random.begin());
    }
    if (between.size() != 2 || p.i == p.j) c.fail("between", "must name two different aleatoric parameters");
    p.rho = c.quantity("rho", units::dimensionless);
    if (!(std::abs(p.rho) < 1)) c.fail("rho", "must be in (-1, 1)");
    const std::string kind = c.choice("kind", {"spearman", "pearson", "normal"}, "spearman");
    p.kind = kind == "pearson" ? uq::correlation_kind::pearson
             : kind == "normal" ? uq::correlation_kind::normal
                                : uq::correlation_kind::spearman;
    r.correlations.push_back(p);
  }
}

void read_options(const io::study_table& t, reliability_study& r) {
  const std::string a = t.choice("algorithm", {"form", "sorm", "importance", "subset", "monte_carlo"});
  r.algorithm = static_cast<reliability_algorithm>(
      std::find(std::begin(algorithm_names), std::end(algorithm_names), a) - std::begin(algorithm_names));
  const auto seed = static_cast<std::uint64_t>(bounded_integer(t, "seed", 1, 0, std::numeric_limits<std::int64_t>::max()));
  r.form.seed = r.importance.seed = r.subset.seed = seed;
  r.form.starts = static_cast<int>(bounded_integer(t, "starts", r.algorithm == reliability_algorithm::importance ? 8 : 1, 1, 1000));
  r.form.max_iterations = static_cast<int>(bounded_integer(t, "max_iterations", 100, 1, 10000));
  r.form.tolerance = bounded_number(t, "tolerance", 1e-6, 1e-12, 1e-2);
  r.form.difference_step = bounded_number(t, "difference_step", 1e-4, 1e-10, 1);
  const bool subset = r.algorithm == reliability_algorithm::subset;
  r.importance.samples = static_cast<std::size_t>(bounded_integer(t, "samples", subset ? 2000 : 10000, subset ? 100 : 10, 1'000'000'000));
  r.subset.samples_per_level = r.importance.samples;
  r.subset.p0 = bounded_number(t, "p0", 0.1, 0.01, 0.5);
  r.subset.max_levels = static_cast<int>(bounded_integer(t, "max_levels", 30, 1, 100));
  r.subset.proposal_scale = bounded_number(t, "proposal_scale", 1.0, 1e-3, 10);
  r.subset.replicates = static_cast<std::size_t>(bounded_integer(t, "replicates", 1, 1, 10000));
  r.subset.keep_samples = t.boolean_or("keep_samples", false);
  try {
    r.form.validate();
    r.subset.validate();
  } catch (const parameter_error& e) {
    t.fail(e);
  }
  const std::string failures = t.choice("failures", {"record", "retry"}, "record");
  r.study.sampling.failures = failures == "retry" ? study::failure_policy::retry : study::failure_policy::record;
  r.study.sampling.retries = static_cast<int>(bounded_integer(t, "retries", 2, 1, 100));
}

reliability_study read_reliability_study(const io::study_document& doc) {
  reliability_study r{study::read_ensemble_study(
                          doc, {.method_tables = {"reliability"}, .sampling = false, .study_kind = "a reliability study"}),
                      {}, {}, 0, {}, {}, reliability_algorithm::form, {}, {}, {}};
  const io::study_table root = doc.root();
  if (r.study.cases.size() > 1)
    root.table("parameters").fail("a reliability study has one model: give epistemic parameters as fixed values, "
                                  "or run one reliability study per case");
  if (!root.has("reliability")) root.fail("a reliability study needs a [reliability] table with its algorithm");
  const io::study_table t = root.table("reliability");
  t.allow_only({"algorithm", "output", "seed", "samples", "p0", "max_levels", "proposal_scale", "replicates",
                "keep_samples", "starts", "max_iterations", "tolerance", "difference_step", "failures", "retries",
                "correlation"});
  r.random = r.study.aleatoric();
  read_event(doc, t, r);
  read_correlations(t, r);
  read_options(t, r);
  return r;
}

uq::nataf_transform transform_of(const io::study_document& doc, const reliability_study& r) {
  std::vector<uq::distribution> marginals;
  std::vector<std::string> names;
  for (std::size_t i : r.random) marginals.push_back(*r.study.inputs[i].distribution), names.push_back(r.study.inputs[i].name);
  try {
    return uq::nataf_transform(marginals, r.correlations, names);
  } catch (const parameter_error& e) {
    doc.root().table("reliability").fail(e.what());
  }
}

// What the model gave at a batch of points: the margins and the outputs and status they came from.
struct margin_batch {
  Eigen::VectorXd g;
  io::sample_matrix outputs;
  std::vector<std::int32_t> status;
  bool cancelled = false;  ///< cut short by run_options::cancel: not a result, dropped
};

// Thrown through the algorithm when the run stops before its next batch (a signal, the time
// limit, max_new); what was evaluated is in the journal.
struct run_stopped {};

// The scalar outputs and statuses of every block, each at its rows.
class output_sink : public study::sample_sink {
 public:
  output_sink(std::size_t rows, std::size_t cols)
      : outputs(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols)), status(rows) {}
  void append(const io::ensemble_block& b) override {
    outputs.middleRows(static_cast<Eigen::Index>(b.first), b.outputs.rows()) = b.outputs;
    std::copy(b.status.begin(), b.status.end(), status.begin() + static_cast<std::ptrdiff_t>(b.first));
  }
  io::sample_matrix outputs;
  std::vector<std::int32_t> status;
};

// The margin g(u) of a batch of points: replayed from the journal while it holds the batch (a
// resumed run), else evaluated (on this process's threads or over the run's executor) and
// appended to it before the algorithm sees it.
class model_margin {
 public:
  model_margin(const reliability_study& r, const uq::nataf_transform& t, reliability_journal& journal,
               const io::study_document& doc, const run_options& o)
      : r_(r), t_(t), journal_(journal), doc_(doc), o_(o), batch_(r.study) {}

  // A large batch (subset simulation's level 0, a Monte Carlo block) goes in parts of at most
  // part_rows points, each journaled on its own: an interruption loses at most one part, and
  // the run stops within about one part's time. Every point is evaluated on its own, so the
  // parts give the margins the whole batch gives.
  static constexpr Eigen::Index part_rows = 1000;

  Eigen::VectorXd operator()(const Eigen::MatrixXd& u) {
    if (u.rows() <= part_rows) return margins(u);
    Eigen::VectorXd g(u.rows());
    for (Eigen::Index first = 0; first < u.rows(); first += part_rows) {
      const Eigen::Index n = std::min(part_rows, u.rows() - first);
      g.segment(first, n) = margins(u.middleRows(first, n));
    }
    return g;
  }

  std::size_t evaluated() const noexcept { return evaluated_; }  ///< model runs of this process

 private:
  // Replayed, or evaluated and journaled.
  Eigen::VectorXd margins(const Eigen::MatrixXd& u) {
    if (auto g = journal_.replay(u)) return std::move(*g);
    const auto n = static_cast<std::size_t>(u.rows());
    if ((o_.stop && *o_.stop) || (o_.cancel && *o_.cancel) || (o_.max_new > 0 && evaluated_ + n > o_.max_new))
      throw run_stopped{};
    margin_batch b = evaluate(u);
    if (b.cancelled) throw run_stopped{};
    journal_.append(u, b.outputs, b.g, b.status);
    evaluated_ += n;
    return std::move(b.g);
  }

  // The points' inputs through the transform, evaluated; g from the limited output (NaN for a
  // failed one).
  margin_batch evaluate(const Eigen::MatrixXd& u) {
    const Eigen::MatrixXd random = t_.to_physical(u);
    const auto n = static_cast<std::size_t>(u.rows());
    io::sample_matrix x(u.rows(), static_cast<Eigen::Index>(r_.study.inputs.size()));
    for (std::size_t i = 0; i < r_.study.inputs.size(); ++i) x.col(static_cast<Eigen::Index>(i)).setConstant(r_.study.inputs[i].value);
    for (std::size_t k = 0; k < r_.random.size(); ++k)
      x.col(static_cast<Eigen::Index>(r_.random[k])) = random.col(static_cast<Eigen::Index>(k));
    margin_batch b = evaluate_rows(x);
    if (b.cancelled) return b;
    b.g.resize(u.rows());
    for (std::size_t i = 0; i < n; ++i) {
      const double y = b.outputs(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(r_.output));
      b.g(static_cast<Eigen::Index>(i)) = std::min(r_.limit.high - y, y - r_.limit.low);  // NaN stays NaN
    }
    return b;
  }

  // The outputs and statuses of the rows x: over the run's executor (the ranks of an MPI job)
  // when it has one, else on this process's threads; the same bits either way.
  margin_batch evaluate_rows(const io::sample_matrix& x) {
    const auto n = static_cast<std::size_t>(x.rows());
    batch_.sampling.samples = n;
    const study::sample_plan plan(batch_, x);  // given rows: an executor sends them to the ranks
    margin_batch b;
    if (!o_.executor || n == 0) {
      study::evaluated_block e = study::block_evaluator(batch_, plan)(0, n, o_.cancel);
      b.cancelled = e.cancelled;
      b.outputs = std::move(e.block.outputs);
      b.status = std::move(e.block.status);
      return b;
    }
    output_sink sink(n, batch_.model.outputs().size());
    study::run_options ro;
    ro.threads = o_.threads;
    ro.cancel = o_.cancel;
    const study::run_summary done = o_.executor->run(doc_, batch_, plan, sink, ro);
    if (done.completed != n && o_.cancel && *o_.cancel) {
      b.cancelled = true;
      return b;
    }
    if (done.completed != n)
      throw std::runtime_error(fmt::format("{}: a batch of {} model evaluations stopped after {}", doc_.file(), n,
                                           done.completed));
    b.outputs = std::move(sink.outputs);
    b.status = std::move(sink.status);
    return b;
  }

  const reliability_study& r_;
  const uq::nataf_transform& t_;
  reliability_journal& journal_;
  const io::study_document& doc_;
  const run_options& o_;
  study::ensemble_study batch_;  // the study with N = the batch's size
  std::size_t evaluated_ = 0;
};

void add_calls(uq::probability_estimate& to, const uq::probability_estimate& from) {
  to.model_calls += from.model_calls;
  to.failed_calls += from.failed_calls;
}

// FORM, then what needs its design points (SORM, importance sampling).
reliability_outcome run_with_design_point(const reliability_study& r, const uq::limit_state& g) {
  reliability_outcome out;
  out.form = uq::run_form(g, r.random.size(), r.form);
  const uq::form_result& best = out.form->best;
  out.probability = best.probability;
  for (const auto& other : out.form->others) add_calls(out.probability, other.probability);
  if (!best.converged) {
    out.resolved = false;
    out.note = fmt::format("FORM found no design point: {}", best.message);
    return out;
  }
  if (r.algorithm == reliability_algorithm::sorm) {
    out.sorm = uq::run_sorm(g, best, r.form);
    const auto form_calls = out.probability;
    out.probability = out.sorm->probability;
    add_calls(out.probability, form_calls);
  } else if (r.algorithm == reliability_algorithm::importance) {
    uq::importance_options o = r.importance;
    o.centres = {best.u_star};
    for (const auto& other : out.form->others) o.centres.push_back(other.u_star);
    out.importance = uq::run_importance(g, r.random.size(), o);
    const auto form_calls = out.probability;
    out.probability = out.importance->probability;
    add_calls(out.probability, form_calls);
  }
  return out;
}

reliability_outcome run_algorithm(const reliability_study& r, const uq::limit_state& g) {
  const std::size_t d = r.random.size();
  switch (r.algorithm) {
    case reliability_algorithm::form:
    case reliability_algorithm::sorm:
    case reliability_algorithm::importance:
      return run_with_design_point(r, g);
    case reliability_algorithm::subset: {
      reliability_outcome out;
      out.subset = uq::run_subset(g, d, r.subset);
      out.probability = out.subset->probability;
      for (const auto& run : out.subset->runs)
        if (!run.reached_failure) {
          out.resolved = false;
          out.note = fmt::format("subset simulation reached max_levels = {} before the failure domain: the "
                                 "probability is below about {:.3g}; raise max_levels",
                                 r.subset.max_levels, std::pow(r.subset.p0, r.subset.max_levels));
        }
      return out;
    }
    case reliability_algorithm::monte_carlo: {
      reliability_outcome out;
      uq::importance_options o = r.importance;
      o.centres.clear();
      out.importance = uq::run_importance(g, d, o);
      out.probability = out.importance->probability;
      if (out.probability.estimate == 0.0) {
        out.resolved = false;
        out.note = fmt::format("no failure in {} samples: P(failure) < {:.3g} (95 %); plain Monte Carlo needs about "
                               "100 / P samples for a coefficient of variation of 0.1 (over {:.3g} here): use "
                               "subset simulation or importance sampling",
                               o.samples, out.probability.ci_high, 100 / out.probability.ci_high);
      }
      return out;
    }
  }
  return {};
}

std::size_t planned_calls(const reliability_study& r) {
  switch (r.algorithm) {
    case reliability_algorithm::subset: return r.subset.samples_per_level * r.subset.replicates;
    case reliability_algorithm::monte_carlo: return r.importance.samples;
    default: return static_cast<std::size_t>(r.form.starts) * (r.random.size() + 1);
  }
}

// The run's journal at OUT.part: continued with --resume, else new (run_study refused an
// unfinished run unless --force).
reliability_journal open_journal(const io::study_document& doc, const run_options& o, const path& out) {
  const path part = io::unfinished_path(out);
  if (!o.resume) return reliability_journal::create(part, doc.text());
  if (std::filesystem::exists(part)) return reliability_journal::resume(part, doc.text());
  if (std::filesystem::exists(out))
    throw std::invalid_argument(fmt::format("cannot resume {}: the run is finished; nothing to resume. Run without "
                                            "--resume and with --force to start it over",
                                            out.string()));
  throw std::invalid_argument(fmt::format("cannot resume {}: no such file (nor {})", out.string(), part.string()));
}

run_result run_reliability(const io::study_document& doc, const run_options& o, const path& out) {
  const reliability_study r = read_reliability_study(doc);
  const uq::nataf_transform t = transform_of(doc, r);
  run_result result{.method_name = "reliability", .output = out, .planned = planned_calls(r),
                    .model = r.study.model.name()};
  if (o.check_only) return result;
  io::make_parent_folder(out);
  std::optional<tbb::global_control> limit;
  // An executor sizes its own threads: a limit here would leave it none beside the one calling MPI.
  if (o.threads > 0 && !o.executor) limit.emplace(tbb::global_control::max_allowed_parallelism, o.threads);
  reliability_journal journal = open_journal(doc, o, out);
  std::FILE* to = report(o);
  if (o.resume) {
    const bool one = journal.recorded() == 1;
    fmt::print(to, "resuming: {} batch{} in {} {} replayed{}\n", journal.recorded(), one ? "" : "es",
               journal.file().string(), one ? "is" : "are",
               journal.dropped_bytes() > 0
                   ? fmt::format(" (a last one cut short by the interruption, {} bytes, is dropped)",
                                 journal.dropped_bytes())
                   : "");
    std::fflush(to);
  }
  model_margin margin(r, t, journal, doc, o);
  reliability_outcome outcome;
  try {
    outcome = run_algorithm(r, [&](const Eigen::MatrixXd& u) { return margin(u); });
  } catch (const run_stopped&) {
    fmt::print(errors(o),
               "\ncontactuq run: interrupted; {} batch{} of model runs {} in {}. Continue with:\n  contactuq run {} "
               "-o {} --resume\n",
               journal.recorded(), journal.recorded() == 1 ? "" : "es", journal.recorded() == 1 ? "is" : "are",
               journal.file().string(), doc.file(), out.string());
    result.exit_code = 130;
    return result;
  }
  const to_inputs x = [&](const Eigen::VectorXd& u) -> Eigen::VectorXd {
    return t.to_physical(u.transpose()).row(0).transpose();
  };
  fmt::print(to, "{}", reliability_report(r, outcome, x));
  // Written beside the journal and renamed into place; the journal goes only then, so that a
  // kill at any instant leaves either the journal or the result (or both: a resume rewrites it).
  path written = out;
  written += ".new";
  try {
    write_reliability_hdf5(written, doc, r, outcome, x);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(written, ignored);
    throw;
  }
  std::filesystem::rename(written, out);
  journal.remove();
  fmt::print(to, "wrote {}{}\n", out.string(),
             journal.replayed_points() > 0
                 ? fmt::format(" ({} model runs replayed from the interrupted run, {} new)", journal.replayed_points(),
                               margin.evaluated())
                 : "");
  result.planned = outcome.probability.model_calls;
  result.failed = outcome.probability.failed_calls;
  result.exit_code = outcome.resolved ? 0 : 1;
  return result;
}

}  // namespace

std::string_view to_string(reliability_algorithm a) { return algorithm_names[static_cast<std::size_t>(a)]; }
std::string_view title_of(reliability_algorithm a) { return algorithm_titles[static_cast<std::size_t>(a)]; }

method reliability_method() {
  return {.name = "reliability",
          .summary = "P(failure) of a limit on an output, to parts per million and below: FORM, SORM, importance "
                     "sampling, subset simulation, Monte Carlo",
          .counts = "model evaluations (first batch)",
          .resumable = true,
          .run = run_reliability};
}

}  // namespace contactuq::engine::detail
