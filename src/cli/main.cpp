// contactuq: robust design and uncertainty quantification for mechanisms with contacts.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <functional>
#include <initializer_list>
#include <string>
#include <new>

#include "commands.hpp"
#include "contactuq/paths.hpp"
#include "contactuq/mpi/launcher.hpp"
#ifdef CONTACTUQ_WITH_MPI
#include "contactuq/mpi/world_runner.hpp"
#endif

int run_command_line(int argc, char** argv);

// Under an MPI launcher, rank 0 runs the command and the other ranks evaluate its samples, or run
// its calibration alongside (mpi/world_runner.hpp). A build without MPI refuses to run as several copies of itself,
// which would write one result file from each.
int main(int argc, char** argv) {
#ifdef CONTACTUQ_WITH_MPI
  contactuq::mpi::session mpi(argc, argv);
  if (mpi.rank() != 0) return mpi.serve();
  contactuq::mpi::world_runner world(mpi);
  if (mpi.size() > 1) contactuq::cli::set_executor(&world);
  return run_command_line(argc, argv);
#else
  if (contactuq::mpi::launched()) {
    fmt::print(stderr, "contactuq: error: this contactuq is built without MPI; run it without mpirun (or build it "
                       "with Open MPI installed: Debian's libopenmpi-dev)\n");
    return 2;
  }
  return run_command_line(argc, argv);
#endif
}

int run_command_line(int argc, char** argv) {
  CLI::App app{"contactuq: robust design and uncertainty quantification for mechanisms with contacts"};
  // The version and where this executable finds its data and Python package (paths.hpp).
  app.set_version_flag("--version", std::function<std::string()>([] {
    return fmt::format("contactuq {}\ndata: {}\npython: {}", CONTACTUQ_VERSION, contactuq::data_dir().string(),
                       contactuq::python_dir().string());
  }));
  app.require_subcommand(1);
  int exit_code = 0;
  // The verb table, in the order --help lists it: the everyday verbs, the others, and last the
  // verbs of earlier releases, each `run` restricted to its methods.
  contactuq::cli::add_run_command(app, exit_code);
  contactuq::cli::add_check_command(app, exit_code);
  contactuq::cli::add_summarize_command(app, exit_code);
  contactuq::cli::add_plot_command(app, exit_code);
  contactuq::cli::add_models_command(app, exit_code);
  contactuq::cli::add_units_command(app, exit_code);
  contactuq::cli::add_merge_command(app, exit_code);
  contactuq::cli::add_synthesize_command(app, exit_code);
  contactuq::cli::add_serve_command(app, exit_code);
  contactuq::cli::add_curve_command(app, exit_code);
  contactuq::cli::add_impact_command(app, exit_code);
  contactuq::cli::add_pinslot_command(app, exit_code);
  contactuq::cli::add_optimize_command(app, exit_code);
  contactuq::cli::add_fit_command(app, exit_code);
  const auto group = [&app](std::initializer_list<const char*> verbs, const std::string& name) {
    for (const char* verb : verbs) app.get_subcommand(verb)->group(name);
  };
  group({"run", "check", "summarize", "plot", "models"}, "Commands");
  group({"units", "merge", "synthesize", "serve"}, "More commands");
  group({"curve", "impact", "pinslot", "optimize", "fit"}, "Aliases of `run` (verbs of earlier releases)");
  // A write past the file size limit fails with EFBIG, reported like a full disk, instead of
  // killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  // Exit codes (README, "Exit codes"): 0 done; 1 ran, but without a result (every case
  // failed, or aborted by failures = "abort"); 2 error (bad input, a file that cannot be read
  // or written, a refusal); 3 plot skipped some figures and wrote the others; 130 interrupted.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "contactuq: error: out of memory (std::bad_alloc): the study needs more memory than this "
                       "machine has; use fewer samples, points or cases\n");
    return 2;
  } catch (const std::exception& e) {
    // Bad input of any kind: one clear line, exit code 2.
    fmt::print(stderr, "contactuq: error: {}\n", e.what());
    return 2;
  }
  return exit_code;
}
