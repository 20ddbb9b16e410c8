#include "contactuq/calibrate/insertion_data.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "contactuq/io/text_output.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::calibrate {

namespace {

constexpr std::string_view example_header = "insertion,direction,x [in],F [grf]";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(trim(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

enum class column_kind { insertion, direction, x, force, weight };

struct column {
  column_kind kind;
  std::string name;  // as written, for messages
  double to_si = 1.0;
};

// "x [in]" -> ("x", "in"); "insertion" -> ("insertion", nullopt).
std::pair<std::string_view, std::optional<std::string_view>> name_and_unit(std::string_view cell) {
  const std::size_t open = cell.find('[');
  if (open == std::string_view::npos) return {cell, std::nullopt};
  const std::size_t close = cell.find(']', open);
  const std::string_view unit = close == std::string_view::npos
                                    ? cell.substr(open + 1)
                                    : cell.substr(open + 1, close - open - 1);
  return {trim(cell.substr(0, open)), trim(unit)};
}

std::vector<column> read_header(std::string_view line, const std::string& file, int line_no,
                                std::string& length_unit, std::string& force_unit) {
  auto fail = [&](const std::string& message) -> data_error {
    return data_error(file, line_no, message);
  };
  std::vector<column> columns;
  std::set<column_kind> seen;
  for (std::string_view cell : split(line)) {
    const auto [name, unit] = name_and_unit(cell);
    column c{column_kind::x, std::string(cell), 1.0};
    units::dimension expected = units::dimensionless;
    if (name == "x" || name == "displacement") {
      c.kind = column_kind::x;
      expected = units::length;
    } else if (name == "F" || name == "force") {
      c.kind = column_kind::force;
      expected = units::force;
    } else if (name == "insertion") {
      c.kind = column_kind::insertion;
    } else if (name == "direction") {
      c.kind = column_kind::direction;
    } else if (name == "weight") {
      c.kind = column_kind::weight;
    } else {
      throw fail(
          fmt::format("unknown column \"{}\"; the columns are x [length unit] (or displacement), "
                      "F [force unit] (or force), and optionally insertion, direction, weight; "
                      "e.g. \"{}\"",
                      cell, example_header));
    }
    if (!seen.insert(c.kind).second) throw fail(fmt::format("column \"{}\" appears twice", cell));
    if (expected == units::dimensionless) {
      if (unit && !unit->empty() && c.kind == column_kind::weight) {
        try {
          const units::unit w = units::parse_unit(*unit);
          if (!(w.dim == units::dimensionless))
            throw std::invalid_argument("weights are dimensionless");
          c.to_si = w.to_si;
        } catch (const std::invalid_argument& e) {
          throw fail(fmt::format("column \"{}\": {}", cell, e.what()));
        }
      } else if (unit) {
        throw fail(fmt::format("column \"{}\" takes no unit", cell));
      }
    } else {
      if (!unit || unit->empty())
        throw fail(fmt::format(
            "column \"{}\" has no unit: write it with its unit in brackets, e.g. \"{} [{}]\"", cell,
            name, expected == units::length ? "in" : "grf"));
      units::unit u;
      try {
        u = units::parse_unit(*unit);
      } catch (const std::invalid_argument& e) {
        throw fail(fmt::format("column \"{}\": {}", cell, e.what()));
      }
      if (!(u.dim == expected))
        throw fail(fmt::format("column \"{}\": [{}] is {}, expected {} (e.g. \"{} [{}]\")", cell,
                               *unit, units::describe(u.dim), units::describe(expected), name,
                               expected == units::length ? "in" : "grf"));
      c.to_si = u.to_si;
      (c.kind == column_kind::x ? length_unit : force_unit) = std::string(*unit);
    }
    columns.push_back(std::move(c));
  }
  if (!seen.count(column_kind::x) || !seen.count(column_kind::force))
    throw fail(
        fmt::format("the header needs a displacement column x [unit] and a force column F [unit], "
                    "e.g. \"{}\"; found \"{}\"",
                    example_header, trim(line)));
  return columns;
}

double parse_number(std::string_view cell, const column& c, const std::string& file, int line_no) {
  if (cell.empty()) throw data_error(file, line_no, fmt::format("{}: empty cell", c.name));
  double v = 0.0;
  const char* first = cell.data();
  if (*first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, cell.data() + cell.size(), v);
  if (ec != std::errc() || end != cell.data() + cell.size())
    throw data_error(file, line_no, fmt::format("{} = \"{}\" is not a number", c.name, cell));
  if (!std::isfinite(v))
    throw data_error(file, line_no,
                     fmt::format("{} = {} is not a finite number: remove the point or the stroke",
                                 c.name, cell));
  return v * c.to_si;
}

struct raw_point {
  double x, force, weight;
  int line;
  std::optional<stroke_direction> direction;
};

}  // namespace

namespace {

// The message with control characters and bytes that are no UTF-8 written as \xNN, and cells
// of a binary file cut short: an error about a file never echoes raw bytes to the terminal.
std::string printable(std::string_view text) {
  constexpr std::size_t longest = 400;
  std::string out;
  for (std::size_t i = 0; i < text.size() && out.size() < longest;) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!valid || (length == 1 && (c < 0x20 || c == 0x7F))) {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  if (out.size() >= longest) out += "...";
  return out;
}

}  // namespace

data_error::data_error(std::string file, int line, const std::string& message)
    : std::runtime_error(line > 0 ? fmt::format("{}:{}: {}", file, line, printable(message))
                                  : fmt::format("{}: {}", file, printable(message))),
      file_(std::move(file)),
      line_(line) {}

std::string_view to_string(stroke_direction d) {
  return d == stroke_direction::forward ? "forward" : "reverse";
}

std::string_view to_string(force_convention c) {
  return c == force_convention::on_receptacle ? "on_receptacle" : "insertion_positive";
}

std::vector<std::string> insertion_data::insertions() const {
  std::vector<std::string> out;
  for (const auto& s : strokes)
    if (std::find(out.begin(), out.end(), s.insertion) == out.end()) out.push_back(s.insertion);
  return out;
}

std::size_t insertion_data::points() const {
  std::size_t n = 0;
  for (const auto& s : strokes) n += s.x.size();
  return n;
}

namespace {

// One data row of the file: its point, and the label of the insertion it belongs to (`label`,
// left as it is without an insertion column).
raw_point read_row(const std::vector<std::string_view>& cells, const std::vector<column>& columns,
                   double sign, const std::string& file, int line_no, std::string& label) {
  raw_point p{0.0, 0.0, 1.0, line_no, std::nullopt};
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const column& c = columns[k];
    switch (c.kind) {
      case column_kind::insertion:
        if (cells[k].empty()) throw data_error(file, line_no, "insertion: empty cell");
        label = std::string(cells[k]);
        break;
      case column_kind::direction:
        if (cells[k] == "forward")
          p.direction = stroke_direction::forward;
        else if (cells[k] == "reverse")
          p.direction = stroke_direction::reverse;
        else
          throw data_error(
              file, line_no,
              fmt::format("direction = \"{}\": must be forward or reverse", cells[k]));
        break;
      case column_kind::x:
        p.x = parse_number(cells[k], c, file, line_no);
        break;
      case column_kind::force:
        p.force = sign * parse_number(cells[k], c, file, line_no);
        break;
      case column_kind::weight:
        p.weight = parse_number(cells[k], c, file, line_no);
        if (p.weight < 0)
          throw data_error(file, line_no, fmt::format("weight = {}: must be >= 0", cells[k]));
        break;
    }
  }
  return p;
}

// The points of one insertion as its forward and reverse strokes, appended to data.strokes.
void add_strokes(const std::string& label, const std::vector<raw_point>& pts,
                 const std::string& file, insertion_data& data) {
  measured_stroke strokes[2];
  // Without a direction column the insertion turns back at its largest displacement.
  const std::size_t turn = static_cast<std::size_t>(
      std::max_element(pts.begin(), pts.end(),
                       [](const raw_point& a, const raw_point& b) { return a.x < b.x; }) -
      pts.begin());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const stroke_direction d = pts[i].direction.value_or(i <= turn ? stroke_direction::forward
                                                                   : stroke_direction::reverse);
    measured_stroke& s = strokes[d == stroke_direction::forward ? 0 : 1];
    s.x.push_back(pts[i].x);
    s.force.push_back(pts[i].force);
    s.weight.push_back(pts[i].weight);
    s.line.push_back(pts[i].line);
  }
  for (int k = 0; k < 2; ++k) {
    measured_stroke& s = strokes[k];
    if (s.x.empty()) continue;
    s.insertion = label;
    s.direction = k == 0 ? stroke_direction::forward : stroke_direction::reverse;
    s.file = file;
    if (s.x.size() < 2)
      throw data_error(
          file, s.line.front(),
          fmt::format("insertion {}, {} stroke: a single point; a stroke needs at least 2 points",
                      label, to_string(s.direction)));
    data.strokes.push_back(std::move(s));
  }
}

}  // namespace

