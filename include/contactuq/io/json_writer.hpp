#pragma once
// A minimal streaming JSON writer for machine-readable output (`summarize --json`, the report
// Python's contactuq.analyze() returns). Numbers are written in their shortest round-trip form;
// numbers that are not finite become null, since JSON has no NaN or infinity.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::io {

class json_writer {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // The key of the next value inside an object.
  void key(std::string_view k);
  void value(double v);
  void value(std::size_t v);
  void value(std::string_view s);
  template <class T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  const std::string& str() const { return out_; }

 private:
  void open(char c);
  void close(char c);
  // A comma and a new line before every value but the first of its container.
  void separate();
  void quote(std::string_view s);

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace contactuq::io
