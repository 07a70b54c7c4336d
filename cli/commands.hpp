#pragma once
/// The subcommands of the `articula` executable. Each registers its options on
/// the CLI11 app and returns the exit code (0 ok, 1 run failed, 2 bad usage/input).
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace articula::cli {

using Command = std::function<int()>;
Command add_info_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_estop_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_codegen_command(CLI::App& app);

/// Throws std::invalid_argument "cannot read the WHAT 'PATH' (PROBLEM)" when `path` is not a
/// readable regular file (input_file_problem(): a FIFO, a device such as /dev/zero, a folder,
/// missing), before anything reads it.
void require_input_file(const std::string& path, const char* what);

/// The whole command line: registers every subcommand, parses argv and runs the chosen one.
/// Returns the exit code. parse_only: stop after parsing (0 when the arguments parse), for
/// the argument fuzzer (tests/fuzz).
int run_cli(int argc, char** argv, bool parse_only = false);

}  // namespace articula::cli
