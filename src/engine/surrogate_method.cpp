// Surrogates (method = "surrogate"): a polynomial chaos expansion or a Gaussian process of
// chosen outputs of any model over the study's aleatoric inputs, validated honestly, written as a
// file that rebuilds it without contactuq and that `[model] type = "surrogate"` evaluates
// (model/surrogate_model.hpp, docs/surrogates.md).
//
//   method = "surrogate"
//   [model], [parameters.<input>]   as a sample study; the aleatoric inputs are the surrogate's
//                           inputs (independent: no [[sampling.correlation]]), the others stay
//                           fixed
//   [sampling]              the training design (the sample method's: design, samples, seed,
//                           failures), evaluated by the ensemble run, so failures are recorded and
//                           -j, MPI and --resume apply; written to <output>.training.h5 beside the
//                           result. Or none, with
//   [surrogate] from = "results.h5"   an existing ensemble file: its rows with status ok are the
//                           training points, the model is not evaluated
//   [surrogate] kind = "pce" | "gp"; outputs = [names] (default: every output); degree = largest
//   total
//                           degree tried (default 10); adaptive_degree = true (choose 1..degree by
//                           corrected LOO); q_norm = 1 (hyperbolic truncation, (0, 1]); selection =
//                           "lars" | "full"; folds = K (default 5) and fold_seed (default 1) of the
//                           K-fold cross-validation that repeats the whole selection in every fold;
//                           q2_warning = 0.9 (summarize warns below); test_samples = N_test (0:
//                           none) and test_seed (default 2): an independent Monte Carlo test set
//                           evaluated by the model
//   kind = "gp" (uq/gaussian_process.hpp) instead of the PCE keys: kernel = "matern52" |
//                           "squared_exponential", trend = "constant" | "linear",
//                           estimate_nugget = false, starts = 10 and seed = 1 of the maximum-
//                           likelihood multistart (repeated in every fold); its mean and variance
//                           are sampled (4096 points), it gives no Sobol indices
//
// The result file (format "contactuq-surrogate") is separate from the training ensemble: it is
// the same whether the points came from [sampling] or from a file, and it stays small (what a
// surrogate model loads), while the training ensemble stays an ordinary ensemble file that
// summarize and plot read as any other.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <tuple>

#include "contactuq/error.hpp"
#include "contactuq/io/result_file.hpp"
#include "contactuq/model/surrogate_model.hpp"
#include "contactuq/study/surrogate_summary.hpp"
#include "contactuq/uq/cross_validation.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/gaussian_process.hpp"
#include "contactuq/uq/pce.hpp"
#include "ensemble_run.hpp"

