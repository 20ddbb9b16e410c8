#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "contactuq/opt/optimization_store.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/opt/epistemic.hpp"
#include "contactuq/opt/optimization_study.hpp"

// Last: <signal.h> defines macros (e.g. si_value) that could clash with names in our headers.
#include <csignal>

namespace contactuq::cli {
namespace {

std::atomic<bool> interrupted = false;
extern "C" void on_optimize_interrupt(int) { interrupted = true; }

// Evaluations so far, with rate: a line that rewrites itself on a terminal, a plain line every
// 10 s otherwise.
class progress_printer {
 public:
  explicit progress_printer(std::size_t planned)
      : planned_(planned), tty_(isatty(fileno(stderr)) != 0) {}
  void operator()(const opt::history& log, bool last = false) {
    const auto now = clock::now();
    if (!last && now - last_ < (tty_ ? std::chrono::milliseconds(200) : std::chrono::seconds(10)))
      return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(log.computed()) / elapsed : 0.0;
    const std::string text =
        fmt::format("{} evaluations (about {} planned; {} replayed), {:.1f} evaluations/s",
                    log.records().size(), planned_, log.replayed(), rate);
    if (tty_)
      fmt::print(stderr, "\r{}   {}", text, last ? "\n" : "");
    else
      fmt::print(stderr, "{}\n", text);
  }

