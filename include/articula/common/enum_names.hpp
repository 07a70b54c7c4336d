#pragma once
/// Enum <-> text through one table per enum: the to_string / parse_* pairs of the library
/// (JointType, JumpForm, ConstrainedMethod, Integrator, SensorType, BrakeKind, LogFormat, …)
/// are each a table of {value, name} entries and one call here.
///
/// A value's first entry is its canonical name (what enum_name returns); later entries for
/// the same value are aliases that parse_enum also accepts. The parse error names the bad
/// text and lists every accepted name, aliases joined to their value's name by '/':
///   unknown jump form 'x' (expected auto/consistent, full, …, naive or none)
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace articula {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

/// The canonical name of `value`, or "?" if the table lacks it.
template <class E, std::size_t N>
constexpr std::string_view enum_name(const EnumNames<E, N>& names, E value) {
  for (const EnumName<E>& e : names)
    if (e.value == value) return e.name;
  return "?";
}

/// "a, b/b2 or c": the accepted names in table order, aliases after their value's name.
template <class E, std::size_t N>
std::string enum_choices(const EnumNames<E, N>& names) {
  std::string out;
  std::size_t listed = 0, values = 0;
  for (std::size_t i = 0; i < N; ++i) {
    bool first = true;
    for (std::size_t j = 0; j < i; ++j) first = first && names[j].value != names[i].value;
    values += first ? 1 : 0;
  }
  for (std::size_t i = 0; i < N; ++i) {
    bool first = true;
    for (std::size_t j = 0; j < i; ++j) first = first && names[j].value != names[i].value;
    if (!first) continue;
    if (listed > 0) out += listed + 1 == values ? " or " : ", ";
    out += names[i].name;
    for (std::size_t j = i + 1; j < N; ++j)
      if (names[j].value == names[i].value) (out += '/') += names[j].name;
    ++listed;
  }
  return out;
}

/// The value named `text` (a canonical name or an alias); throws std::invalid_argument
/// "unknown <what> '<text>' (expected <enum_choices>)" otherwise.
template <class E, std::size_t N>
E parse_enum(const EnumNames<E, N>& names, std::string_view text, std::string_view what) {
  for (const EnumName<E>& e : names)
    if (e.name == text) return e.value;
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(text) + "' (expected " +
                              enum_choices(names) + ")");
}

}  // namespace articula
