// The labelled cases of the pin-slot clearance-joint set-up (Skrinjar et al.), each simulated
// once, with force histories.
#include <fmt/format.h>

#include <filesystem>

#include "contactuq/study/pinslot_study.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {

run_result run_pinslot(const io::study_document& doc, const run_options& o, const path& out) {
  const auto st = study::read_pinslot_study(doc);
  if (!out.empty() && out.extension() != ".h5")
    throw std::invalid_argument(fmt::format("{}: the pinslot output must end in .h5", out.string()));
  if (o.check_only) return {.method_name = "pinslot", .output = out, .planned = st.cases.size()};
  io::make_parent_folder(out);
  std::FILE* to = report(o);
  const auto results = study::run_pinslot_study(st);
  fmt::print(to, "\n  {:<22} {:<5} {:<24} {:>7} {:>11} {:>11} {:>9} {:>9} {:>10} {:>8}\n", "case", "joint", "law",
             "impacts", "peak F [N]", "filt. [N]", "|Fx| [N]", "|Fy| [N]", "I [mN*s]", "run [ms]");
  std::size_t failed = 0;
  for (const auto& r : results) {
    const auto& p = r.setup.params;
    if (!r.result.ok()) {
      ++failed;
      fmt::print(to, "  {:<22} {:<5} {:<24} failed: {}\n", r.label, multibody::joint_type_name(p.joint), p.contact.law,
                 r.result.simulation.message);
      continue;
    }
    fmt::print(to, "  {:<22} {:<5} {:<24} {:>7} {:>11.4g} {:>11.4g} {:>9.4g} {:>9.4g} {:>10.4g} {:>8.1f}\n", r.label,
               multibody::joint_type_name(p.joint), p.contact.law, r.result.impacts, r.result.peak_force,
               r.result.peak_force_filtered, r.result.peak_fx, r.result.peak_fy, r.result.impulse * 1e3,
               r.wall_time * 1e3);
  }
  fmt::print(to, "\n{} cases, {} failed\n", results.size(), failed);
  run_result r{.method_name = "pinslot", .output = out, .planned = results.size(), .failed = failed};
  if (!out.empty()) {
    io::write_then_rename(out, [&](const path& file) { study::write_pinslot_h5(file.string(), doc.text(), doc.file(), st.title, results); });
    fmt::print(to, "wrote {} ({} cases)\n", out.string(), results.size());
  }
  r.exit_code = failed == 0 ? 0 : 1;  // a case without its figure is no result
  return r;
}

method pinslot_method() {
  return {.name = "pinslot",
          .summary = "the labelled cases of the pin-slot set-up",
          .counts = "cases",
          .run = run_pinslot};
}

}  // namespace contactuq::engine::detail
