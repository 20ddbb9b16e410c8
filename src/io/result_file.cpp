#include "contactuq/io/result_file.hpp"

#include <system_error>

namespace contactuq::io {

hdf5::dataset write_result_header(hdf5::file& f, const result_header& header) {
  f.set_attribute("format", header.format);
  f.set_attribute("format_version", header.format_version);
  f.set_attribute("method", header.method);
  f.set_attribute("model", header.model);
  if (!header.title.empty()) f.set_attribute("title", header.title);
  f.set_attribute("contactuq_version", CONTACTUQ_VERSION);
  f.set_attribute("study_path", header.study_path);
  return f.write_text("study", header.study_text);
}

void make_parent_folder(const std::filesystem::path& out) {
  if (const auto dir = out.parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
}

void write_then_rename(const std::filesystem::path& out, const std::function<void(const std::filesystem::path&)>& write) {
  auto part = out;
  part += ".part";
  try {
    write(part);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(part, ignored);
    throw;
  }
  std::filesystem::rename(part, out);
}

}  // namespace contactuq::io