insertion_data parse_insertion_csv(std::string_view text, const std::string& file,
                                   force_convention convention) {
  insertion_data data;
  std::vector<column> columns;
  // Points per insertion label, in order of first appearance.
  std::vector<std::string> order;
  std::map<std::string, std::vector<raw_point>> points;
  const std::string default_label = std::filesystem::path(file).stem().string();
  const double sign = convention == force_convention::on_receptacle ? 1.0 : -1.0;

  // A UTF-8 byte order mark (spreadsheets write one) is no part of the header.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    // Lines end in \n, \r\n or a lone \r (old Mac spreadsheets).
    const std::size_t eol = std::min(text.find_first_of("\r\n", pos), text.size());
    const std::string_view line = trim(text.substr(pos, eol - pos));
    pos = eol + (text.substr(eol, 2) == "\r\n" ? 2 : 1);
    ++line_no;
    if (line.empty()) continue;
    if (line.front() == '#') {
      data.comments.emplace_back(trim(line.substr(1)));
      continue;
    }
    if (columns.empty()) {
      columns = read_header(line, file, line_no, data.length_unit, data.force_unit);
      continue;
    }
    const auto cells = split(line);
    if (cells.size() != columns.size())
      throw data_error(
          file, line_no,
          fmt::format("{} cells, the header has {} columns", cells.size(), columns.size()));
    std::string label = default_label;
    const raw_point p = read_row(cells, columns, sign, file, line_no, label);
    if (!points.count(label)) order.push_back(label);
    points[label].push_back(p);
  }
  if (columns.empty())
    throw data_error(
        file, 0,
        fmt::format("the file is empty: expected a header such as \"{}\" and data rows",
                    example_header));
  if (order.empty()) throw data_error(file, 0, "no data rows after the header");

  for (const std::string& label : order) add_strokes(label, points[label], file, data);
  return data;
}