namespace contactuq::engine::detail {
namespace {

struct surrogate_study {
  study::ensemble_study study;
  std::vector<std::size_t> random;   ///< the aleatoric inputs: indices into study.inputs
  std::vector<std::size_t> outputs;  ///< indices into the model's outputs
  std::string kind = "pce";
  uq::pce_options pce;
  uq::gp_options gp;
  uq::cross_validation_options cv;
  double q2_warning = 0.9;
  std::size_t test_samples = 0;
  std::uint64_t test_seed = 2;
  std::filesystem::path from;  ///< "" : train on [sampling]
};

surrogate_study read_surrogate_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  const auto t = root.optional_table("surrogate");
  std::filesystem::path from;
  if (t && t->has("from")) {
    from = t->string("from");
    if (from.is_relative()) from = std::filesystem::path(doc.file()).parent_path() / from;
    if (root.has("sampling"))
      root.table("sampling")
          .fail("samples",
                "a surrogate study trains either on [sampling] or on [surrogate] from "
                "= \"<ensemble file>\", not both");
    if (!std::filesystem::exists(from))
      t->fail("from",
              fmt::format("{} does not exist (relative paths are taken from the study's folder)",
                          from.string()));
  }
  surrogate_study m{study::read_ensemble_study(doc, {.method_tables = {"surrogate"},
                                                     .sampling = from.empty(),
                                                     .study_kind = "a surrogate study"}),
                    {},
                    {},
                    "pce",
                    {},
                    {},
                    {},
                    0.9,
                    0,
                    2,
                    from};
  if (m.study.cases.size() > 1)
    root.table("parameters")
        .fail(
            "a surrogate is built over the aleatoric inputs of one model: give epistemic "
            "parameters as fixed values, or build one surrogate per case");
  if (m.study.sampling.rank_correlation.size() > 0)
    root.table("sampling")
        .fail("correlation",
              "a surrogate's inputs must be independent for now (a PCE of "
              "correlated inputs needs a Nataf transform first): remove "
              "[[sampling.correlation]]");
  if (m.study.sampling.sobol)
    root.table("sampling")
        .fail("sobol",
              "a surrogate reads its Sobol indices from the expansion: remove sobol = true");
  m.random = m.study.aleatoric();
  for (std::size_t i : m.random) {
    const auto& in = m.study.inputs[i];
    if (in.distribution->is_discrete())
      root.table("parameters")
          .table(in.name)
          .fail("distribution", "a polynomial chaos input must be continuous");
  }
  const auto& outputs = m.study.model.outputs();
  if (t) {
    m.kind = t->choice("kind", {"pce", "gp"}, "pce");
    if (m.kind == "pce")
      t->allow_only({"kind", "from", "outputs", "degree", "adaptive_degree", "q_norm", "selection",
                     "folds", "fold_seed", "q2_warning", "test_samples", "test_seed"});
    else
      t->allow_only({"kind", "from", "outputs", "kernel", "trend", "estimate_nugget", "starts",
                     "seed", "folds", "fold_seed", "q2_warning", "test_samples", "test_seed"});
    m.gp.kernel = t->choice("kernel", {"matern52", "squared_exponential"}, "matern52") == "matern52"
                      ? uq::gp_kernel::matern52
                      : uq::gp_kernel::squared_exponential;
    m.gp.trend = t->choice("trend", {"constant", "linear"}, "constant") == "constant"
                     ? uq::gp_trend::constant
                     : uq::gp_trend::linear;
    m.gp.estimate_nugget = t->boolean_or("estimate_nugget", false);
    const std::int64_t starts = t->integer_or("starts", 10), gp_seed = t->integer_or("seed", 1);
    if (starts < 1 || starts > 1000) t->fail("starts", "must be an integer in [1, 1000]");
    if (gp_seed < 0) t->fail("seed", "must be an integer >= 0");
    m.gp.starts = static_cast<std::size_t>(starts);
    m.gp.seed = static_cast<std::uint64_t>(gp_seed);
    if (t->has("outputs")) {
      for (const auto& name : t->strings("outputs")) {
        const auto it = std::find_if(outputs.begin(), outputs.end(),
                                     [&](const auto& v) { return v.name == name; });
        if (it == outputs.end()) {
          std::string known;
          for (const auto& v : outputs) known += (known.empty() ? "" : ", ") + v.name;
          t->fail("outputs", fmt::format("\"{}\" is no output of model {}; its outputs: {}", name,
                                         m.study.model.name(), known));
        }
        const auto j = static_cast<std::size_t>(it - outputs.begin());
        if (std::find(m.outputs.begin(), m.outputs.end(), j) != m.outputs.end())
          t->fail("outputs", fmt::format("\"{}\" is listed twice", name));
        m.outputs.push_back(j);
      }
    }
    const std::int64_t degree = t->integer_or("degree", 10);
    if (degree < 1 || degree > 40) t->fail("degree", "must be an integer in [1, 40]");
    m.pce.max_degree = static_cast<unsigned>(degree);
    m.pce.adaptive_degree = t->boolean_or("adaptive_degree", true);
    m.pce.q_norm = t->has("q_norm") ? t->quantity("q_norm", units::dimensionless) : 1.0;
    if (!(m.pce.q_norm > 0.0 && m.pce.q_norm <= 1.0)) t->fail("q_norm", "must be in (0, 1]");
    m.pce.selection = t->choice("selection", {"lars", "full"}, "lars") == "full"
                          ? uq::pce_selection::full
                          : uq::pce_selection::lars;
    const std::int64_t folds = t->integer_or("folds", 5), fold_seed = t->integer_or("fold_seed", 1);
    if (folds < 2 || folds > 100) t->fail("folds", "must be an integer in [2, 100]");
    if (fold_seed < 0) t->fail("fold_seed", "must be an integer >= 0");
    m.cv = {static_cast<std::size_t>(folds), static_cast<std::uint64_t>(fold_seed)};
    m.q2_warning = t->has("q2_warning") ? t->quantity("q2_warning", units::dimensionless) : 0.9;
    if (!(m.q2_warning <= 1.0)) t->fail("q2_warning", "must be a number <= 1");
    const std::int64_t test = t->integer_or("test_samples", 0),
                       test_seed = t->integer_or("test_seed", 2);
    if (test < 0 || test > 10'000'000)
      t->fail("test_samples", "must be an integer in [0, 10000000]");
    if (test_seed < 0) t->fail("test_seed", "must be an integer >= 0");
    m.test_samples = static_cast<std::size_t>(test);
    m.test_seed = static_cast<std::uint64_t>(test_seed);
  }
  if (m.outputs.empty())
    for (std::size_t j = 0; j < outputs.size(); ++j) m.outputs.push_back(j);
  return m;
}

// The training ensemble's file: beside the result, named after it.
std::filesystem::path training_path(const std::filesystem::path& out) {
  std::filesystem::path p = out;
  return p.replace_extension(".training.h5");
}

struct training_points {
  Eigen::MatrixXd x, y;  ///< rows with status ok and finite values
  std::size_t rows = 0, dropped = 0;
};

// The rows of an ensemble file with status ok and finite chosen outputs.
training_points read_training(const surrogate_study& m, const std::filesystem::path& file,
                              const io::study_table* from_table) {
  const io::ensemble e = io::read_ensemble(file, {.curves = false});
  std::vector<std::size_t> in_cols, out_cols;
  try {
    for (std::size_t i : m.random) in_cols.push_back(e.input_index(m.study.inputs[i].name));
    for (std::size_t j : m.outputs)
      out_cols.push_back(e.output_index(m.study.model.outputs()[j].name));
  } catch (const std::out_of_range& err) {
    if (from_table) from_table->fail("from", fmt::format("{}: {}", file.string(), err.what()));
    throw;
  }
  training_points p;
  p.rows = e.rows;
  std::vector<Eigen::Index> kept;
  for (std::size_t r = 0; r < e.rows; ++r) {
    bool ok = e.status[r] == static_cast<std::int32_t>(io::sample_status::ok);
    for (std::size_t c : out_cols)
      ok = ok &&
           std::isfinite(e.outputs(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)));
    for (std::size_t c : in_cols)
      ok =
          ok && std::isfinite(e.inputs(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)));
    if (ok) kept.push_back(static_cast<Eigen::Index>(r));
  }
  p.dropped = e.rows - kept.size();
  p.x.resize(static_cast<Eigen::Index>(kept.size()), static_cast<Eigen::Index>(in_cols.size()));
  p.y.resize(static_cast<Eigen::Index>(kept.size()), static_cast<Eigen::Index>(out_cols.size()));
  for (std::size_t r = 0; r < kept.size(); ++r) {
    for (std::size_t c = 0; c < in_cols.size(); ++c)
      p.x(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          e.inputs(kept[r], static_cast<Eigen::Index>(in_cols[c]));
    for (std::size_t c = 0; c < out_cols.size(); ++c)
      p.y(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          e.outputs(kept[r], static_cast<Eigen::Index>(out_cols[c]));
  }
  return p;
}

// The test set: a Monte Carlo design of the study's inputs evaluated by the model, in this process.
training_points evaluate_test_set(const surrogate_study& m, const run_options& o) {
  study::ensemble_study t = m.study;
  t.sampling.samples = m.test_samples;
  t.sampling.design = {.kind = uq::design_kind::monte_carlo, .seed = m.test_seed};
  t.sampling.failures = study::failure_policy::record;
  const study::sample_plan plan(t);
  study::memory_sink sink;
  study::run_options ro;
  ro.threads = o.threads;
  study::run_ensemble(t, plan, sink, ro);
  const io::ensemble_block& b = sink.samples();
  training_points p;
  p.rows = b.size();
  std::vector<Eigen::Index> kept;
  for (std::size_t r = 0; r < b.size(); ++r) {
    bool ok = b.status[r] == static_cast<std::int32_t>(io::sample_status::ok);
    for (std::size_t j : m.outputs)
      ok = ok &&
           std::isfinite(b.outputs(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)));
    if (ok) kept.push_back(static_cast<Eigen::Index>(r));
  }
  p.dropped = b.size() - kept.size();
  p.x.resize(static_cast<Eigen::Index>(kept.size()), static_cast<Eigen::Index>(m.random.size()));
  p.y.resize(static_cast<Eigen::Index>(kept.size()), static_cast<Eigen::Index>(m.outputs.size()));
  for (std::size_t r = 0; r < kept.size(); ++r) {
    for (std::size_t c = 0; c < m.random.size(); ++c)
      p.x(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          b.inputs(kept[r], static_cast<Eigen::Index>(m.random[c]));
    for (std::size_t c = 0; c < m.outputs.size(); ++c)
      p.y(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          b.outputs(kept[r], static_cast<Eigen::Index>(m.outputs[c]));
  }
  return p;
}

double relative_error(const Eigen::VectorXd& y, const Eigen::VectorXd& predicted) {
  const double n = static_cast<double>(y.size());
  return (y - predicted).squaredNorm() / n / ((y.array() - y.mean()).square().sum() / (n - 1.0));
}

// Mean and variance of a surrogate's predictions under the marginals, from a Latin hypercube of
// 4096 points (seed 1): what a GP does not give in closed form.
std::pair<double, double> sampled_moments(
    const std::vector<uq::distribution>& marginals,
    const std::function<Eigen::VectorXd(const Eigen::MatrixXd&)>& f) {
  const Eigen::MatrixXd x =
      uq::map_to_inputs(uq::unit_design(4096, marginals.size(),
                                        {.kind = uq::design_kind::latin_hypercube, .seed = 1}),
                        marginals);
  const Eigen::VectorXd y = f(x);
  const double mean = y.mean();
  return {mean, (y.array() - mean).square().sum() / static_cast<double>(y.size() - 1)};
}

model::surrogate_data fit_surrogates(const surrogate_study& m, const training_points& train,
                                     const training_points* test,
                                     const std::string& training_name) {
  model::surrogate_data d;
  d.kind = m.kind;
  d.model = m.study.model.name();
  d.x = train.x;
  d.y = train.y;
  d.training = training_name;
  d.folds = m.cv.folds;
  d.fold_seed = m.cv.seed;
  d.q2_warning = m.q2_warning;
  d.test_samples = test ? static_cast<std::size_t>(test->x.rows()) : 0;
  std::vector<uq::distribution> marginals;
  for (std::size_t c = 0; c < m.random.size(); ++c) {
    const auto& in = m.study.inputs[m.random[c]];
    marginals.push_back(*in.distribution);
    // The training box: the support where it is bounded, else the training points' range.
    const Eigen::VectorXd col = train.x.col(static_cast<Eigen::Index>(c));
    const double lo = in.distribution->lower(), hi = in.distribution->upper();
    d.inputs.push_back({in.name, in.unit, *in.distribution, std::isfinite(lo) ? lo : col.minCoeff(),
                        std::isfinite(hi) ? hi : col.maxCoeff()});
  }
  const uq::fit_and_predict refit = [&](const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                        const Eigen::MatrixXd& at) {
    return m.kind == "gp" ? uq::fit_gaussian_process(x, y, m.gp).predict(at)
                          : uq::fit_pce(marginals, x, y, m.pce).chaos.evaluate(at);
  };
  for (std::size_t c = 0; c < m.outputs.size(); ++c) {
    const auto& v = m.study.model.outputs()[m.outputs[c]];
    const Eigen::VectorXd y = train.y.col(static_cast<Eigen::Index>(c));
    const auto with_name = [&](const std::exception& e) {
      return fmt::format("surrogate of {}: {}", v.name, e.what());
    };
    try {
      if (m.kind == "gp") {
        uq::gaussian_process gp = uq::fit_gaussian_process(train.x, y, m.gp);
        const uq::cross_validation_result cv = uq::k_fold_cross_validation(train.x, y, refit, m.cv);
        model::surrogate_output o;
        o.name = v.name;
        o.unit = v.unit;
        o.selection = "maximum likelihood";
        o.validation = {.q2_kfold = cv.q2,
                        .kfold_predictions = cv.predictions,
                        .fold = cv.fold,
                        .loo_error = gp.loo_error(),
                        .corrected_loo_error = gp.loo_error()};
        if (test && test->x.rows() > 1)
          o.validation.test_error =
              relative_error(test->y.col(static_cast<Eigen::Index>(c)), gp.predict(test->x));
        std::tie(o.mean, o.variance) =
            sampled_moments(marginals, [&](const Eigen::MatrixXd& x) { return gp.predict(x); });
        o.gp.emplace(std::move(gp));
        d.outputs.push_back(std::move(o));
        continue;
      }
      uq::pce_fit fit = uq::fit_pce(marginals, train.x, y, m.pce);
      const uq::cross_validation_result cv = uq::k_fold_cross_validation(train.x, y, refit, m.cv);
      model::surrogate_output o;
      o.name = v.name;
      o.unit = v.unit;
      o.degree = fit.degree;
      o.max_degree = m.pce.max_degree;
      o.q_norm = m.pce.q_norm;
      o.selection = m.pce.selection == uq::pce_selection::lars ? "lars" : "full";
      o.candidates = fit.candidates;
      o.validation = {.q2_kfold = cv.q2,
                      .kfold_predictions = cv.predictions,
                      .fold = cv.fold,
                      .loo_error = fit.loo_error,
                      .corrected_loo_error = fit.corrected_loo_error};
      if (test && test->x.rows() > 1)
        o.validation.test_error =
            relative_error(test->y.col(static_cast<Eigen::Index>(c)), fit.chaos.evaluate(test->x));
      o.chaos.emplace(std::move(fit.chaos));
      d.outputs.push_back(std::move(o));
    } catch (const parameter_error& e) {
      throw parameter_error(e.field(), with_name(e));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(with_name(e));
    }
  }
  return d;
}

run_result run_surrogate(const io::study_document& doc, const run_options& o, const path& out) {
  const surrogate_study m = read_surrogate_study(doc);
  const bool sampled = m.from.empty();
  const std::size_t planned = (sampled ? m.study.rows() : 0) + m.test_samples;
  if (o.check_only) return {.method_name = "surrogate", .output = out, .planned = planned};

  run_result r{
      .method_name = "surrogate", .output = out, .planned = planned, .model = m.study.model.name()};
  std::filesystem::path training = m.from;
  if (sampled) {
    training = training_path(out);
    // A finished training ensemble of an interrupted fit is used as it is.
    const bool finished =
        o.resume && std::filesystem::exists(training) &&
        !io::read_ensemble(training, {.curves = false}).schema.metadata.end_time.empty();
    if (!finished) {
      if (!o.resume && !o.force) refuse_overwrite(training);
      refuse_oversized(doc, o, m.study, study::sample_plan::streams(m.study));
      const study::sample_plan plan(m.study);
      io::ensemble_schema schema = study::ensemble_schema_for(m.study, doc);
      schema.metadata.method = "surrogate";
      const run_result t = run_ensemble_job(
          doc, o, training,
          {.study = m.study,
           .plan = plan,
           .schema = std::move(schema),
           .method_name = "surrogate",
           .description = fmt::format(
               "model {}, {} training samples ({}, seed {}) of {} aleatoric inputs",
               m.study.model.name(), m.study.rows(), uq::to_string(m.study.sampling.design.kind),
               m.study.sampling.design.seed, m.random.size())});
      r.failed = t.failed;
      r.timing = t.timing;
      if (t.exit_code != 0) {
        r.exit_code = t.exit_code;
        return r;
      }
    }
  }
  const std::optional<io::study_table> table = doc.root().optional_table("surrogate");
  const training_points train = read_training(m, training, sampled || !table ? nullptr : &*table);
  std::FILE* to = report(o);
  fmt::print(
      to, "training points: {} of {} rows in {}{}\n", train.x.rows(), train.rows, training.string(),
      train.dropped > 0 ? fmt::format(" ({} failed or not finite, left out)", train.dropped) : "");
  std::optional<training_points> test;
  if (m.test_samples > 0) {
    test = evaluate_test_set(m, o);
    r.failed += test->dropped;
    fmt::print(to, "test points: {} of {} evaluated (Monte Carlo, seed {})\n", test->x.rows(),
               test->rows, m.test_seed);
  }
  std::fflush(to);
  const model::surrogate_data data =
      fit_surrogates(m, train, test ? &*test : nullptr,
                     sampled ? training.filename().string() : training.string());
  io::make_parent_folder(out);
  io::write_then_rename(out, [&](const path& file) {
    io::hdf5::file f(file, io::hdf5::file_mode::create);
    io::write_result_header(f, {.format = model::surrogate_format,
                                .format_version = model::surrogate_format_version,
                                .method = "surrogate",
                                .model = m.study.model.name(),
                                .title = m.study.title,
                                .study_text = doc.text(),
                                .study_path = doc.file()});
    model::write_surrogate(f, data);
    f.close();
  });
  fmt::print(to, "\n{}\nwrote {}\n", study::to_text(study::summarize_surrogate(out)), out.string());
  return r;
}

}  // namespace

method surrogate_method() {
  return {.name = "surrogate",
          .summary =
              "polynomial chaos or Gaussian-process surrogate of a model's outputs, with K-fold "
              "validation",
          .counts = "evaluations",
          .progress_unit = "samples",
          .resumable = true,
          .run = run_surrogate};
}

}  // namespace contactuq::engine::detail
