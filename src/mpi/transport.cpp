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

void send_error(std::uint64_t about, const std::string& what) {
  byte_writer w;
  w.put(about);
  w.put_string(what);
  send(w.take(), 0, error_tag);
}

std::pair<std::vector<std::size_t>, std::string> wait_for_ranks(int ranks) {
  std::vector<std::size_t> threads(static_cast<std::size_t>(ranks), 0);
  std::string failure;
  backoff wait;
  for (int answered = 1; answered < ranks;) {
    const auto probed = poll(MPI_ANY_SOURCE);
    if (!probed) {
      wait.pause();
      continue;
    }
    wait.reset();
    const std::vector<std::byte> bytes = receive(*probed);
    byte_reader r(bytes);
    if (probed->MPI_TAG == ready_tag) {
      threads[static_cast<std::size_t>(probed->MPI_SOURCE)] = r.get<std::uint64_t>();
    } else if (probed->MPI_TAG == error_tag) {
      r.get<std::uint64_t>();
      if (failure.empty())
        failure = fmt::format("rank {} could not read the study: {}", probed->MPI_SOURCE, r.get_string());
    }
    ++answered;
  }
  return {std::move(threads), std::move(failure)};
}

bool serve_until_done(const std::function<void(int, const std::vector<std::byte>&)>& on_message,
                      const std::function<bool(outbox&)>& collect) {
  outbox out;
  backoff wait;
  bool quit = false;
  for (bool done = false; !done;) {
    bool busy = false;
    // Not past the end of the study: what follows it (the next study of a method that runs many)
    // is the caller's.
    while (!done) {
      const auto probed = poll(0);
      if (!probed) break;
      busy = true;
      const std::vector<std::byte> bytes = receive(*probed);
      if (probed->MPI_TAG == done_tag || probed->MPI_TAG == quit_tag) {
        done = true;
        quit = probed->MPI_TAG == quit_tag;
      } else {
        on_message(probed->MPI_TAG, bytes);
      }
    }
    if (collect(out)) busy = true;
    if (out.progress()) busy = true;
    if (busy)
      wait.reset();
    else if (!done)
      wait.pause();
  }
  return quit;
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
