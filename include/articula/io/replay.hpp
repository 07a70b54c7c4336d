#pragma once
/// The data of the browser replay viewer (viewer/README.md): a robot's geometry, its scene and
/// the replay of one or more logs of it, as the JSON that `articula view` puts into one
/// self-contained HTML page with the viewer's bundled script.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "articula/engine/robot.hpp"
#include "articula/io/log_reader.hpp"
#include "articula/io/urdf.hpp"

namespace articula {

/// A log that does not fit the robot (a missing or foreign column), or a viewer file that is
/// not found; the message names the log, the column and the model.
struct ReplayError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ReplayRun {
  std::string label;
  const LogTable* log = nullptr;
  bool ghost = false;  ///< drawn translucent over the first, solid run
};

struct ReplayOptions {
  std::string title;
  std::string path_frame;  ///< frame whose path is traced ("" → "flange" or "tip" when the model has one)
  std::vector<std::vector<std::string>> plots;  ///< channel names per panel (empty → energies and joint angles)
  std::size_t max_rows = 100000;                ///< runs longer than this are decimated, keeping the rows around events
  std::vector<UrdfVisual> visuals;  ///< the URDF's visuals (load_urdf_visuals): bodies with a primitive are drawn
                                    ///< with it, the others as capsules
};

/// The viewer's JSON ("articula-replay 1"). Every run's log must hold the robot's q.<joint>
/// columns and no q.<joint> of another joint. @throws ReplayError.
std::string replay_json(const Robot& robot, const std::vector<ReplayRun>& runs, const ReplayOptions& options);

/// The rows a run of `times` keeps at most `max_rows` of: every k-th row, the last, and the rows
/// either side of each event instant. Sorted, unique.
std::vector<std::size_t> replay_rows(const std::vector<double>& times, const std::vector<double>& event_times,
                                     std::size_t max_rows);

/// The page: viewer_dir's page.html with its viewer.css, viewer.js and the data inlined.
/// @throws ReplayError when a viewer file is missing.
std::string replay_html(const std::string& json, const std::string& viewer_dir);

}  // namespace articula
