#pragma once
// Scenario parsing, internal: a yaml-cpp node with its dotted key path and its mark, and typed
// readers that turn every mistake into a ScenarioError "FILE:LINE:COL: key 'PATH': WHAT".
// Children are found by iterating the map (never YAML::Node::operator[], which would insert or
// return a node without a mark), so every error points at a real place in the file.
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "articula/common/types.hpp"
#include "articula/scenario/scenario.hpp"

namespace articula::scenario_detail {

class Node {
 public:
  struct Entry;  // a map entry: key text, the key's node (for its mark), the value

  Node(const Node&) = default;
  /// Rebinds (YAML::Node's own assignment would overwrite the node referred to, in the tree).
  Node& operator=(const Node& other);
  Node& operator=(Node&& other) { return *this = static_cast<const Node&>(other); }

  /// The document's root; `file` names the source in messages.
  static Node root(std::shared_ptr<const std::string> file, const YAML::Node& node);

  bool defined() const { return defined_; }  ///< present in the file (a null value counts)
  bool is_null() const { return defined_ && node_.IsNull(); }
  bool is_map() const { return defined_ && node_.IsMap(); }
  bool is_list() const { return defined_ && node_.IsSequence(); }
  bool is_scalar() const { return defined_ && node_.IsScalar(); }
  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }
  int line() const { return line_; }  ///< 0-based (yaml-cpp)

  /// ScenarioError at this node (or, when it is missing, at its map), naming its path.
  [[noreturn]] void fail(const std::string& what) const;
  /// fail("expected <what>, got <a description of the node>").
  [[noreturn]] void expected(const std::string& what) const;
  /// Calls fn(); a std::invalid_argument / std::runtime_error from the library becomes fail(e.what()).
  template <typename Fn>
  auto rethrow(Fn&& fn) const -> decltype(fn()) {
    try {
      return fn();
    } catch (const ScenarioError&) {
      throw;
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }

  // Maps.
  /// Checks that this is a map whose keys are all in `keys` (and no key is given twice): an
  /// unknown key fails at the key, listing the valid ones. `what` names the map in messages.
  void check_map(std::initializer_list<std::string_view> keys) const;
  /// The value of `key` (undefined if absent: defined() is false, mark of this map).
  Node get(std::string_view key) const;
  /// The value of `key`; fails at this map when absent ("missing, expected <expect>").
  Node need(std::string_view key, const std::string& expect) const;
  bool has(std::string_view key) const { return get(key).defined(); }
  /// Every entry of a map whose keys are names (joints, motors…); checks for a map first.
  std::vector<Entry> entries() const;
  /// Items of a list (checks for a list first); an absent node gives no item.
  std::vector<Node> items() const;

  // Scalars. Each checks the type and fails with "expected …, got …". A number (or true /
  // false) must be a plain scalar: quoted or tagged ('1', "1", !!str 1) is refused.
  /// A non-empty string of valid UTF-8 without control characters (NUL, ESC, …; a tab is
  /// allowed): names, file stems, paths. The message names the bad byte.
  std::string text() const;
  /// Same, line breaks allowed (descriptions).
  std::string long_text() const { return checked_text(true); }
  double number() const;         ///< a finite number
  double number_or_inf() const;  ///< a number, `.inf` / `inf` allowed
  double positive() const;       ///< > 0, finite
  double non_negative() const;   ///< ≥ 0, finite
  bool boolean() const;          ///< true / false (yes / no)
  Vector3 vec3() const;          ///< [x, y, z], finite
  VectorX numbers() const;       ///< a list of finite numbers
  std::string one_of(std::initializer_list<std::string_view> choices) const;

  // Same, with a default when the node is absent.
  double number_or(double fallback) const { return defined_ ? number() : fallback; }
  double positive_or(double fallback) const { return defined_ ? positive() : fallback; }
  double non_negative_or(double fallback) const { return defined_ ? non_negative() : fallback; }
  bool boolean_or(bool fallback) const { return defined_ ? boolean() : fallback; }
  Vector3 vec3_or(const Vector3& fallback) const { return defined_ ? vec3() : fallback; }

  /// "a map", "a list", "nothing" or the scalar quoted.
  std::string describe() const;

 private:
  std::string checked_text(bool allow_line_breaks) const;
  bool plain_number(double& x) const;  ///< false if not a number; fails if quoted or tagged
  Node(std::shared_ptr<const std::string> file, YAML::Node node, std::string path, int line, int column, bool defined);
  Node child(const YAML::Node& value, const YAML::Node& key, std::string path) const;
  std::shared_ptr<const std::string> file_;
  YAML::Node node_;
  std::string path_;
  int line_ = 0, column_ = 0;  // 0-based
  bool defined_ = false;
};

struct Node::Entry {
  std::string key;
  Node key_node;  ///< the key itself (errors about the name point here)
  Node value;
};

/// The text with control characters (C0, DEL, C1: terminal escapes) and invalid UTF-8 bytes
/// written as \xNN, safe to print on a terminal.
std::string printable(const std::string& text);
/// What makes `text` unfit as a name or description: invalid UTF-8, a NUL byte, a control
/// character (line breaks allowed if asked; a tab always); empty when it is fine.
std::string text_problem(const std::string& text, bool allow_line_breaks);

/// "a, b, c" ("(none)" when empty).
std::string join(const std::vector<std::string>& names);

}  // namespace articula::scenario_detail
