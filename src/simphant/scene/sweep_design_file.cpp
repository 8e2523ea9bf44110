// Design files of `"sweep": {"mode": "design"}` (docs/scene-format.md, "Sweep", "Design
// files"): CSV with a header row of sweep paths, or NumPy's NPY format. The CSV reader is
// a small strict one for numbers: the format allows no quoting, no missing values and no
// locale (std::from_chars), and every error must name the line and the column, which a
// general CSV tokenizer (libcsv) would leave to a second pass; it is not a new dependency.
// The NPY header is parsed by the documented grammar (numpy.lib.format: magic "\x93NUMPY",
// version, little-endian header length, a Python dict literal with 'descr',
// 'fortran_order' and 'shape').
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "simphant/core/crc64.hpp"
#include "simphant/core/input_file.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

namespace {

struct Where {
  std::string file, field;
  [[noreturn]] void fail(const std::string& reason) const { throw SceneError(field, file + ": " + reason); }
};

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::string shorten(const std::string& s) { return s.size() <= 40 ? s : s.substr(0, 37) + "..."; }

void read_csv(const std::string& text, const Where& at, DesignTable& t) {
  std::vector<std::string> lines;
  std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a UTF-8 byte order mark
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();  // blank lines at the end
  if (lines.empty()) at.fail("the file is empty (expected a header row of sweep paths and a row per instance)");
  for (std::string& c : split(lines[0])) {
    if (c.size() >= 2 && c.front() == '"' && c.back() == '"') c = c.substr(1, c.size() - 2);
    if (c.empty()) at.fail("line 1 (the header), column " + std::to_string(t.columns.size() + 1) + ": empty column name");
    t.columns.push_back(c);
  }
  if (lines.size() < 2) at.fail("has a header row but no rows of values");
  const std::size_t cols = t.columns.size();
  t.values.assign(cols, std::vector<double>(lines.size() - 1));
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const std::string place = "line " + std::to_string(l + 1) + " (instance " + std::to_string(l - 1) + ")";
    if (trim(lines[l]).empty()) at.fail(place + " is empty");
    const std::vector<std::string> fields = split(lines[l]);
    if (fields.size() != cols)
      at.fail(place + " has " + std::to_string(fields.size()) + " values, the header has " + std::to_string(cols) +
              " columns");
    for (std::size_t c = 0; c < cols; ++c) {
      const std::string& f = fields[c];
      const std::string cell = place + ", column " + std::to_string(c + 1) + " (" + t.columns[c] + "): ";
      if (f.empty()) at.fail(cell + "empty value");
      double x = 0;
      const char* first = f.data() + (f[0] == '+' ? 1 : 0);
      const auto r = std::from_chars(first, f.data() + f.size(), x);
      if (r.ec == std::errc::result_out_of_range) at.fail(cell + "\"" + shorten(f) + "\" is out of the double range");
      if (r.ec != std::errc() || r.ptr != f.data() + f.size()) at.fail(cell + "\"" + shorten(f) + "\" is not a number");
      if (!std::isfinite(x)) at.fail(cell + "\"" + shorten(f) + "\" is not finite");
      t.values[c][l - 1] = x;
    }
  }
  t.rows = static_cast<int>(lines.size() - 1);
}

/// A tiny reader of the NPY header's Python literal.
class Literal {
 public:
  Literal(const std::string& s, const Where& at) : s_(s), at_(at) {}
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n')) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) at_.fail(std::string("malformed NPY header: expected '") + c + "' at header byte " + std::to_string(i_));
  }
  std::string string() {
    space();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) at_.fail("malformed NPY header: expected a string");
    const char q = s_[i_++];
    const std::size_t end = s_.find(q, i_);
    if (end == std::string::npos) at_.fail("malformed NPY header: unterminated string");
    std::string v = s_.substr(i_, end - i_);
    i_ = end + 1;
    return v;
  }
  bool boolean() {
    space();
    for (const char* w : {"True", "False"})
      if (s_.compare(i_, std::strlen(w), w) == 0) return i_ += std::strlen(w), w[0] == 'T';
    at_.fail("malformed NPY header: fortran_order must be True or False");
  }
  std::vector<std::uint64_t> tuple() {
    expect('(');
    std::vector<std::uint64_t> v;
    while (!eat(')')) {
      space();
      std::uint64_t x = 0;
      const auto r = std::from_chars(s_.data() + i_, s_.data() + s_.size(), x);
      if (r.ec != std::errc()) at_.fail("malformed NPY header: shape must be a tuple of non-negative integers");
      i_ = static_cast<std::size_t>(r.ptr - s_.data());
      v.push_back(x);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return v;
  }
  bool at_end() {
    space();
    return i_ == s_.size();
  }

 private:
  const std::string& s_;
  const Where& at_;
  std::size_t i_ = 0;
};

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

