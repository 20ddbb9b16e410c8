#pragma once
// Runs the contactuq executable as a user would and captures what it prints.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

struct cli_result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line (stdout and stderr captured).
inline cli_result run_cli_command(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline cli_result run_cli(const std::string& args) { return run_cli_command(std::string(CONTACTUQ_CLI) + " " + args); }
