#include "transport.hpp"

#include <fmt/format.h>

#include <climits>
#include <stdexcept>

#include "messages.hpp"

namespace contactuq::mpi::detail {

void send(const std::vector<std::byte>& bytes, int to, int tag) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(fmt::format("MPI message of {} bytes: more than one message can hold", bytes.size()));
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

void send_numbers(std::initializer_list<std::uint64_t> values, int to, int tag) {
  byte_writer w;
  for (auto v : values) w.put(v);
  send(w.take(), to, tag);
}

std::vector<std::byte> receive(const MPI_Status& probed) {
  int size = 0;
  MPI_Get_count(&probed, MPI_BYTE, &size);
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  MPI_Recv(bytes.data(), size, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return bytes;
}

std::optional<MPI_Status> poll(int from) {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
  return flag ? std::optional<MPI_Status>(status) : std::nullopt;
}

void outbox::send(std::vector<std::byte> bytes, int tag) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(fmt::format("MPI message of {} bytes: more than one message can hold", bytes.size()));
  sending_.push_back({std::move(bytes), MPI_REQUEST_NULL});
  auto& m = sending_.back();
  MPI_Isend(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, 0, tag, MPI_COMM_WORLD, &m.request);
}

bool outbox::progress() {
  const std::size_t before = sending_.size();
  std::erase_if(sending_, [](message& m) {
    int done = 0;
    MPI_Test(&m.request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  return sending_.size() != before;
}

void outbox::wait_all() {
  for (auto& m : sending_) MPI_Wait(&m.request, MPI_STATUS_IGNORE);
  sending_.clear();
}

}  // namespace contactuq::mpi::detail
