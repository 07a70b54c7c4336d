// Scenario parsing, internal: typed readers on yaml-cpp nodes with marks (yaml_node.hpp).
#include "scenario/yaml_node.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace articula::scenario_detail {
namespace {

std::string path_join(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

// The scalar as a number: decimal / exponent notation, and YAML's .inf / .nan spellings.
bool parse_number(const std::string& text, double& out) {
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf" || text == "inf") {
    out = INFINITY;
    return true;
  }
  if (text == "-.inf" || text == "-.Inf" || text == "-.INF" || text == "-inf") {
    out = -INFINITY;
    return true;
  }
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// The length of the UTF-8 sequence starting at s[i] (1 … 4), or 0 when it is not valid UTF-8
// (RFC 3629 §4: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = byte(i);
  const auto cont = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned c1 = byte(i + 1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0;
    return cont(i + 1) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned c1 = byte(i + 1);
    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    const auto c = static_cast<unsigned char>(text[i]);
    // C0 controls, DEL and the C1 controls U+0080 … U+009F (UTF-8 C2 80 … C2 9F) are escaped.
    const bool control =
        n == 1 ? (c < 0x20 || c == 0x7f) : n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (n == 0 || control) {
      for (std::size_t k = 0; k < (n == 0 ? 1 : n); ++k) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(text[i + k]));
        out += hex;
      }
      i += n == 0 ? 1 : n;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

std::string text_problem(const std::string& text, bool allow_line_breaks) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    const auto c = static_cast<unsigned char>(text[i]);
    char at[64];
    if (n == 0) {
      std::snprintf(at, sizeof at, "invalid UTF-8 (byte 0x%02x at offset %zu)", c, i);
      return at;
    }
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    const bool allowed = c == '\t' || (allow_line_breaks && c == '\n');
    if ((n == 1 && (c < 0x20 || c == 0x7f) && !allowed) || c1) {
      const unsigned code = c1 ? static_cast<unsigned char>(text[i + 1]) : c;
      std::snprintf(at, sizeof at, "a control character (U+%04X at offset %zu)", code, i);
      return std::string(at) + (code == 0 ? ", a NUL byte" : code == 0x1b || code == 0x9b ? ", a terminal escape" : "");
    }
    i += n;
  }
  return {};
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

Node::Node(std::shared_ptr<const std::string> file, YAML::Node node, std::string path, int line, int column,
           bool defined)
    : file_(std::move(file)),
      node_(std::move(node)),
      path_(std::move(path)),
      line_(line),
      column_(column),
      defined_(defined) {}

Node& Node::operator=(const Node& other) {
  if (this == &other) return *this;
  file_ = other.file_;
  node_.reset(other.node_);
  path_ = other.path_;
  line_ = other.line_;
  column_ = other.column_;
  defined_ = other.defined_;
  return *this;
}

Node Node::root(std::shared_ptr<const std::string> file, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return Node(std::move(file), node, "", m.is_null() ? 0 : m.line, m.is_null() ? 0 : m.column, true);
}

Node Node::child(const YAML::Node& value, const YAML::Node& key, std::string path) const {
  // A null value (`key:` with nothing) may carry no mark of its own: use the key's.
  YAML::Mark m = value.Mark();
  if (m.is_null() || (value.IsNull() && !key.Mark().is_null())) m = key.Mark();
  if (m.is_null()) return Node(file_, value, std::move(path), line_, column_, true);
  return Node(file_, value, std::move(path), m.line, m.column, true);
}

void Node::fail(const std::string& what) const { throw ScenarioError(*file_, line_ + 1, column_ + 1, path_, what); }

std::string Node::describe() const {
  if (!defined_) return "nothing";
  if (node_.IsNull()) return "nothing";
  if (node_.IsMap()) return "a map";
  if (node_.IsSequence())
    return node_.size() == 1 ? "a list of 1 item" : "a list of " + std::to_string(node_.size()) + " items";
  std::string s = node_.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  s = printable(s);  // control characters, terminal escapes and invalid bytes as \xNN
  if (node_.Tag() == "!") return "the quoted text '" + s + "'";
  if (node_.Tag() != "?" && !node_.Tag().empty()) return "'" + s + "' tagged " + printable(node_.Tag());
  return "'" + s + "'";
}

void Node::expected(const std::string& what) const { fail("expected " + what + ", got " + describe()); }

void Node::check_map(std::initializer_list<std::string_view> keys) const {
  if (!is_map()) expected("a map");
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const Node key_node = child(kv.first, kv.first, path_join(path_, key));
    if (!kv.first.IsScalar()) key_node.fail("a key must be a name, got " + key_node.describe());
    bool known = false;
    for (std::string_view k : keys) known = known || k == key;
    if (!known) {
      std::string valid;
      for (std::string_view k : keys) valid += (valid.empty() ? "" : ", ") + std::string(k);
      key_node.fail("unknown key; valid keys" + (path_.empty() ? std::string() : " in '" + path_ + "'") + ": " + valid);
    }
    if (!seen.insert(key).second) key_node.fail("given twice");
  }
}

