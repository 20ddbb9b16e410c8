// The verbs of earlier releases, each `contactuq run` for its methods with the output options it
// has always had; --help lists them last, as aliases (main.cpp).
#include <fmt/format.h>

#include <limits>

#include "commands.hpp"

namespace contactuq::cli {
namespace {

struct alias_options {
  std::string study, output;
  engine::run_options run;
  bool quiet = false;
};

CLI::App* add_alias(CLI::App& app, const char* name, const char* help, const char* example,
                    const std::shared_ptr<alias_options>& o) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->add_option("study", o->study, fmt::format("Study file (TOML), e.g. {}", example))
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_flag("--force", o->run.force, "Replace existing output files");
  return sub;
}

}  // namespace

void add_curve_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<alias_options>();
  CLI::App* sub = add_alias(app, "curve",
                            "Alias of `run` for curve and sweep studies: a receptacle-pin insertion stroke "
                            "(forward and back), summarised; writes a file only with -o",
                            "studies/williams_bifurcated.toml", o);
  sub->add_option("-o,--output", o->output, "Write the curves to OUT.csv or OUT.h5");
  sub->add_flag("-q,--quiet", o->quiet, "Print only where the results went");
  sub->callback([o, &exit_code] {
    o->run.output = o->output;
    o->run.write_result = !o->output.empty();
    exit_code = run_engine(o->study, o->run, o->quiet, "curve", {"curve", "sweep"});
  });
}

void add_impact_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<alias_options>();
  CLI::App* sub = add_alias(app, "impact",
                            "Alias of `run` for impact studies: a two-body impact with each contact law over a "
                            "range of approach velocities",
                            "studies/impact_models.toml", o);
  sub->add_option("-o,--output", o->output,
                  "Write every impact to OUT.h5 or OUT.csv (default: the study's [output] file)");
  sub->callback([o, &exit_code] {
    o->run.output = o->output;
    exit_code = run_engine(o->study, o->run, false, "impact", {"impact"});
  });
}

void add_pinslot_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<alias_options>();
  CLI::App* sub = add_alias(app, "pinslot",
                            "Alias of `run` for pinslot studies: the pin-slot clearance-joint set-up of Skrinjar "
                            "et al., each case of the study",
                            "studies/pinslot_validation.toml", o);
  sub->add_option("-o,--output", o->output, "Write force histories to OUT.h5 (default: the study's [output] file)");
  sub->callback([o, &exit_code] {
    o->run.output = o->output;
    exit_code = run_engine(o->study, o->run, false, "pinslot", {"pinslot"});
  });
}

void add_fit_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<alias_options>();
  std::string csv, toml;
  CLI::App* sub = add_alias(app, "fit",
                            "Alias of `run` for calibrate studies: model inputs fitted to measured data; writes a "
                            "file only with -o",
                            "studies/fit_williams.toml", o);
  sub->add_option("-o,--output", o->output,
                  "Write the fit to OUT.h5 (format contactuq-fit or contactuq-calibration; contactuq plot draws it)");
  sub->add_option("--csv", o->run.csv, "Write measured and fitted force at every point to OUT.csv");
  sub->add_option("--export", o->run.export_study,
                  "Write the fitted parameters as [parameters.<x>] tables of a run study to OUT.toml");
  sub->add_flag("-q,--quiet", o->quiet, "Print only where the results went");
  sub->callback([o, &exit_code] {
    o->run.output = o->output;
    o->run.write_result = !o->output.empty();
    exit_code = run_engine(o->study, o->run, o->quiet, "fit", {"calibrate"});
  });
}

void add_optimize_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<alias_options>();
  CLI::App* sub = add_alias(app, "optimize",
                            "Alias of `run` for optimize studies: robust design, the design variables optimised "
                            "under the aleatoric inputs (and contact models)",
                            "studies/receptacle_robust_design.toml", o);
  sub->add_option("-o,--output", o->output, "File to write (default: the study's name with .h5)");
  sub->add_option("-j,--threads", o->run.threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 65536));
  sub->add_flag("--resume", o->run.resume,
                "Go on with an interrupted run of the same study: evaluations in the file are replayed, not redone");
  sub->add_option("--time-limit", o->run.time_limit,
                  "Seconds after which the search stops cleanly as if interrupted (exit 130; --resume continues it)")
      ->check(CLI::Range(1e-3, 1e9));
  sub->add_option("--max-new", o->run.max_new,
                  "Stop (as if interrupted) before evaluating more than this many new designs in this invocation")
      ->check(CLI::Range(std::size_t{1}, std::numeric_limits<std::size_t>::max()));
  sub->add_flag("-q,--quiet", o->quiet, "No progress and no table");
  sub->callback([o, &exit_code] {
    o->run.output = o->output;
    exit_code = run_engine(o->study, o->run, o->quiet, "optimize", {"optimize"});
  });
}

}  // namespace contactuq::cli
