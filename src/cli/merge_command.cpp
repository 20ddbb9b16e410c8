#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "commands.hpp"
#include "contactuq/io/ensemble_merge.hpp"

namespace contactuq::cli {

void add_merge_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "merge", "Join the shard files of one study (contactuq run --shard k/K) into one ensemble file");
  struct options {
    std::vector<std::string> parts;
    std::string output;
    int compression = 1;
    bool force = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("parts", o->parts, "Shard files, every shard 1/K .. K/K once, in any order")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "Merged ensemble file to write")->required();
  sub->add_option("--compression", o->compression, "zlib level of the datasets, 0 (none) to 9")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  sub->add_flag("--force", o->force, "Replace an existing output file");
  sub->callback([o, &exit_code] {
    if (!o->force) refuse_overwrite(o->output, false);
    const std::vector<std::filesystem::path> parts(o->parts.begin(), o->parts.end());
    const io::merge_summary m = io::merge_ensembles(parts, o->output, {.deflate_level = o->compression});
    fmt::print("wrote {} ({} samples from {} shards)\n", o->output, m.samples, m.parts);
    exit_code = 0;
  });
}

}  // namespace contactuq::cli