void read_npy(const std::string& bytes, const Where& at, const json* columns, const std::string& columns_path,
              DesignTable& t) {
  if (bytes.size() < 10) at.fail("truncated NPY file (" + std::to_string(bytes.size()) + " bytes)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) at.fail("NPY format version " + std::to_string(major) + " (expected 1, 2 or 3)");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) at.fail("truncated NPY file");
  std::size_t header_len = 0;
  for (std::size_t k = 0; k < len_bytes; ++k)
    header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  const std::size_t data_at = 8 + len_bytes + header_len;
  if (data_at > bytes.size()) at.fail("truncated NPY file: its header runs past the end of the file");
  const std::string header = bytes.substr(8 + len_bytes, header_len);
  Literal lit(header, at);
  std::string descr;
  bool fortran = false, has_descr = false, has_order = false, has_shape = false;
  std::vector<std::uint64_t> shape;
  lit.expect('{');
  while (!lit.eat('}')) {
    const std::string key = lit.string();
    lit.expect(':');
    if (key == "descr") {
      descr = lit.string();
      has_descr = true;
    } else if (key == "fortran_order") {
      fortran = lit.boolean();
      has_order = true;
    } else if (key == "shape") {
      shape = lit.tuple();
      has_shape = true;
    } else {
      at.fail("malformed NPY header: unknown key '" + key + "'");
    }
    if (!lit.eat(',')) {
      lit.expect('}');
      break;
    }
  }
  if (!lit.at_end()) at.fail("malformed NPY header: text after the dictionary");
  if (!has_descr || !has_order || !has_shape) at.fail("malformed NPY header: it needs descr, fortran_order and shape");
  std::size_t item = 0;
  if (descr == "<f8" || descr == ">f8") item = 8;
  if (descr == "<f4" || descr == ">f4") item = 4;
  if (item == 0) at.fail("dtype '" + descr + "': expected float64 or float32 ('<f8', '>f8', '<f4', '>f4')");
  if (shape.size() != 2)
    at.fail("shape " + shape_text(shape) + ": expected a 2-D array (a row per instance, a column per parameter)");
  const std::uint64_t rows = shape[0], cols = shape[1];
  if (rows == 0 || cols == 0) at.fail("shape " + shape_text(shape) + ": the design is empty");
  const std::uint64_t data = bytes.size() - data_at;
  if (rows > data || cols > data || rows * cols > data / item || rows * cols * item != data)
    at.fail("shape " + shape_text(shape) + " of " + descr + " needs " +
            (rows <= data && cols <= data ? std::to_string(rows * cols * item) : std::string("more")) +
            " data bytes, the file holds " + std::to_string(data));
  if (rows > static_cast<std::uint64_t>(INT32_MAX)) at.fail("more than 2^31 - 1 rows");
  if (columns == nullptr)
    throw SceneError(columns_path, "required for an NPY design file (" + at.file +
                                       " has no header): list one sweep path per column");
  expect_array(*columns, columns_path);
  if (columns->size() != cols)
    throw SceneError(columns_path, "must list " + std::to_string(cols) + " paths, one per column of " + at.file +
                                       " (shape " + shape_text(shape) + "), got " + std::to_string(columns->size()));
  for (std::size_t c = 0; c < cols; ++c) t.columns.push_back(as_string((*columns)[c], child_path(columns_path, c)));
  const std::uint16_t probe = 1;
  unsigned char first_byte = 0;
  std::memcpy(&first_byte, &probe, 1);
  const bool swap = (descr[0] == '<') != (first_byte == 1);
  t.values.assign(cols, std::vector<double>(rows));
  const char* p = bytes.data() + data_at;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) {
      unsigned char b[8];
      std::memcpy(b, p + item * (fortran ? c * rows + r : r * cols + c), item);
      if (swap) std::reverse(b, b + item);
      double x = 0;
      if (item == 8) {
        std::memcpy(&x, b, 8);
      } else {
        float f = 0;
        std::memcpy(&f, b, 4);
        x = f;
      }
      if (!std::isfinite(x))
        at.fail("row " + std::to_string(r) + " (instance " + std::to_string(r) + "), column " + std::to_string(c) +
                " (" + t.columns[c] + "): " + (std::isnan(x) ? "NaN" : "infinite") + " value");
      t.values[c][r] = x;
    }
  t.rows = static_cast<int>(rows);
}

}  // namespace

DesignTable read_design_file(const std::string& file, const std::string& file_path, const json* columns,
                             const std::string& columns_path) {
  const Where at{file, file_path};
  std::string bytes;
  try {
    bytes = read_input_file(file);
  } catch (const InputFileError& e) {
    at.fail(e.what());
  }
  DesignTable t;
  if (bytes.compare(0, 6, "\x93NUMPY") == 0) {
    read_npy(bytes, at, columns, columns_path, t);
  } else {
    if (columns != nullptr)
      throw SceneError(columns_path, "only for NPY design files: the CSV file " + file + " names its columns in its header row");
    read_csv(bytes, at, t);
  }
  t.crc64 = crc64_hex(bytes);
  return t;
}

}  // namespace simphant::scene_detail
