// The viewer's self-contained page: page.html (viewer/) with its bundled style and script and
// the replay data inlined, so that it opens offline, by double-click, with no server.
#include <cctype>
#include <fstream>
#include <sstream>

#include "articula/io/replay.hpp"

namespace articula {
namespace {

std::string read_viewer_file(const std::string& dir, const char* name) {
  const std::string path = dir + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ReplayError("replay: the viewer file '" + path +
                      "' is missing (the viewer is built with npm: see viewer/README.md)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Inside <script>, only "</script" (any case) ends the element early: written as "<\/script".
std::string script_safe(std::string text) {
  for (std::size_t i = 0; (i = text.find("</", i)) != std::string::npos; i += 3) {
    const std::string tag = text.substr(i + 2, 6);
    std::string lower;
    for (char c : tag) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "script") text.replace(i, 2, "<\\/");
  }
  return text;
}

void replace_once(std::string& page, const std::string& marker, const std::string& with, const std::string& dir) {
  const std::size_t at = page.find(marker);
  if (at == std::string::npos) throw ReplayError("replay: '" + dir + "/page.html' has no " + marker + " marker");
  page.replace(at, marker.size(), with);
}

}  // namespace

std::string replay_html(const std::string& json, const std::string& viewer_dir) {
  std::string page = read_viewer_file(viewer_dir, "page.html");
  const std::string style = read_viewer_file(viewer_dir, "viewer.css");
  const std::string script = read_viewer_file(viewer_dir, "viewer.js");
  // The data first: the markers of the style and script cannot appear in it then.
  replace_once(page, "<!--ARTICULA_DATA-->",
               "<script id=\"articula-data\" type=\"application/json\">" + script_safe(json) + "</script>", viewer_dir);
  replace_once(page, "/*ARTICULA_STYLE*/", style, viewer_dir);
  replace_once(page, "/*ARTICULA_SCRIPT*/", script_safe(script), viewer_dir);
  return page;
}

}  // namespace articula
