#include "messages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace contactuq::mpi::detail {

void byte_writer::put_bytes(const void* data, std::size_t size) {
  if (size == 0) return;
  const std::size_t at = bytes_.size();
  bytes_.resize(at + size);
  std::memcpy(bytes_.data() + at, data, size);
}

void byte_writer::put_string(const std::string& s) {
  put<std::uint64_t>(s.size());
  put_bytes(s.data(), s.size());
}

void byte_reader::get_bytes(void* data, std::size_t size) {
  if (size > left())
    throw std::runtime_error(fmt::format("MPI message: {} bytes wanted, {} left (a message of another build?)",
                                         size, left()));
  if (size > 0) std::memcpy(data, bytes_.data() + at_, size);
  at_ += size;
}

std::string byte_reader::get_string() {
  const auto size = get<std::uint64_t>();
  if (size > left()) throw std::runtime_error(fmt::format("MPI message: a text of {} bytes, {} left", size, left()));
  std::string s(size, '\0');
  get_bytes(s.data(), size);
  return s;
}

namespace {

void put_matrix(byte_writer& w, const io::sample_matrix& m) {
  w.put<std::uint64_t>(static_cast<std::uint64_t>(m.rows()));
  w.put<std::uint64_t>(static_cast<std::uint64_t>(m.cols()));
  w.put_bytes(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
}

io::sample_matrix get_matrix(byte_reader& r) {
  const auto rows = r.get<std::uint64_t>(), cols = r.get<std::uint64_t>();
  if (cols != 0 && rows > r.left() / sizeof(double) / cols)
    throw std::runtime_error(fmt::format("MPI message: a {} x {} matrix, {} bytes left", rows, cols, r.left()));
  io::sample_matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  r.get_bytes(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
  return m;
}

std::uint64_t get_count(byte_reader& r, std::size_t least_bytes_each) {
  const auto n = r.get<std::uint64_t>();
  if (n > r.left() / std::max<std::size_t>(least_bytes_each, 1))
    throw std::runtime_error(fmt::format("MPI message: {} items, {} bytes left", n, r.left()));
  return n;
}

void check_end(const byte_reader& r) {
  if (r.left() != 0) throw std::runtime_error(fmt::format("MPI message: {} bytes after the end", r.left()));
}

}  // namespace

std::vector<std::byte> pack(const study_message& m) {
  byte_writer w;
  w.put_string(m.text);
  w.put_string(m.file);
  w.put(m.threads);
  w.put<std::uint8_t>(m.compression ? 1 : 0);
  if (m.compression) {
    w.put<std::uint64_t>(m.compression->filters.size());
    for (const io::hdf5::chunk_filters& f : m.compression->filters) w.put(f);
    w.put<std::uint64_t>(m.compression->chunk_rows);
    w.put<std::uint64_t>(m.compression->first);
    w.put<std::uint64_t>(m.compression->samples);
  }
  w.put<std::uint8_t>(m.reading.design_inputs ? 1 : 0);
  w.put<std::uint64_t>(m.reading.method_tables.size());
  for (const auto& t : m.reading.method_tables) w.put_string(t);
  w.put<std::uint8_t>(m.reading.sampling ? 1 : 0);
  w.put_string(m.reading.study_kind);
  w.put(m.samples);
  w.put<std::uint8_t>(static_cast<std::uint8_t>(m.failures));
  w.put(m.retries);
  w.put<std::uint8_t>(m.sobol ? 1 : 0);
  w.put<std::uint8_t>(m.rows_given ? 1 : 0);
  return w.take();
}

study_message unpack_study(const std::vector<std::byte>& bytes) {
  byte_reader r(bytes);
  study_message m;
  m.text = r.get_string();
  m.file = r.get_string();
  m.threads = r.get<std::uint64_t>();
  if (r.get<std::uint8_t>() != 0) {
    io::chunk_compression c;
    const auto filters = get_count(r, sizeof(io::hdf5::chunk_filters));
    for (std::uint64_t k = 0; k < filters; ++k) c.filters.push_back(r.get<io::hdf5::chunk_filters>());
    c.chunk_rows = r.get<std::uint64_t>();
    c.first = r.get<std::uint64_t>();
    c.samples = r.get<std::uint64_t>();
    m.compression = std::move(c);
  }
  m.reading.design_inputs = r.get<std::uint8_t>() != 0;
  const auto tables = get_count(r, sizeof(std::uint64_t));
  for (std::uint64_t k = 0; k < tables; ++k) m.reading.method_tables.push_back(r.get_string());
  m.reading.sampling = r.get<std::uint8_t>() != 0;
  m.reading.study_kind = r.get_string();
  m.samples = r.get<std::uint64_t>();
  const auto failures = r.get<std::uint8_t>();
  if (failures > static_cast<std::uint8_t>(study::failure_policy::retry))
    throw std::runtime_error(fmt::format("MPI message: failure policy {}", failures));
  m.failures = static_cast<study::failure_policy>(failures);
  m.retries = r.get<std::int32_t>();
  m.sobol = r.get<std::uint8_t>() != 0;
  m.rows_given = r.get<std::uint8_t>() != 0;
  check_end(r);
  return m;
}

std::vector<std::byte> pack(const block_assignment& m) {
  byte_writer w;
  w.put(m.first);
  w.put(m.count);
  w.put(m.rows);
  w.put(m.end);
  if (m.inputs) put_matrix(w, *m.inputs);
  return w.take();
}

block_assignment unpack_blocks(const std::vector<std::byte>& bytes) {
  byte_reader r(bytes);
  block_assignment m;
  m.first = r.get<std::uint64_t>();
  m.count = r.get<std::uint64_t>();
  m.rows = r.get<std::uint64_t>();
  m.end = r.get<std::uint64_t>();
  if (r.left() > 0) m.inputs = get_matrix(r);
  check_end(r);
  return m;
}

std::vector<std::byte> pack(const study::evaluated_block& e) {
  const io::ensemble_block& b = e.block;
  byte_writer w;
  w.put<std::uint64_t>(b.first);
  put_matrix(w, b.inputs);
  put_matrix(w, b.outputs);
  w.put<std::uint64_t>(b.curves.size());
  for (const auto& c : b.curves) put_matrix(w, c);
  w.put<std::uint64_t>(b.status.size());
  w.put_bytes(b.status.data(), b.status.size() * sizeof(std::int32_t));
  w.put<std::uint64_t>(b.messages.size());
  for (const auto& m : b.messages) w.put_string(m);
  w.put<std::uint64_t>(b.filtered_chunks.size());
  for (const auto& c : b.filtered_chunks) {
    w.put<std::uint64_t>(c.size());
    w.put_bytes(c.data(), c.size());
  }
  w.put<std::uint64_t>(e.failed);
  w.put<std::uint64_t>(e.retried);
  w.put<std::uint64_t>(e.first_failure ? *e.first_failure : whole_study);
  return w.take();
}

study::evaluated_block unpack_block(const std::vector<std::byte>& bytes) {
  byte_reader r(bytes);
  study::evaluated_block e;
  io::ensemble_block& b = e.block;
  b.first = r.get<std::uint64_t>();
  b.inputs = get_matrix(r);
  b.outputs = get_matrix(r);
  const auto curves = get_count(r, 2 * sizeof(std::uint64_t));
  for (std::uint64_t k = 0; k < curves; ++k) b.curves.push_back(get_matrix(r));
  b.status.resize(get_count(r, sizeof(std::int32_t)));
  r.get_bytes(b.status.data(), b.status.size() * sizeof(std::int32_t));
  const auto messages = get_count(r, sizeof(std::uint64_t));
  for (std::uint64_t k = 0; k < messages; ++k) b.messages.push_back(r.get_string());
  const auto chunks = get_count(r, sizeof(std::uint64_t));
  for (std::uint64_t k = 0; k < chunks; ++k) {
    std::vector<std::byte> c(get_count(r, 1));
    r.get_bytes(c.data(), c.size());
    b.filtered_chunks.push_back(std::move(c));
  }
  e.failed = r.get<std::uint64_t>();
  e.retried = r.get<std::uint64_t>();
  const auto first_failure = r.get<std::uint64_t>();
  if (first_failure != whole_study) e.first_failure = first_failure;
  check_end(r);
  const auto rows = static_cast<Eigen::Index>(b.status.size());
  if (b.messages.size() != b.status.size() || b.inputs.rows() != rows || b.outputs.rows() != rows)
    throw std::runtime_error("MPI message: a block whose parts have different numbers of samples");
  return e;
}

}  // namespace contactuq::mpi::detail
