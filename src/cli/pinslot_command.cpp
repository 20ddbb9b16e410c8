#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "contactuq/study/pinslot_study.hpp"

namespace contactuq::cli {

void add_pinslot_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "pinslot", "Simulate the pin-slot clearance-joint set-up of Skrinjar et al. for each case of a study");
  struct options {
    std::string study, output;
    bool force = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("study", o->study, "Study file (TOML), e.g. studies/pinslot_validation.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "Write force histories to OUT.h5 (default: the study's [output] file)");
  sub->add_flag("--force", o->force, "Replace existing output files");
  sub->callback([o, &exit_code] {
    const auto doc = io::study_document::load(o->study);
    const auto st = study::read_pinslot_study(doc);
    const auto results = study::run_pinslot_study(st);
    fmt::print("contactuq pinslot: {}\n", o->study);
    if (!st.title.empty()) fmt::print("{}\n", st.title);
    fmt::print("\n  {:<22} {:<5} {:<24} {:>7} {:>11} {:>11} {:>9} {:>9} {:>10} {:>8}\n", "case", "joint", "law",
               "impacts", "peak F [N]", "filt. [N]", "|Fx| [N]", "|Fy| [N]", "I [mN*s]", "run [ms]");
    std::size_t failed = 0;
    for (const auto& r : results) {
      const auto& p = r.setup.params;
      if (!r.result.ok()) {
        ++failed;
        fmt::print("  {:<22} {:<5} {:<24} failed: {}\n", r.label, multibody::joint_type_name(p.joint), p.contact.law,
                   r.result.simulation.message);
        continue;
      }
      fmt::print("  {:<22} {:<5} {:<24} {:>7} {:>11.4g} {:>11.4g} {:>9.4g} {:>9.4g} {:>10.4g} {:>8.1f}\n", r.label,
                 multibody::joint_type_name(p.joint), p.contact.law, r.result.impacts, r.result.peak_force,
                 r.result.peak_force_filtered, r.result.peak_fx, r.result.peak_fy, r.result.impulse * 1e3,
                 r.wall_time * 1e3);
    }
    fmt::print("\n{} cases, {} failed\n", results.size(), failed);
    const std::string output = o->output.empty() ? st.output : o->output;
    if (!output.empty()) {
      if (!o->force) refuse_overwrite(output, false);
      if (std::filesystem::path(output).extension() != ".h5")
        throw std::invalid_argument(fmt::format("{}: the pinslot output must end in .h5", output));
      const auto parent = std::filesystem::path(output).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
      study::write_pinslot_h5(output, doc.text(), st.title, results);
      fmt::print("wrote {} ({} cases)\n", output, results.size());
    }
    exit_code = failed == 0 ? 0 : 1;
  });
}

}  // namespace contactuq::cli
