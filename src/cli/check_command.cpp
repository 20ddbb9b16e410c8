#include <fmt/format.h>

#include <exception>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "contactuq/model/external_model.hpp"

namespace contactuq::cli {

void add_check_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "check", "Read and check studies as `run` would (keys, units, ranges, data files, the plan's size) without "
               "evaluating anything or writing a file. A study with an external model runs programs, as a Makefile does: "
               "check lists their commands");
  struct options {
    std::vector<std::string> studies;
    bool yes = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("studies", o->studies, "Study files (TOML)")->required()->check(CLI::ExistingFile);
  sub->add_flag("--yes", o->yes, "Do not count a plan that needs over half of this machine's memory as an error");
  sub->callback([o, &exit_code] {
    std::size_t bad = 0;
    for (const std::string& study : o->studies) {
      // Every study is checked and reported, so one call lists every problem of a batch.
      try {
        const auto doc = io::study_document::load(study);
        engine::run_options check;
        check.check_only = true;
        check.yes = o->yes;
        const engine::run_result r = engine::run_study(doc, check);
        fmt::print("{}: ok: {} study of model {}, {} {} -> {}\n", study, r.method_name,
                   r.model.empty() ? "-" : r.model, r.planned, engine::find_method(r.method_name).counts,
                   r.output.string());
        // A study with an external model runs programs, as a Makefile does: say which.
        if (const io::study_table root = doc.root(); root.has("model"))
          for (const std::string& command : model::external_commands(root.table("model")))
            fmt::print("{}: runs a program once per evaluation: {}\n", study, command);
      } catch (const std::bad_alloc&) {
        ++bad;
        fmt::print(stderr, "contactuq: error: {}: out of memory while reading the study\n", study);
      } catch (const std::exception& e) {
        ++bad;
        fmt::print(stderr, "contactuq: error: {}\n", e.what());
      }
    }
    exit_code = bad > 0 ? 2 : 0;
  });
}

}  // namespace contactuq::cli
