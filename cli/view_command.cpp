// `articula view LOG [LOG2 …] -o run.html`: the replay viewer's self-contained page
// (viewer/README.md), and the page writer behind `run --html` and `estop --html`.
#include <cstdio>
#include <fstream>
#include <memory>

#include "articula/io/replay.hpp"
#include "articula/io/urdf.hpp"
#include "articula/scenario/scenario.hpp"
#include "bundled_files.hpp"
#include "commands.hpp"

namespace articula::cli {
namespace {

struct ViewOptions {
  std::vector<std::string> logs, labels, plots;
  std::string scenario, model, html, path_frame, title;
  bool floating = false;
  std::size_t max_rows = 100000;
};

int view(const ViewOptions& o) {
  if (o.scenario.empty() == o.model.empty()) {
    std::fprintf(stderr, "articula view: error: give the robot with --scenario FILE or --model URDF (one of them)\n");
    return 2;
  }
  std::unique_ptr<Robot> robot;
  Scenario s;
  try {
    if (!o.scenario.empty()) {
      require_input_file(o.scenario, "scenario");
      s = load_scenario(o.scenario);
      robot = std::move(s.robot);
    } else {
      require_input_file(o.model, "URDF");
      robot = std::make_unique<Robot>(load_urdf(o.model, o.floating ? BaseType::Floating : BaseType::Fixed));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula view: error: %s\n", e.what());
    return 2;
  }
  std::vector<ViewLog> logs;
  for (std::size_t k = 0; k < o.logs.size(); ++k)
    logs.push_back({k < o.labels.size() ? o.labels[k] : o.logs[k], o.logs[k]});
  ReplayOptions r;
  r.title = o.title;
  r.path_frame = o.path_frame;
  r.max_rows = o.max_rows;
  for (const std::string& panel : o.plots) {
    std::vector<std::string> channels;
    std::size_t at = 0;
    for (std::size_t comma; (comma = panel.find(',', at)) != std::string::npos; at = comma + 1)
      channels.push_back(panel.substr(at, comma - at));
    channels.push_back(panel.substr(at));
    r.plots.push_back(channels);
  }
  return write_view_html(*robot, o.scenario.empty() ? o.model : s.model_file, logs, o.html, r, "view");
}

}  // namespace

int write_view_html(const Robot& robot, const std::string& urdf, const std::vector<ViewLog>& logs,
                    const std::string& html, ReplayOptions options, const char* command) {
  try {
    if (!urdf.empty()) options.visuals = load_urdf_visuals(urdf, robot.model());
    std::vector<LogTable> tables;
    tables.reserve(logs.size());
    for (const ViewLog& l : logs) {
      require_input_file(l.path, "log");
      tables.push_back(read_log(l.path));
    }
    std::vector<ReplayRun> runs;
    for (std::size_t k = 0; k < logs.size(); ++k) runs.push_back({logs[k].label, &tables[k], k > 0});
    // The logs are checked against the model first: bad input is named even where the
    // viewer's script was not built (ARTICULA_VIEWER=OFF, no npm).
    const std::string json = replay_json(robot, runs, options);
    std::vector<std::filesystem::path> tried;
    const auto dir = find_bundled_dir("viewer", "viewer.js", &tried);
    if (!dir) {
      std::string where;
      for (const auto& t : tried) where += (where.empty() ? "" : ", ") + t.string();
      throw ReplayError("the viewer's script viewer.js is not built or installed (looked in " + where +
                        "; it needs npm at configure time, docs/viewer.md)");
    }
    const std::string page = replay_html(json, dir->string());
    const std::string tmp = html + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << page;
      out.close();
      if (!out) throw std::runtime_error("cannot write '" + tmp + "'");
    }
    std::filesystem::rename(tmp, html);  // a reader never sees a half-written page
    std::printf("Wrote %s (%zu run%s, %.1f MB)\n", html.c_str(), logs.size(), logs.size() == 1 ? "" : "s",
                static_cast<double>(page.size()) / 1e6);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula %s: error: %s\n", command, e.what());
    return 2;
  }
}

Command add_view_command(CLI::App& app) {
  auto o = std::make_shared<ViewOptions>();
  auto* sub = app.add_subcommand("view", "Write a self-contained HTML replay of logs (3D robot, events, plots)");
  sub->add_option("logs", o->logs, "Logs of one robot (.csv or .h5); the first is drawn solid, the others as ghosts")
      ->required();
  sub->add_option("-o,--output", o->html, "The HTML file to write")->required();
  sub->add_option("--scenario", o->scenario, "The scenario the logs came from (robot, constraints, contacts)");
  sub->add_option("--model", o->model, "Or the URDF of the robot");
  sub->add_flag("--floating", o->floating, "With --model: a floating base");
  sub->add_option("--label", o->labels, "A name for each log, in order (default: the file names)");
  sub->add_option("--plot", o->plots, "Channels of one plot panel, comma-separated (repeatable)");
  sub->add_option("--path", o->path_frame, "Frame whose path is traced (default: flange or tip when present)");
  sub->add_option("--title", o->title, "Page title (default: the model's name)");
  sub->add_option("--max-rows", o->max_rows, "Decimate runs above this many rows, keeping event instants")
      ->check(CLI::PositiveNumber);
  return [o] { return view(*o); };
}

}  // namespace articula::cli
