#include "contactuq/opt/optimization_study.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "contactuq/io/ensemble_store.hpp"

namespace contactuq::opt {

namespace u = units;

std::vector<double> optimization_study::start() const {
  std::vector<double> x;
  for (std::size_t j : base.design_variables()) x.push_back(base.inputs[j].value);
  return x;
}

namespace {

opt::measure read_measure(const io::study_table& t, const model::model& m) {
  opt::measure what;
  what.output = t.string("output");
  const auto names = m.output_names();
  const auto at = std::find(names.begin(), names.end(), what.output);
  if (at == names.end())
    t.fail("output", fmt::format("not an output of model {}; its outputs: {}", m.name(),
                                 fmt::join(names, ", ")));
  const u::dimension dim = m.outputs()[static_cast<std::size_t>(at - names.begin())].dim;
  const std::string kind =
      t.choice("statistic", {"mean", "mean_plus_sd", "quantile", "probability"});
  const auto only = [&](std::initializer_list<std::string_view> keys, std::string_view statistic) {
    for (std::string_view key : keys)
      if (t.has(key)) t.fail(key, fmt::format("only for statistic = \"{}\"", statistic));
  };
  if (kind == "mean") {
    what.kind = opt::statistic::mean;
  } else if (kind == "mean_plus_sd") {
    what.kind = opt::statistic::mean_plus_sd;
    what.kappa = t.quantity_or("kappa", u::dimensionless, 3.0);
  } else if (kind == "quantile") {
    what.kind = opt::statistic::quantile;
    what.level = t.quantity("level", u::dimensionless);
  } else {
    what.kind = opt::statistic::probability;
    if (t.has("above") == t.has("below"))
      t.fail("statistic", "a probability needs exactly one of above and below");
    what.above = t.has("above");
    what.limit = t.quantity(what.above ? "above" : "below", dim);
    what.smoothing = t.quantity_or("smoothing", dim, 0.0);
  }
  if (kind != "mean_plus_sd") only({"kappa"}, "mean_plus_sd");
  if (kind != "quantile") only({"level"}, "quantile");
  if (kind != "probability") only({"above", "below", "smoothing"}, "probability");
  try {
    what.validate(t.path());
  } catch (const parameter_error& e) {
    const auto dot = e.field().rfind('.');
    const std::string key = dot == std::string::npos ? e.field() : e.field().substr(dot + 1);
    t.fail(key == "limit" ? (what.above ? "above" : "below") : key, e.what());
  }
  return what;
}

u::dimension measure_dimension(const opt::measure& what, const model::model& m) {
  if (what.kind == opt::statistic::probability) return u::dimensionless;
  for (const auto& v : m.outputs())
    if (v.name == what.output) return v.dim;
  return u::dimensionless;  // read_measure checked the name
}

opt::optimizer_options read_options(const io::study_table& t) {
  opt::optimizer_options o;
  const auto algorithm = [&](std::string_view key, opt::algorithm fallback) {
    return opt::parse_algorithm(t.choice(
        key, {"hybrid", "sga", "de", "cmaes", "nsga2", "slsqp", "mma", "lbfgs", "cobyla", "bobyqa"},
        opt::to_string(fallback)));
  };
  o.method = algorithm("algorithm", o.method);
  o.global = algorithm("global", o.global);
  o.local = algorithm("local", o.local);
  const auto count = [&](std::string_view key, std::size_t fallback) {
    const std::int64_t v = t.integer_or(key, static_cast<std::int64_t>(fallback));
    if (v < 0) t.fail(key, "must be an integer >= 0");
    return static_cast<std::size_t>(v);
  };
  o.seed = count("seed", static_cast<std::size_t>(o.seed));
  o.population = count("population", o.population);
  o.generations = count("generations", o.generations);
  o.evaluations = count("evaluations", o.evaluations);
  o.xtol = t.quantity_or("xtol", u::dimensionless, o.xtol);
  o.ftol = t.quantity_or("ftol", u::dimensionless, o.ftol);
  o.gradient_step = t.quantity_or("gradient_step", u::dimensionless, o.gradient_step);
  o.constraint_tolerance =
      t.quantity_or("constraint_tolerance", u::dimensionless, o.constraint_tolerance);
  o.over_models = t.choice("over_models", {"worst", "mean"}, "worst") == "worst"
                      ? opt::model_aggregate::worst
                      : opt::model_aggregate::mean;
  try {
    o.validate();
  } catch (const parameter_error& e) {
    t.fail(e);
  }
  return o;
}

}  // namespace

optimization_study read_optimization_study(const io::study_document& doc) {
  optimization_study s{study::read_ensemble_study(doc, {.design_inputs = true}), {}, {}, {}};
  const io::study_table root = doc.root();
  if (s.base.design_variables().empty())
    root.table("parameters").fail("no parameter has role \"design\": there is nothing to optimise");
  const io::study_table t = root.table("optimization");
  t.allow_only({"algorithm", "global", "local", "seed", "population", "generations", "evaluations",
                "xtol", "ftol", "gradient_step", "constraint_tolerance", "over_models", "objective",
                "constraint"});
  s.optimizer = read_options(t);
  const model::model& m = s.base.model;
  for (const io::study_table& o : t.tables("objective")) {
    o.allow_only({"output", "statistic", "kappa", "level", "above", "below", "smoothing", "sense"});
    opt::objective objective{read_measure(o, m),
                             o.choice("sense", {"minimize", "maximize"}, "minimize") == "maximize"};
    s.objectives.push_back(std::move(objective));
  }
  if (s.objectives.size() > 2)
    t.fail("objective",
           fmt::format("{} objectives: give one, or two for nsga2", s.objectives.size()));
  if ((s.objectives.size() == 2) != (s.optimizer.method == opt::algorithm::nsga2))
    t.fail("algorithm", s.objectives.size() == 2
                            ? "two objectives need algorithm = \"nsga2\""
                            : "nsga2 needs two [[optimization.objective]] tables");
  if (t.has("constraint")) {
    for (const io::study_table& c : t.tables("constraint")) {
      c.allow_only(
          {"output", "statistic", "kappa", "level", "above", "below", "smoothing", "max", "min"});
      opt::constraint constraint;
      constraint.what = read_measure(c, m);
      if (c.has("max") == c.has("min")) c.fail("give exactly one of max and min");
      const u::dimension dim = measure_dimension(constraint.what, m);
      if (c.has("max"))
        constraint.max = c.quantity("max", dim);
      else
        constraint.min = c.quantity("min", dim);
      if (constraint.what.kind == opt::statistic::probability) {
        const double bound = constraint.max ? *constraint.max : *constraint.min;
        if (bound < 0 || bound > 1)
          c.fail(constraint.max ? "max" : "min", "a probability bound must lie in [0, 1]");
      }
      s.constraints.push_back(std::move(constraint));
    }
  }
  return s;
}

std::string measure_unit(const model::model& m, const opt::measure& what) {
  if (what.kind == opt::statistic::probability) return "";
  for (const auto& v : m.outputs())
    if (v.name == what.output) return v.unit;
  return "";
}

namespace {

const auto unit_of = measure_unit;

std::string describe(const model::model& m, const opt::constraint& c) {
  const double bound = c.max ? *c.max : *c.min;
  const std::string unit = unit_of(m, c.what);
  return fmt::format("{} {} {:.6g}{}", c.what.describe(unit_of(m, {c.what.output})),
                     c.max ? "<=" : ">=", bound, unit.empty() ? std::string() : fmt::format(" {}", unit));
}

}  // namespace

std::vector<std::pair<std::string, model::model>> optimization_models(const optimization_study& s) {
  std::vector<std::pair<std::string, model::model>> models;
  if (s.base.epistemic.empty())
    models.emplace_back(s.base.model.name(), s.base.model);
  else
    for (const auto& c : s.base.cases) models.emplace_back(c.label, c.model);
  return models;
}

optimization_schema optimization_schema_of(const optimization_study& s,
                                               const io::study_document& doc,
                                               std::size_t threads) {
  optimization_schema schema;
  schema.study_text = doc.text();
  schema.study_path = doc.file();
  schema.model = s.base.model.name();
  for (std::size_t j : s.base.design_variables()) {
    schema.design_names.push_back(s.base.inputs[j].name);
    schema.design_units.push_back(s.base.inputs[j].unit);
    schema.low.push_back(s.base.inputs[j].low);
    schema.high.push_back(s.base.inputs[j].high);
    schema.start.push_back(s.base.inputs[j].value);
  }
  for (const auto& obj : s.objectives) {
    schema.objective_units.push_back(unit_of(s.base.model, obj.what));
    schema.objectives.push_back(obj.what.describe(unit_of(s.base.model, {obj.what.output})));
    schema.objective_senses.push_back(obj.maximize ? "maximize" : "minimize");
  }
  for (const auto& c : s.constraints) {
    schema.constraints.push_back(describe(s.base.model, c));
    schema.constraint_units.push_back(unit_of(s.base.model, c.what));
  }
  for (const auto& [label, m] : optimization_models(s)) schema.models.push_back(label);
  const auto& opts = s.optimizer;
  schema.algorithm =
      opts.method == opt::algorithm::hybrid
          ? fmt::format("hybrid ({}, then {})", to_string(opts.global), to_string(opts.local))
          : std::string(to_string(opts.method));
  schema.seed = opts.seed;
  schema.samples = s.base.sampling.samples;
  schema.start_time = io::iso8601_now();
  schema.host = io::host_name();
  schema.threads = threads;
  return schema;
}

std::vector<opt::evaluation_record> resume_history(const std::filesystem::path& path,
                                                   const io::study_document& doc) {
  // An interrupted run is at path + ".part" (files of earlier versions: at path itself).
  const std::filesystem::path part = io::unfinished_path(path);
  auto previous = read_optimization(std::filesystem::exists(part) ? part : path);
  if (previous.schema.study_text != doc.text())
    throw io::ensemble_error(
        fmt::format("cannot resume {}: it was written for a different study; run without "
                    "--resume to start over",
                    path.string()));
  return std::move(previous.history);
}

}  // namespace contactuq::opt
