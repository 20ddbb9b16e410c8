#pragma once
// Subcommands of the `contactuq` tool. Each registers its options on the app and a callback
// that runs it and stores its exit code; the callbacks call the library and print results.

#include <CLI/CLI.hpp>
#include <filesystem>

namespace contactuq::cli {

// The git commit the tool was built from ("-dirty" appended for local changes), "" if unknown.
const char* git_commit();

// Throws std::invalid_argument when `path` (or an unfinished run of it, path + ".part") exists:
// a result is replaced only with --force, and continued only with --resume.
void refuse_overwrite(const std::filesystem::path& path, bool resumable = true);

void add_curve_command(CLI::App& app, int& exit_code);
void add_units_command(CLI::App& app, int& exit_code);
void add_impact_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_optimize_command(CLI::App& app, int& exit_code);
void add_summarize_command(CLI::App& app, int& exit_code);
void add_plot_command(CLI::App& app, int& exit_code);
void add_pinslot_command(CLI::App& app, int& exit_code);
void add_fit_command(CLI::App& app, int& exit_code);
void add_synthesize_command(CLI::App& app, int& exit_code);

}  // namespace contactuq::cli
