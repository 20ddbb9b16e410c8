#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>

#include "commands.hpp"

// Last: <signal.h> defines macros (e.g. si_value) that could clash with names in our headers.
#include <csignal>

namespace contactuq::cli {
namespace {

std::atomic<bool> interrupted = false;
extern "C" void on_interrupt(int) { interrupted = true; }

// A bar with rate and ETA on a terminal, a plain line every 10 s otherwise.
class progress_printer {
 public:
  explicit progress_printer(std::string what) : what_(std::move(what)), tty_(isatty(fileno(stderr)) != 0) {}
  void operator()(std::size_t done, std::size_t total) {
    const auto now = clock::now();
    if (!first_) first_ = done;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (done < total && now - last_ < (tty_ ? std::chrono::milliseconds(200) : std::chrono::seconds(10))) return;
    last_ = now;
    const double rate = elapsed > 0 ? static_cast<double>(done - *first_) / elapsed : 0.0;
    const double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0.0;
    if (tty_) {
      const std::size_t width = 30, filled = total > 0 ? width * std::min(done, total) / total : width;
      fmt::print(stderr, "\r[{}{}] {}/{} {}, ETA {}   ", std::string(filled, '#'), std::string(width - filled, '.'),
                 done, total, rate_text(rate), duration_text(eta));
      if (done >= total) fmt::print(stderr, "\n");
    } else {
      fmt::print(stderr, "{}/{} {}, {}, ETA {}\n", done, total, what_, rate_text(rate), duration_text(eta));
    }
  }

 private:
  // "12 samples/s", or "8.3 s per evaluation" where fewer than one finishes a second.
  std::string rate_text(double rate) const {
    if (rate >= 1) return fmt::format("{:.0f} {}/s", rate, what_);
    if (rate <= 0) return fmt::format("- {}/s", what_);
    if (1 / rate < 100) return fmt::format("{:.1f} s per {}", 1 / rate, singular_);
    return fmt::format("{:.0f} s per {}", 1 / rate, singular_);
  }
  static std::string duration_text(double seconds) {
    if (seconds < 120) return fmt::format("{:.0f} s", seconds);
    if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
    return fmt::format("{:.1f} h", seconds / 3600);
  }

  using clock = std::chrono::steady_clock;
  std::string what_, singular_ = what_.substr(0, what_.size() - 1);
  bool tty_;
  std::optional<std::size_t> first_;
  clock::time_point start_ = clock::now();
  clock::time_point last_ = start_;
};

}  // namespace

namespace {
study::executor* executor = nullptr;
}

void set_executor(study::executor* e) { executor = e; }

int run_engine(const std::string& study, engine::run_options o, bool quiet, std::string_view command,
               std::initializer_list<std::string_view> accepted, bool timing) {
  const auto doc = io::study_document::load(study);
  if (accepted.size() > 0) o.fallback = *accepted.begin();
  const engine::method& m = engine::method_of(doc, o.fallback);
  if (accepted.size() > 0 && std::find(accepted.begin(), accepted.end(), m.name) == accepted.end())
    throw std::invalid_argument(fmt::format("{}: a {} study; `contactuq {}` runs {}; run it with `contactuq run {}`",
                                            study, m.name, command, *accepted.begin(), study));
  o.build_commit = git_commit();
  o.report = quiet ? nullptr : stdout;
  o.errors = stderr;
  o.stop = &interrupted;
  o.executor = executor;
  progress_printer progress(m.progress_unit.empty() ? "cases" : m.progress_unit);
  if (!quiet && !m.progress_unit.empty()) o.progress = std::ref(progress);
  interrupted = false;
  const auto old_handler = std::signal(SIGINT, on_interrupt);
  engine::run_result r;
  try {
    r = engine::run_study(doc, o);
  } catch (...) {
    std::signal(SIGINT, old_handler);
    throw;
  }
  std::signal(SIGINT, old_handler);
  if (quiet && r.exit_code == 0 && !r.output.empty()) fmt::print("wrote {}\n", r.output.string());
  if (timing && !r.timing.empty()) {
    fmt::print(stderr, "timing:");
    for (const auto& [phase, seconds] : r.timing) fmt::print(stderr, " {} {:.4f} s;", phase, seconds);
    fmt::print(stderr, "\n");
  }
  return r.exit_code;
}

void add_run_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "run", fmt::format("Run any study ({}) into one result file", engine::method_names()));
  struct options {
    std::string study;
    engine::run_options run;
    std::string output;
    bool quiet = false;
    bool timing = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("study", o->study, "Study file (TOML), e.g. studies/quickstart.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output,
                  "Result file to write (default: the study's [output] file, else its name with .h5)");
  sub->add_option("-j,--threads", o->run.threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 65536));
  sub->add_option("--compression", o->run.compression,
                  "zlib level of the datasets, 0 (none, fastest to write) to 9; a resumed file keeps its own")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  sub->add_option("--shard", o->run.shard,
                  "Evaluate only part k of K (k/K, 1 <= k <= K) of a sampling plan into its own file; join the "
                  "parts with `contactuq merge`");
  sub->add_option("--max-new", o->run.max_new,
                  "optimize, reliability: stop (as if interrupted) before evaluating more than this many new designs "
                  "(reliability: model runs)")
      ->check(CLI::Range(std::size_t{1}, std::numeric_limits<std::size_t>::max()));
  sub->add_option("--time-limit", o->run.time_limit,
                  "Seconds after which a sample, nested, optimize or reliability run stops cleanly as if interrupted (exit 130; "
                  "--resume continues it): a cluster job's wall time")
      ->check(CLI::Range(1e-3, 1e9));
  // Hidden: for tests that interrupt a run at a known point (a signal, a kill, the time limit).
  sub->add_option("--pause-after-blocks", o->run.pause_after_blocks,
                  "sample and nested studies: after this many blocks, wait (samples written) until interrupted")
      ->group("");
  sub->add_flag("--resume", o->run.resume, "Finish an interrupted run of the same study in the same file");
  sub->add_flag("--force", o->run.force, "Replace an existing result file (or an unfinished run of it)");
  sub->add_flag("--yes", o->run.yes, "Start even when the run needs more memory than half of this machine's");
  sub->add_flag("-q,--quiet", o->quiet, "No progress and no summary");
  sub->add_flag("--timing", o->timing,
                "sample and nested studies: print where the time went (plan, open, evaluate, of it waiting for the "
                "writer, summary, the rest of finishing the file) on stderr");
  sub->callback([o, &exit_code] {
    o->run.output = o->output;
    exit_code = run_engine(o->study, o->run, o->quiet, "run", {}, o->timing);
  });
}

}  // namespace contactuq::cli
