// Robust design: optimise the design variables of a study under its aleatoric inputs and, per
// epistemic model, with regrets across models; every evaluation is stored as it is made, so an
// interrupted search resumes by replaying the file.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/opt/epistemic.hpp"
#include "contactuq/opt/optimization_store.hpp"
#include "contactuq/opt/optimization_study.hpp"
#include "contactuq/study/threads.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {
namespace {

std::size_t planned_evaluations(const opt::optimization_study& s, std::size_t models) {
  const auto& o = s.optimizer;
  const std::size_t d = s.base.design_variables().size();
  const auto local = [&](opt::algorithm a) {
    return o.evaluations * (opt::uses_gradient(a) ? 1 + 2 * d : 1);
  };
  const std::size_t global = o.population * (o.generations + 1);
  const std::size_t one = o.method == opt::algorithm::hybrid ? global + local(o.local)
                          : opt::is_global(o.method)         ? global
                                                             : local(o.method);
  return models * one + (models > 1 ? 3 * models * models + models * one : models);
}

void print_results(std::FILE* to, const opt::optimization_study& s, const opt::optimization_schema& schema,
                   const opt::epistemic_result& r) {
  const auto value = [](double v) { return fmt::format("{:.6g}", v); };
  for (std::size_t i = 0; i < r.optima.size(); ++i) {
    const auto& o = r.optima[i];
    fmt::print(to, "\nmodel {}: {} ({} evaluations, best found at evaluation {})\n  {}\n  {}\n",
               r.models[i], o.status, o.evaluations, o.last_improvement, o.message,
               o.converged ? o.convergence : fmt::format("NOT CONVERGED: {}", o.convergence.substr(
                                                            o.convergence.find(':') + 2)));
    for (std::size_t k = 0; k < o.x.size(); ++k)
      fmt::print(to, "  {:<28} {:>14} {:<10} in [{}, {}]\n", schema.design_names[k], value(o.x[k]),
                 schema.design_units[k], value(schema.low[k]), value(schema.high[k]));
    for (std::size_t k = 0; k < o.value.objectives.size(); ++k)
      fmt::print(to, "  {:<28} {:>14} {:<10} ({})\n", schema.objectives[k],
                 value(o.value.objectives[k]), schema.objective_units[k],
                 schema.objective_senses[k]);
    for (std::size_t k = 0; k < o.value.constraints.size(); ++k)
      fmt::print(
          to, "  {:<28} {:>14} {:<10} [{}]{}\n",
          s.constraints[k].what.describe(
              opt::measure_unit(s.base.model, {s.constraints[k].what.output})),
          value(o.value.constraints[k]), schema.constraint_units[k], schema.constraints[k],
          std::find(o.active_constraints.begin(), o.active_constraints.end(), k) !=
                  o.active_constraints.end()
              ? "  active"
              : "");
    if (!o.feasible)
      fmt::print(
          to, "  INFEASIBLE: no design met every constraint; this is the least-violating one "
          "(violation {})\n",
          value(o.value.violation));
    if (!o.pareto_objectives.empty()) {
      fmt::print(to, "  Pareto front: {} designs\n  {:>14} {:>14}\n", o.pareto_objectives.size(),
                 schema.objectives[0], schema.objectives[1]);
      for (const auto& f : o.pareto_objectives)
        fmt::print(to, "  {:>14} {:>14}\n", value(f[0]), value(f[1]));
    }
  }
  if (r.regret.size() == 0) return;
  fmt::print(
      to, "\nregret of {} [{}]: row = design optimal for model, column = model it is evaluated under\n",
      schema.objectives[0], schema.objective_units[0]);
  fmt::print(to, "  {:<20}", "");
  for (const auto& m : r.models) fmt::print(to, " {:>14}", m);
  fmt::print(to, "\n");
  for (Eigen::Index i = 0; i < r.regret.rows(); ++i) {
    fmt::print(to, "  {:<20}", r.models[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < r.regret.cols(); ++j)
      fmt::print(to, " {:>13}{}", value(r.regret(i, j)), r.cross_feasible(i, j) ? " " : "*");
    fmt::print(to, "\n");
  }
  if (r.regret.rows() > 1) fmt::print(to, "  (* infeasible under that model)\n");
  if (r.has_robust) {
    fmt::print(to, "\ndesign over all models ({} regret): {}, {} regret {}\n",
               to_string(s.optimizer.over_models), r.robust.status,
               to_string(s.optimizer.over_models), value(r.robust.value.objectives[0]));
    for (std::size_t k = 0; k < r.robust.x.size(); ++k)
      fmt::print(to, "  {:<28} {:>14} {}\n", schema.design_names[k], value(r.robust.x[k]),
                 schema.design_units[k]);
    for (std::size_t j = 0; j < r.models.size(); ++j)
      fmt::print(to, "  under {:<22} objective {:>14}, regret {}\n", r.models[j],
                 value(r.robust_objective[j]), value(r.robust_regret[j]));
  }
}

}  // namespace

run_result run_optimize(const io::study_document& doc, const run_options& o, const path& out) {
  const opt::optimization_study s = opt::read_optimization_study(doc);
  if (o.check_only)
    return {.method_name = "optimize", .output = out,
            .planned = planned_evaluations(s, opt::optimization_models(s).size())};
  const std::size_t threads = study::worker_threads(o.threads);
  std::optional<tbb::global_control> limit;
  // An executor sizes its own threads: a limit here would leave it none beside the one calling MPI.
  if (o.threads > 0 && !o.executor) limit.emplace(tbb::global_control::max_allowed_parallelism, o.threads);

  const auto models = opt::optimization_models(s);
  opt::optimization_schema schema = opt::optimization_schema_of(s, doc, threads);
  schema.study_path = doc.file();
  if (o.executor) schema.mpi_ranks = o.executor->processes();
  std::vector<opt::evaluation_record> replay;
  if (o.resume) replay = opt::resume_history(out, doc);
  const std::size_t in_file = replay.size();
  io::make_parent_folder(out);
  opt::optimization_writer writer = opt::optimization_writer::create(out, schema);
  opt::history log(std::move(replay));
  const std::size_t planned = planned_evaluations(s, models.size());
  log.on_records = [&](std::span<const opt::evaluation_record> records) {
    writer.append(records);
    if (o.progress) o.progress(log.records().size(), std::max(planned, log.records().size()));
  };
  log.stop = o.stop;
  if (o.max_new > 0) log.max_new = o.max_new;

  std::FILE* to = report(o);
  fmt::print(to, "model {}, {} design variables, {} CRN samples ({}, seed {}), algorithm {}, {} thread{}\n",
             s.base.model.name(), schema.design_names.size(), s.base.sampling.samples,
             uq::to_string(s.base.sampling.design.kind), s.base.sampling.design.seed, schema.algorithm, threads,
             threads == 1 ? "" : "s");
  if (o.resume) fmt::print(to, "resuming: {} evaluations in the file are replayed\n", in_file);
  std::fflush(to);
  run_result r{.method_name = "optimize", .output = out, .planned = planned};
  std::optional<opt::epistemic_result> result;
  // The designs' samples evaluated elsewhere (the ranks of an MPI job): each batch an ensemble.
  std::optional<opt::design_ensembles> elsewhere;
  if (o.executor) log.executor = &elsewhere.emplace(*o.executor, doc, s.base, o.threads);
  try {
    result = opt::optimize_over_models(models, s.base, s.objectives, s.constraints, s.optimizer, log);
  } catch (const opt::interrupted& e) {
    fmt::print(errors(o),
               "\ncontactuq run: {}; {} evaluations are in {}. Continue with:\n  contactuq run {} -o {} --resume\n",
               e.what(), log.records().size(), io::unfinished_path(out).string(), doc.file(), out.string());
    r.exit_code = 130;
    return r;
  }
  writer.finish(*result, io::iso8601_now());
  print_results(to, s, schema, *result);
  fmt::print(to, "\nwrote {} ({} evaluations: {} new, {} replayed{})\n", out.string(), log.records().size(),
             log.computed(), log.replayed(), log.diverged() ? "; the replay diverged from the file" : "");
  bool feasible = true;
  for (const auto& optimum : result->optima) feasible = feasible && optimum.feasible;
  r.exit_code = feasible ? 0 : 1;
  return r;
}

method optimize_method() {
  return {.name = "optimize",
          .summary = "robust design over design variables",
          .counts = "evaluations at most",
          .progress_unit = "evaluations",
          .resumable = true,
          .run = run_optimize};
}

}  // namespace contactuq::engine::detail
