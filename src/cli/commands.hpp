#pragma once
// Subcommands of the `contactuq` tool. Each registers its options on the app and a callback
// that runs it and stores its exit code; the callbacks call the library and print results.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include "contactuq/engine/run_study.hpp"

namespace contactuq::cli {

// The git commit the tool was built from ("-dirty" appended for local changes), "" if unknown.
const char* git_commit();

using engine::refuse_overwrite;

// Runs a study through engine::run_study with the report on stdout (none when quiet), progress
// on stderr and Ctrl-C as a clean stop; returns the exit code. `command` and `accepted` name
// the subcommand and the methods it runs (empty: every method).
// Where `run` evaluates the samples of every method (engine::run_options::executor): nullptr
// (this process) unless main set the executor over the ranks of an MPI job.
void set_executor(study::executor* executor);

int run_engine(const std::string& study, engine::run_options options, bool quiet, std::string_view command,
               std::initializer_list<std::string_view> accepted, bool timing = false);

// `summarize` of any result file that is not an ensemble: its attributes and datasets.
void print_result_description(const std::string& file, bool json);

void add_curve_command(CLI::App& app, int& exit_code);
void add_units_command(CLI::App& app, int& exit_code);
void add_impact_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_check_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_optimize_command(CLI::App& app, int& exit_code);
void add_summarize_command(CLI::App& app, int& exit_code);
void add_plot_command(CLI::App& app, int& exit_code);
void add_pinslot_command(CLI::App& app, int& exit_code);
void add_fit_command(CLI::App& app, int& exit_code);
void add_synthesize_command(CLI::App& app, int& exit_code);
void add_models_command(CLI::App& app, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);

}  // namespace contactuq::cli
