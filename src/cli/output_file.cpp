// Rules every subcommand that writes a result follows before touching it.
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "commands.hpp"

namespace contactuq::cli {

void refuse_overwrite(const std::filesystem::path& path, bool resumable) {
  auto unfinished = path;
  unfinished += ".part";
  if (resumable && std::filesystem::exists(unfinished))
    throw std::invalid_argument(fmt::format("{}: an unfinished run of it is in {}; continue it with --resume, or "
                                            "start over with --force",
                                            path.string(), unfinished.string()));
  if (std::filesystem::exists(path))
    throw std::invalid_argument(fmt::format("{} exists; give another output file (-o), or --force to replace it{}",
                                            path.string(), resumable ? " (--resume continues an unfinished run)" : ""));
}

}  // namespace contactuq::cli
