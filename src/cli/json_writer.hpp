#pragma once
// A minimal streaming JSON writer for machine-readable command output (`--json`). Numbers that
// are not finite become null, since JSON has no NaN or infinity.

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::cli {

class json_writer {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // The key of the next value inside an object.
  void key(std::string_view k) {
    separate();
    quote(k);
    out_ += ": ";
    after_key_ = true;
  }
  void value(double v) {
    separate();
    out_ += std::isfinite(v) ? fmt::format("{}", v) : std::string("null");
  }
  void value(std::size_t v) {
    separate();
    out_ += fmt::format("{}", v);
  }
  void value(std::string_view s) {
    separate();
    quote(s);
  }
  template <class T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  const std::string& str() const { return out_; }

 private:
  void open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    first_.pop_back();
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
    out_ += c;
  }
  // A comma and a new line before every value but the first of its container.
  void separate() {
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
  void quote(std::string_view s) {
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

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace contactuq::cli
