// `contactuq plot FILE.h5`: report figures of any contactuq HDF5 file, drawn by the Python
// package under python/ (matplotlib), which picks the plots by the file's `format` attribute.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/paths.hpp"
#include "json_writer.hpp"

namespace contactuq::cli {
namespace {

// The interpreter: $CONTACTUQ_PYTHON, else Debian's /usr/bin/python3 (which sees the
// python3-matplotlib and python3-h5py packages), else python3 on the PATH.
std::string python_interpreter() {
  if (const char* env = std::getenv("CONTACTUQ_PYTHON"); env && *env) return env;
  if (std::filesystem::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}


// Runs the program with these arguments (no shell) and returns its exit status. Its stderr
// goes to a temporary file, passed on afterwards, except that a Python traceback becomes one
// line with its last line (the error) and exit code 2.
int run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::FILE* errors = std::tmpfile();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("plot: cannot start a process (fork failed)");
  if (pid == 0) {
    if (errors != nullptr) dup2(fileno(errors), 2);
    execvp(argv[0], argv.data());
    fmt::print(stderr, "contactuq plot: cannot run {}: {}\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("plot: lost the plotting process");
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (WIFSIGNALED(status)) {
    // HDF5 1.10 can fault on a damaged file that h5py walks: one clear line, exit code 2.
    if (errors != nullptr) std::fclose(errors);
    fmt::print(stderr, "contactuq: error: plot: the plotting process ({}) was killed by signal {} ({}); a damaged "
                       "file can do that\n",
               args[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
    return 2;
  }
  if (errors != nullptr) {
    std::string text;
    std::rewind(errors);
    char buffer[4096];
    while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, errors)) text.append(buffer, n);
    std::fclose(errors);
    if (text.find("Traceback (most recent call last)") != std::string::npos) {
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      fmt::print(stderr, "contactuq: error: plot: {}\n", text.substr(text.find_last_of('\n') + 1));
      return code == 0 ? 0 : 2;
    }
    std::fputs(text.c_str(), stderr);
  }
  return code;
}

// The study's [output] units for the Python figures: {"by_name": {variable: [unit, factor]},
// "by_si": {SI unit: [unit, factor]}} with shown value = SI value * factor; "" when the study
// asks for none (the figures then use their own report units).
std::string display_units_json(const std::filesystem::path& file) {
  const engine::shown_units shown = engine::display_units_of_result(file);
  if (shown.units.base.is_si() && shown.units.by_name.empty()) return {};
  json_writer w;
  const auto entry = [&w](const std::string& unit, double factor) {
    w.begin_array();
    w.value(unit);
    w.value(factor);
    w.end_array();
  };
  w.begin_object();
  w.key("by_name");
  w.begin_object();
  for (const auto& v : shown.variables) {
    w.key(v.name);
    entry(shown.units.unit_for(v.name, v.dim), shown.units.factor(v.name, v.dim));
  }
  w.end_object();
  w.key("by_si");
  w.begin_object();
  std::vector<std::string> seen;
  for (const auto& v : shown.variables) {
    const std::string si = units::si_unit(v.dim);
    if (si.empty() || std::find(seen.begin(), seen.end(), si) != seen.end()) continue;
    seen.push_back(si);
    w.key(si);
    entry(shown.units.base.unit_for(v.dim), shown.units.base.from_si(1.0, v.dim));
  }
  w.end_object();
  w.end_object();
  return w.str();
}

}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "plot", "Draw report figures (PNG, SVG or PDF) of a result file: histograms, CDFs, rankings, bands, ...; "
              "a figure that cannot be drawn is skipped with its reason (exit code 3)");
  struct options {
    std::string file;
    std::string outdir;
    std::string format = "png";
    std::vector<std::string> outputs;
    std::vector<std::string> curves;
    std::string map;
  };
  auto o = std::make_shared<options>();
  sub->add_option("file", o->file, "HDF5 file written by contactuq (run, ...)")->required()->check(CLI::ExistingFile);
  sub->add_option("-o,--outdir", o->outdir, "Folder for the figures (default: FILE without .h5, plus _plots)");
  sub->add_option("--format", o->format, "Image format")->check(CLI::IsMember({"png", "svg", "pdf"}))->capture_default_str();
  sub->add_option("--output", o->outputs, "Scalar output(s) to plot (default: all)");
  sub->add_option("--curve", o->curves, "Curve output(s) to plot (default: all)");
  sub->add_option("--map", o->map,
                  "X,Y: the two inputs over which a 0/1 output (success) gets a map of P(1) (default: the two "
                  "with the largest rank correlation with it)");
  sub->callback([o, &exit_code] {
    // Read here first: a damaged file is one clear error (not a Python traceback), and an
    // ensemble in which no sample succeeded has nothing to draw (exit code 1).
    if (io::file_format(o->file) == "contactuq-ensemble") {
      const io::ensemble e = io::read_ensemble(o->file);
      if (std::count(e.status.begin(), e.status.end(), static_cast<std::int32_t>(io::sample_status::ok)) == 0) {
        fmt::print(stderr, "contactuq plot: {}: no sample succeeded ({} of {} written); nothing to plot\n", o->file,
                   e.rows, e.schema.metadata.samples);
        exit_code = 1;
        return;
      }
    }
    std::filesystem::path outdir = o->outdir;
    if (outdir.empty()) {
      outdir = std::filesystem::path(o->file);
      outdir.replace_filename(outdir.stem().string() + "_plots");
    }
    const std::string dir = python_dir().string();
    const std::string old = std::getenv("PYTHONPATH") ? std::getenv("PYTHONPATH") : "";
    setenv("PYTHONPATH", (old.empty() ? dir : fmt::format("{}:{}", dir, old)).c_str(), 1);
    setenv("MPLBACKEND", "Agg", 0);
    // The figures of nested studies use `contactuq summarize --json` of this very executable.
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) setenv("CONTACTUQ_EXE", self.c_str(), 1);
    std::vector<std::string> args = {python_interpreter(), "-m",      "contactuq.plot", o->file, "--outdir",
                                     outdir.string(),      "--format", o->format};
    if (const std::string shown = display_units_json(o->file); !shown.empty()) {
      args.push_back("--display-units");
      args.push_back(shown);
    }
    for (const auto& name : o->outputs) {
      args.push_back("--output");
      args.push_back(name);
    }
    for (const auto& name : o->curves) {
      args.push_back("--curve");
      args.push_back(name);
    }
    if (!o->map.empty()) {
      args.push_back("--map");
      args.push_back(o->map);
    }
    exit_code = run_program(args);
  });
}

}  // namespace contactuq::cli
