// Morris screening (method = "morris"): which of a model's aleatoric inputs matter, and whether
// they act alone, from r one-at-a-time trajectories of d + 1 evaluations each (uq/morris.hpp).
//
//   method = "morris"
//   [model]                 any registered model
//   [parameters.<input>]    role = "aleatoric": screened over its distribution; other inputs
//                           keep their fixed value
//   [morris]                trajectories = r (default 20), levels = p (even, default 4),
//                           seed (default 1), failures = "record" | "abort" | "retry"
//
// The trajectories are an ensemble, written, resumed and summarised as any sample study's
// (ensemble_run.hpp; /metadata design = "morris"); the effects go to the group /morris of the
// same file: mu, mu_star, sigma and mu_star's bootstrap interval, outputs x inputs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <numeric>

#include "contactuq/error.hpp"
#include "contactuq/uq/morris.hpp"
#include "ensemble_run.hpp"

namespace contactuq::engine::detail {
namespace {

constexpr double confidence = 0.95;
constexpr std::size_t resamples = 1000;

struct morris_study {
  study::ensemble_study study;
  uq::morris_options options;
  std::vector<std::size_t> screened;  ///< the aleatoric inputs, indices into study.inputs
};

morris_study read_morris_study(const io::study_document& doc) {
  morris_study m{study::read_ensemble_study(doc, {.method_tables = {"morris"}, .sampling = false, .study_kind = "a morris study"}), {}, {}};
  const io::study_table root = doc.root();
  if (m.study.cases.size() > 1)
    root.table("parameters").fail("a morris study screens the aleatoric inputs of one model: give epistemic "
                                  "parameters as fixed values, or run one morris study per case");
  if (const auto t = root.optional_table("morris")) {
    t->allow_only({"trajectories", "levels", "seed", "failures", "retries"});
    const std::int64_t r = t->integer_or("trajectories", 20), p = t->integer_or("levels", 4),
                       seed = t->integer_or("seed", 1);
    if (r < 2 || r > 100'000) t->fail("trajectories", "must be an integer in [2, 100000]");
    if (p < 2 || p > 1000 || p % 2 != 0) t->fail("levels", "must be an even integer in [2, 1000] (4 is usual)");
    if (seed < 0) t->fail("seed", "must be an integer >= 0");
    m.options = {static_cast<std::size_t>(r), static_cast<std::size_t>(p), static_cast<std::uint64_t>(seed)};
    const std::string failures = t->choice("failures", {"record", "abort", "retry"}, "record");
    m.study.sampling.failures = failures == "abort"   ? study::failure_policy::abort
                                : failures == "retry" ? study::failure_policy::retry
                                                      : study::failure_policy::record;
    const std::int64_t retries = t->integer_or("retries", 2);
    if (retries < 1 || retries > 100) t->fail("retries", "must be an integer in [1, 100]");
    m.study.sampling.retries = static_cast<int>(retries);
  }
  m.screened = m.study.aleatoric();
  m.study.sampling.samples = m.options.trajectories * (m.screened.size() + 1);
  m.study.sampling.design.seed = m.options.seed;
  return m;
}

// Every model input of every design row: the screened ones at their quantiles, the others fixed.
io::sample_matrix morris_inputs(const morris_study& m, const uq::morris_design& design) {
  const auto& inputs = m.study.inputs;
  io::sample_matrix x(design.u.rows(), static_cast<Eigen::Index>(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) x.col(static_cast<Eigen::Index>(i)).setConstant(inputs[i].value);
  for (std::size_t k = 0; k < m.screened.size(); ++k) {
    const uq::distribution& dist = *inputs[m.screened[k]].distribution;
    const auto column = static_cast<Eigen::Index>(m.screened[k]);
    for (Eigen::Index row = 0; row < x.rows(); ++row) x(row, column) = dist.quantile(design.u(row, k));
  }
  return x;
}

// effects[j][k]: output j, screened input k.
using effect_table = std::vector<std::vector<uq::morris_effect>>;

effect_table effects_of(const morris_study& m, const uq::morris_design& design, const recording_sink& sink) {
  effect_table effects;
  for (const auto& y : sink.outputs())
    effects.push_back(uq::elementary_effects(design, y, resamples, confidence, m.options.seed));
  return effects;
}

// Per output, the screened inputs from the largest mu* down.
std::string effects_text(const morris_study& m, const effect_table& effects) {
  std::string to;
  const auto& outputs = m.study.model.outputs();
  std::size_t width = 10;
  for (std::size_t k : m.screened) width = std::max(width, m.study.inputs[k].name.size());
  fmt::format_to(std::back_inserter(to), "\n  elementary effects, per output unit over each input's whole range ({} "
                                         "trajectories, {} levels; mu* with its {:g} % bootstrap interval)\n",
                 m.options.trajectories, m.options.levels, 100 * confidence);
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    fmt::format_to(std::back_inserter(to), "\n  {} [{}]\n  {:<{}} {:>11} {:>25} {:>11} {:>11} {:>6}\n", outputs[j].name,
                   outputs[j].unit, "input", width, "mu*", "interval", "mu", "sigma", "used");
    std::vector<std::size_t> order(m.screened.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double x = effects[j][a].mu_star, y = effects[j][b].mu_star;
      return std::isnan(y) ? !std::isnan(x) : x > y;
    });
    for (std::size_t k : order) {
      const uq::morris_effect& e = effects[j][k];
      fmt::format_to(std::back_inserter(to), "  {:<{}} {:>11.4g} {:>25} {:>11.4g} {:>11.4g} {:>6}\n",
                     m.study.inputs[m.screened[k]].name, width, e.mu_star,
                     fmt::format("[{:.4g}, {:.4g}]", e.mu_star_low, e.mu_star_high), e.mu, e.sigma, e.used);
    }
  }
  to += "\n  mu* ranks the inputs; sigma large against mu* means the input acts through interactions or "
        "non-linearly\n";
  return to;
}

// The group /morris: the design's moves and the effects, outputs x screened inputs.
void write_effects(const std::filesystem::path& file, const morris_study& m, const uq::morris_design& design,
                   const effect_table& effects) {
  io::hdf5::file f(file, io::hdf5::file_mode::read_write);
  auto g = f.create_group("morris");
  std::vector<std::string> inputs, outputs, units;
  for (std::size_t k : m.screened) inputs.push_back(m.study.inputs[k].name);
  for (const auto& v : m.study.model.outputs()) outputs.push_back(v.name), units.push_back(v.unit);
  g.set_attribute("inputs", inputs);
  g.set_attribute("outputs", outputs);
  g.set_attribute("units", units);  // of each output's row; effects are per the input's whole range
  g.set_attribute("trajectories", static_cast<std::int64_t>(m.options.trajectories));
  g.set_attribute("levels", static_cast<std::int64_t>(m.options.levels));
  g.set_attribute("seed", static_cast<std::int64_t>(m.options.seed));
  g.set_attribute("confidence", confidence);
  const std::size_t rows = outputs.size(), cols = inputs.size();
  const auto matrix = [&](std::string_view name, double uq::morris_effect::*field) {
    std::vector<double> values;
    for (const auto& row : effects)
      for (const auto& e : row) values.push_back(e.*field);
    g.write(name, values, rows, cols);
  };
  matrix("mu", &uq::morris_effect::mu);
  matrix("mu_star", &uq::morris_effect::mu_star);
  matrix("sigma", &uq::morris_effect::sigma);
  matrix("mu_star_low", &uq::morris_effect::mu_star_low);
  matrix("mu_star_high", &uq::morris_effect::mu_star_high);
  std::vector<double> used, moved;  // counts and indices, exact in float64
  for (const auto& row : effects)
    for (const auto& e : row) used.push_back(static_cast<double>(e.used));
  g.write("used", used, rows, cols);
  for (std::size_t i : design.moved) moved.push_back(i < cols ? static_cast<double>(i) : -1.0);
  g.write("moved", moved).set_attribute("meaning", "the screened input moved to reach each row; -1: a base point");
  f.close();
}

run_result run_morris(const io::study_document& doc, const run_options& o, const path& out) {
  const morris_study m = read_morris_study(doc);
  if (o.check_only) return {.method_name = "morris", .output = out, .planned = m.study.rows()};
  const uq::morris_design design = uq::make_morris_design(m.screened.size(), m.options);
  const io::sample_matrix x = morris_inputs(m, design);
  const study::sample_plan plan(m.study, x);
  io::ensemble_schema schema = study::ensemble_schema_for(m.study, doc);
  schema.metadata.design = "morris";
  schema.metadata.method = "morris";
  auto effects = std::make_shared<effect_table>();
  return run_ensemble_job(
      doc, o, out,
      {.study = m.study,
       .plan = plan,
       .schema = std::move(schema),
       .method_name = "morris",
       .description = fmt::format("model {}, Morris screening of {} inputs: {} trajectories x {} points ({} levels, "
                                  "seed {})",
                                  m.study.model.name(), m.screened.size(), m.options.trajectories,
                                  m.screened.size() + 1, m.options.levels, m.options.seed),
       .summary =
           [&, effects](const recording_sink& sink) {
             *effects = effects_of(m, design, sink);
             return effects_text(m, *effects);
           },
       .finished = [&, effects](const path& file, const recording_sink&) { write_effects(file, m, design, *effects); }});
}

}  // namespace

method morris_method() {
  return {.name = "morris",
          .summary = "Morris screening: elementary effects of each aleatoric input on every output",
          .counts = "evaluations",
          .progress_unit = "samples",
          .resumable = true,
          .run = run_morris};
}

}  // namespace contactuq::engine::detail