 private:
  using clock = std::chrono::steady_clock;
  std::size_t planned_;
  bool tty_;
  clock::time_point start_ = clock::now();
  clock::time_point last_ = start_;
};

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

void print_results(const opt::optimization_study& s, const opt::optimization_schema& schema,
                   const opt::epistemic_result& r) {
  const auto value = [](double v) { return fmt::format("{:.6g}", v); };
  for (std::size_t i = 0; i < r.optima.size(); ++i) {
    const auto& o = r.optima[i];
    fmt::print("\nmodel {}: {} ({} evaluations, best found at evaluation {})\n  {}\n  {}\n",
               r.models[i], o.status, o.evaluations, o.last_improvement, o.message,
               o.converged ? o.convergence : fmt::format("NOT CONVERGED: {}", o.convergence.substr(
                                                            o.convergence.find(':') + 2)));
    for (std::size_t k = 0; k < o.x.size(); ++k)
      fmt::print("  {:<28} {:>14} {:<10} in [{}, {}]\n", schema.design_names[k], value(o.x[k]),
                 schema.design_units[k], value(schema.low[k]), value(schema.high[k]));
    for (std::size_t k = 0; k < o.value.objectives.size(); ++k)
      fmt::print("  {:<28} {:>14} {:<10} ({})\n", schema.objectives[k],
                 value(o.value.objectives[k]), schema.objective_units[k],
                 schema.objective_senses[k]);
    for (std::size_t k = 0; k < o.value.constraints.size(); ++k)
      fmt::print(
          "  {:<28} {:>14} {:<10} [{}]{}\n",
          s.constraints[k].what.describe(
              opt::measure_unit(s.base.model, {s.constraints[k].what.output})),
          value(o.value.constraints[k]), schema.constraint_units[k], schema.constraints[k],
          std::find(o.active_constraints.begin(), o.active_constraints.end(), k) !=
                  o.active_constraints.end()
              ? "  active"
              : "");
    if (!o.feasible)
      fmt::print(
          "  INFEASIBLE: no design met every constraint; this is the least-violating one "
          "(violation {})\n",
          value(o.value.violation));
    if (!o.pareto_objectives.empty()) {
      fmt::print("  Pareto front: {} designs\n  {:>14} {:>14}\n", o.pareto_objectives.size(),
                 schema.objectives[0], schema.objectives[1]);
      for (const auto& f : o.pareto_objectives)
        fmt::print("  {:>14} {:>14}\n", value(f[0]), value(f[1]));
    }
  }
  if (r.regret.size() == 0) return;
  fmt::print(
      "\nregret of {} [{}]: row = design optimal for model, column = model it is evaluated under\n",
      schema.objectives[0], schema.objective_units[0]);
  fmt::print("  {:<20}", "");
  for (const auto& m : r.models) fmt::print(" {:>14}", m);
  fmt::print("\n");
  for (Eigen::Index i = 0; i < r.regret.rows(); ++i) {
    fmt::print("  {:<20}", r.models[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < r.regret.cols(); ++j)
      fmt::print(" {:>13}{}", value(r.regret(i, j)), r.cross_feasible(i, j) ? " " : "*");
    fmt::print("\n");
  }
  if (r.regret.rows() > 1) fmt::print("  (* infeasible under that model)\n");
  if (r.has_robust) {
    fmt::print("\ndesign over all models ({} regret): {}, {} regret {}\n",
               to_string(s.optimizer.over_models), r.robust.status,
               to_string(s.optimizer.over_models), value(r.robust.value.objectives[0]));
    for (std::size_t k = 0; k < r.robust.x.size(); ++k)
      fmt::print("  {:<28} {:>14} {}\n", schema.design_names[k], value(r.robust.x[k]),
                 schema.design_units[k]);
    for (std::size_t j = 0; j < r.models.size(); ++j)
      fmt::print("  under {:<22} objective {:>14}, regret {}\n", r.models[j],
                 value(r.robust_objective[j]), value(r.robust_regret[j]));
  }
}

}  // namespace

void add_optimize_command(CLI::App& app, int& exit_code) {
  CLI::App* sub =
      app.add_subcommand("optimize",
                         "Robust design: optimise a study's design variables under its "
                         "aleatoric inputs (and contact models) and write an HDF5 file");
  struct options {
    std::string study;
    std::string output;
    std::size_t threads = 0;
    std::size_t max_new = 0;
    bool resume = false;
    bool force = false;
    bool quiet = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("study", o->study,
                  "Study file (TOML), e.g. studies/receptacle_robust_design.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "File to write (default: the study's name with .h5)");
  sub->add_option("-j,--threads", o->threads, "Worker threads (default: all cores)")
      ->check(CLI::Range(1, 65536));
  sub->add_flag("--resume", o->resume,
                "Go on with an interrupted run of the same study: evaluations in the file are "
                "replayed, not redone");
  sub->add_option("--max-new", o->max_new,
                  "Stop (as if interrupted) before evaluating more than this many new designs in "
                  "this invocation")
      ->check(CLI::Range(std::size_t{1}, std::numeric_limits<std::size_t>::max()));
  sub->add_flag("-q,--quiet", o->quiet, "No progress and no table");
  sub->add_flag("--force", o->force, "Replace existing output files");
  sub->callback([o, &exit_code] {
    model::register_builtin_models();
    const auto doc = io::study_document::load(o->study);
    const opt::optimization_study s = opt::read_optimization_study(doc);
    const std::filesystem::path out =
        o->output.empty() ? std::filesystem::path(o->study).filename().replace_extension(".h5")
                          : std::filesystem::path(o->output);
    if (!o->resume && !o->force) refuse_overwrite(out, false);
    const std::size_t threads =
        o->threads > 0 ? o->threads : static_cast<std::size_t>(tbb::info::default_concurrency());
    std::optional<tbb::global_control> limit;
    if (o->threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, o->threads);

    const auto models = opt::optimization_models(s);
    opt::optimization_schema schema = opt::optimization_schema_of(s, doc, threads);
    schema.study_path = o->study;
    std::vector<opt::evaluation_record> replay;
    if (o->resume) replay = opt::resume_history(out, doc);
    const std::size_t in_file = replay.size();
    opt::optimization_writer writer = opt::optimization_writer::create(out, schema);
    opt::history log(std::move(replay));
    progress_printer progress(planned_evaluations(s, models.size()));
    log.on_records = [&](std::span<const opt::evaluation_record> records) {
      writer.append(records);
      if (!o->quiet) progress(log);
    };
    interrupted = false;
    log.stop = &interrupted;
    if (o->max_new > 0) log.max_new = o->max_new;

    if (!o->quiet) {
      fmt::print("contactuq optimize: {}\n", o->study);
      if (!s.base.title.empty()) fmt::print("{}\n", s.base.title);
      fmt::print(
          "model {}, {} design variables, {} CRN samples ({}, seed {}), algorithm {}, {} "
          "thread{}\n",
          s.base.model.name(), schema.design_names.size(), s.base.sampling.samples,
          uq::to_string(s.base.sampling.design.kind), s.base.sampling.design.seed, schema.algorithm,
          threads, threads == 1 ? "" : "s");
      if (o->resume) fmt::print("resuming: {} evaluations in the file are replayed\n", in_file);
      std::fflush(stdout);
    }
    const auto old_handler = std::signal(SIGINT, on_optimize_interrupt);
    std::optional<opt::epistemic_result> result;
    try {
      result =
          opt::optimize_over_models(models, s.base, s.objectives, s.constraints, s.optimizer, log);
    } catch (const opt::interrupted& e) {
      std::signal(SIGINT, old_handler);
      if (!o->quiet) progress(log, true);
      fmt::print(stderr,
                 "\ncontactuq optimize: {}; {} evaluations are in {}. Continue with:\n  contactuq "
                 "optimize {} -o {} "
                 "--resume\n",
                 e.what(), log.records().size(), out.string(), o->study, out.string());
      exit_code = 130;
      return;
    } catch (...) {
      std::signal(SIGINT, old_handler);
      throw;
    }
    std::signal(SIGINT, old_handler);
    if (!o->quiet) progress(log, true);
    writer.finish(*result, io::iso8601_now());
    if (!o->quiet) print_results(s, schema, *result);
    fmt::print("\nwrote {} ({} evaluations: {} new, {} replayed{})\n", out.string(),
               log.records().size(), log.computed(), log.replayed(),
               log.diverged() ? "; the replay diverged from the file" : "");
    bool feasible = true;
    for (const auto& opt_result : result->optima) feasible = feasible && opt_result.feasible;
    exit_code = feasible ? 0 : 1;
  });
}

}  // namespace contactuq::cli
