#pragma once
// Measured insertion-force curves: displacement x and force F along the stroke, per insertion and
// stroke direction, read from CSV files whose header carries the units.
//
//   # comment lines (provenance) start with '#'; blank lines are skipped
//   insertion,direction,x [in],F [grf],weight
//   1,forward,0.000,0.0000,1
//   1,reverse,0.250,8.7412,1
//
// Columns (any order): `x [unit]` or `displacement [unit]` (a length, required); `F [unit]` or
// `force [unit]` (a force, required); `insertion` (any label; absent: the whole file is one
// insertion named after the file); `direction` = forward | reverse (absent: each insertion is split
// at its largest x, forward up to it, reverse after); `weight` (dimensionless, finite, >= 0;
// default 1). Any other column is an error, as is a number that is not finite. Values are SI
// (m, N) once read.

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::calibrate {

// Bad data: an error that names the file, the line (0 when it is about the file as a whole) and
// what was wrong.
class data_error : public std::runtime_error {
 public:
  data_error(std::string file, int line, const std::string& message);
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }

 private:
  std::string file_;
  int line_;
};

// Direction of motion of the pin relative to the receptacle: forward is +x (insertion), reverse
// is -x (withdrawal). The model evaluates forward points with +v/v_t and reverse with -v/v_t
// (1.84).
enum class stroke_direction { forward, reverse };
std::string_view to_string(stroke_direction d);

// How the file's force column is signed.
enum class force_convention {
  on_receptacle,       ///< the force of the pin on the receptacle along +x, as the model's Fx_total
                       ///< (insertion force negative)
  insertion_positive,  ///< the force resisting the motion on the forward stroke is positive (-Fx)
};
std::string_view to_string(force_convention c);

// One stroke of one insertion, in file order.
struct measured_stroke {
  std::string insertion;  ///< the insertion's label
  stroke_direction direction = stroke_direction::forward;
  std::vector<double> x;       ///< displacement [m]
  std::vector<double> force;   ///< force on the receptacle along +x [N] (model convention)
  std::vector<double> weight;  ///< per-point weight [-], >= 0
  std::vector<int> line;       ///< line of each point in its file (1-based)
  std::string file;            ///< the file it came from
};

// Measured strokes of one or more files, with the units the first file used (for reports).
struct insertion_data {
  std::vector<measured_stroke> strokes;  ///< grouped by insertion, forward before reverse
  std::vector<std::string> comments;     ///< '#' lines of the files, without the '#'
  std::string length_unit = "m";         ///< unit of x in the (first) file
  std::string force_unit = "N";          ///< unit of F in the (first) file

  std::vector<std::string> insertions() const;  ///< labels in order of first appearance
  std::size_t points() const;                   ///< total number of points
};

// Parses CSV text; `file` names it in messages and labels a file without an insertion column.
// Throws data_error for an empty file, a header without units or with an unknown unit or column,
// a cell that is not a finite number, an unknown direction, or a stroke with fewer than 2 points.
insertion_data parse_insertion_csv(std::string_view text, const std::string& file,
                                   force_convention convention = force_convention::on_receptacle);
insertion_data read_insertion_csv(const std::filesystem::path& path,
                                  force_convention convention = force_convention::on_receptacle);
// Several files read and joined; insertion labels must not repeat across files.
insertion_data read_insertion_csvs(const std::vector<std::filesystem::path>& paths,
                                   force_convention convention = force_convention::on_receptacle);

// Writes strokes as CSV in the given units (insertion, direction, x, F, and weight unless all
// weights are 1), each comment line prefixed with "# ". Numbers are written with `digits`
// significant digits, or as the shortest text that reads back to the same double (digits = 0).
void write_insertion_csv(const std::filesystem::path& path, const insertion_data& data,
                         const std::string& length_unit, const std::string& force_unit,
                         const std::vector<std::string>& comments, int digits = 0);

}  // namespace contactuq::calibrate
