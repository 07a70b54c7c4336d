// The `articula` command line: the subcommands registered on one CLI11 app, parsed, run.
#include <iostream>
#include <map>

#include "articula/scenario/scenario.hpp"
#include "commands.hpp"
#include "interrupt.hpp"

namespace articula::cli {

void require_input_file(const std::string& path, const char* what) {
  if (const std::string problem = input_file_problem(path); !problem.empty())
    throw std::invalid_argument(std::string("cannot read the ") + what + " '" + path + "' (" + problem + ")");
}

int run_cli(int argc, char** argv, bool parse_only) {
  CLI::App app{"articula — rigid-body simulation with exact kinematic constraints"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "articula 0.1.0");
  std::map<CLI::App*, Command> commands;
  auto add = [&](Command (*factory)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    Command run = factory(app);
    commands[app.get_subcommands({})[before]] = std::move(run);
  };
  add(&add_info_command);
  add(&add_bench_command);
  add(&add_estop_command);
  add(&add_run_command);
  add(&add_codegen_command);
  add(&add_stopping_command);
  add(&add_view_command);
  // An unknown first word: name it and list the commands (CLI11 would only say that a
  // subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      found = found || sub->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::cerr << "articula: error: unknown command '" << argv[1] << "' (commands: " << known
                << "; articula --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (parse_only) return 0;
  install_signal_handlers();
  try {
    for (auto& [sub, run] : commands)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    std::cerr << "articula: error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}

}  // namespace articula::cli
