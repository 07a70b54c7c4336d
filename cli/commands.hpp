#pragma once
/// The subcommands of the `articula` executable. Each registers its options on
/// the CLI11 app and returns the exit code (0 ok, 1 run failed, 2 bad usage/input).
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "articula/io/replay.hpp"

namespace articula::cli {

using Command = std::function<int()>;
Command add_info_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_estop_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_codegen_command(CLI::App& app);
Command add_stopping_command(CLI::App& app);
Command add_view_command(CLI::App& app);

/// Throws std::invalid_argument "cannot read the WHAT 'PATH' (PROBLEM)" when `path` is not a
/// readable regular file (input_file_problem(): a FIFO, a device such as /dev/zero, a folder,
/// missing), before anything reads it.
void require_input_file(const std::string& path, const char* what);

/// One log of a replay page: its label and file.
struct ViewLog {
  std::string label, path;
};
/// Writes the replay page `html` of `logs` (the first solid, the others ghosts) for `robot`
/// (view_command.cpp; also `run --html`, `estop --html`). Prints what it wrote, or the error as
/// "articula COMMAND: error: …"; returns 0 or 2. `urdf` (when not empty) is the file the robot
/// came from: its visual primitives are drawn (load_urdf_visuals).
int write_view_html(const Robot& robot, const std::string& urdf, const std::vector<ViewLog>& logs,
                    const std::string& html, ReplayOptions options, const char* command);

/// The whole command line: registers every subcommand, parses argv and runs the chosen one.
/// Returns the exit code. parse_only: stop after parsing (0 when the arguments parse), for
/// the argument fuzzer (tests/fuzz).
int run_cli(int argc, char** argv, bool parse_only = false);

}  // namespace articula::cli