Node Node::get(std::string_view key) const {
  if (is_map())
    for (const auto& kv : node_)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) return child(kv.second, kv.first, path_join(path_, key));
  return Node(file_, YAML::Node(), path_join(path_, key), line_, column_, false);
}

Node Node::need(std::string_view key, const std::string& expect) const {
  Node n = get(key);
  if (!n.defined()) n.fail("missing; expected " + expect);
  return n;
}

std::vector<Node::Entry> Node::entries() const {
  if (!defined_) return {};
  if (!is_map()) expected("a map");
  std::vector<Entry> out;
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    Node key_node = child(kv.first, kv.first, path_join(path_, key));
    if (!kv.first.IsScalar() || key.empty()) key_node.fail("a key must be a name, got " + key_node.describe());
    if (const std::string bad = text_problem(key, false); !bad.empty())
      key_node.fail("a name must be printable UTF-8 text, got " + key_node.describe() + ": " + bad);
    if (!seen.insert(key).second) key_node.fail("given twice");
    out.push_back({key, key_node, child(kv.second, kv.first, path_join(path_, key))});
  }
  return out;
}

std::vector<Node> Node::items() const {
  if (!defined_) return {};
  if (!is_list()) expected("a list");
  std::vector<Node> out;
  std::size_t i = 0;
  for (const auto& item : node_) {
    out.push_back(child(item, item, path_ + "[" + std::to_string(i) + "]"));
    ++i;
  }
  return out;
}

std::string Node::text() const { return checked_text(false); }

std::string Node::checked_text(bool allow_line_breaks) const {
  if (!is_scalar() || node_.Scalar().empty()) expected("a name or text");
  if (const std::string bad = text_problem(node_.Scalar(), allow_line_breaks); !bad.empty())
    fail("expected printable UTF-8 text, got " + describe() + ": " + bad);
  return node_.Scalar();
}

bool Node::plain_number(double& x) const {
  if (!is_scalar() || !parse_number(node_.Scalar(), x)) return false;
  // A number is a plain scalar: '1.5', "1.5" and !!str 1.5 are text in YAML (a quoted number
  // is usually a mistake, e.g. a value meant to be a name), !!float 1.5 is not needed.
  if (node_.Tag() != "?") fail("expected a number written plain (no quotes, no tag), got " + describe());
  return true;
}

double Node::number_or_inf() const {
  double x = 0.0;
  if (!plain_number(x) || std::isnan(x)) expected("a number");
  return x;
}

double Node::number() const {
  const double x = number_or_inf();
  if (!std::isfinite(x)) expected("a finite number");
  return x;
}

double Node::positive() const {
  double x = 0.0;
  if (!plain_number(x) || !(x > 0) || !std::isfinite(x)) expected("a number > 0");
  return x;
}

double Node::non_negative() const {
  double x = 0.0;
  if (!plain_number(x) || !(x >= 0) || !std::isfinite(x)) expected("a number >= 0");
  return x;
}

bool Node::boolean() const {
  if (is_scalar() && node_.Tag() == "?") {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "True" || s == "TRUE" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "False" || s == "FALSE" || s == "no" || s == "off") return false;
  }
  expected("true or false");
}

VectorX Node::numbers() const {
  if (!is_list()) expected("a list of numbers");
  const std::vector<Node> list = items();
  VectorX x(static_cast<Eigen::Index>(list.size()));
  for (std::size_t i = 0; i < list.size(); ++i) x[static_cast<Eigen::Index>(i)] = list[i].number();
  return x;
}

Vector3 Node::vec3() const {
  if (!is_list() || node_.size() != 3) expected("a list of 3 numbers [x, y, z]");
  return numbers();
}

std::string Node::one_of(std::initializer_list<std::string_view> choices) const {
  std::string valid;
  for (std::string_view c : choices) valid += (valid.empty() ? "" : ", ") + std::string(c);
  if (is_scalar())
    for (std::string_view c : choices)
      if (node_.Scalar() == c) return node_.Scalar();
  expected("one of " + valid);
}

}  // namespace articula::scenario_detail