insertion_data read_insertion_csv(const std::filesystem::path& path, force_convention convention) {
  // A regular file of bounded size: a device or a fifo (e.g. /dev/zero) would be read forever.
  constexpr std::uintmax_t largest = std::uintmax_t{1} << 30;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw data_error(path.string(), 0,
                     std::filesystem::exists(path, ec) ? "not a regular file" : "cannot open the file: no such file");
  if (std::filesystem::file_size(path, ec) > largest)
    throw data_error(path.string(), 0, "larger than 1 GiB: not a measurement CSV");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw data_error(path.string(), 0, "cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_insertion_csv(text.str(), path.string(), convention);
}

insertion_data read_insertion_csvs(const std::vector<std::filesystem::path>& paths,
                                   force_convention convention) {
  if (paths.empty()) throw std::invalid_argument("no data files given");
  insertion_data all;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    insertion_data d = read_insertion_csv(paths[i], convention);
    if (i == 0) {
      all.length_unit = d.length_unit;
      all.force_unit = d.force_unit;
    }
    const auto existing = all.insertions();
    for (const auto& label : d.insertions())
      if (std::find(existing.begin(), existing.end(), label) != existing.end())
        throw data_error(
            paths[i].string(), 0,
            fmt::format("insertion \"{}\" also appears in an earlier file; labels must be unique",
                        label));
    all.comments.insert(all.comments.end(), d.comments.begin(), d.comments.end());
    for (auto& s : d.strokes) all.strokes.push_back(std::move(s));
  }
  return all;
}

void write_insertion_csv(const std::filesystem::path& path, const insertion_data& data,
                         const std::string& length_unit, const std::string& force_unit,
                         const std::vector<std::string>& comments, int digits) {
  auto number = [digits](double v) {
    return digits > 0 ? fmt::format("{:.{}g}", v, digits) : fmt::format("{}", v);
  };
  bool weighted = false;
  for (const auto& s : data.strokes)
    for (double w : s.weight) weighted = weighted || w != 1.0;
  // NaN or inf is no measurement: refused before the file is touched.
  for (const auto& s : data.strokes)
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.force[i]) || (!s.weight.empty() && !std::isfinite(s.weight[i])))
        throw std::runtime_error(fmt::format(
            "cannot write {}: insertion {}, {} stroke, point {}: x = {} m, F = {} N is not finite (the model or "
            "the measurement effects overflow; use smaller values)",
            path.string(), s.insertion, to_string(s.direction), i + 1, s.x[i], s.force[i]));
  io::text_output out;
  for (const auto& c : comments) out.print("# {}\n", c);
  out.print("insertion,direction,x [{}],F [{}]{}\n", length_unit, force_unit,
            weighted ? ",weight" : "");
  for (const auto& s : data.strokes) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      out.print("{},{},{},{}", s.insertion, to_string(s.direction),
                number(units::from_si(s.x[i], length_unit, units::length)),
                number(units::from_si(s.force[i], force_unit, units::force)));
      if (weighted) out.print(",{}", s.weight.empty() ? 1.0 : s.weight[i]);
      out.print("\n");
    }
  }
  out.write_to(path);
}

}  // namespace contactuq::calibrate
