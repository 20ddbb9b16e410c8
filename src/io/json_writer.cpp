#include "contactuq/io/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace contactuq::io {

void json_writer::key(std::string_view k) {
  separate();
  quote(k);
  out_ += ": ";
  after_key_ = true;
}

void json_writer::value(double v) {
  separate();
  out_ += std::isfinite(v) ? fmt::format("{}", v) : std::string("null");
}

void json_writer::value(std::size_t v) {
  separate();
  out_ += fmt::format("{}", v);
}

void json_writer::value(std::string_view s) {
  separate();
  quote(s);
}

void json_writer::open(char c) {
  separate();
  out_ += c;
  first_.push_back(true);
}

void json_writer::close(char c) {
  first_.pop_back();
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
  out_ += c;
}

void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void json_writer::quote(std::string_view s) {
  out_ += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\n': out_ += "\\n"; break;
      case '\t': out_ += "\\t"; break;
      case '\r': out_ += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out_ += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else
          out_ += c;
    }
  }
  out_ += '"';
}

}  // namespace contactuq::io
