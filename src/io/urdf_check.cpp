// URDF text checks run before urdfdom (urdf_check.hpp): one linear pass over the raw bytes
// (NUL, UTF-8, nesting depth), then one pass over TinyXML's tree (the parser urdfdom itself
// uses) for names, '%' and numbers.
#include "io/urdf_check.hpp"

#include <tinyxml.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace articula::detail {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw std::runtime_error("load_urdf: " + source + ": " + what);
}

/// Text shown in a message: at most 60 bytes, control characters and bytes ≥ 0x80 as \xHH.
std::string shown(std::string_view text) {
  std::string out;
  static const char* hex = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size() && i < 60; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > 60) out += "…";
  return out;
}

std::string where(int line, int column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// Length of the UTF-8 sequence starting at s[i] (RFC 3629 §4: no overlong forms, no
/// surrogates, nothing above U+10FFFF), or 0 if it is not a valid sequence.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = b(0);
  const auto cont = [&](std::size_t k) { return (b(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return b(1) >= lo && b(1) <= hi && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return b(1) >= lo && b(1) <= hi && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/// Name of the element whose start tag begins at xml[i] == '<'.
std::string_view tag_name(std::string_view xml, std::size_t i) {
  std::size_t e = i + 1;
  while (e < xml.size() && !std::strchr(" \t\r\n/>", xml[e])) ++e;
  return xml.substr(i + 1, e - i - 1);
}

/// The raw pass: NUL bytes and invalid UTF-8 anywhere, and the element nesting depth,
/// skipping comments, CDATA, processing instructions, declarations and quoted attribute
/// values. Linear in the text; what it cannot make sense of is left to the parser.
void scan_raw(std::string_view xml, const std::string& source) {
  int line = 1, column = 1, depth = 0;
  std::string_view element = "(before the first element)";
  std::size_t i = 0;
  const auto advance = [&](std::size_t to) {  // moves i to `to`, counting lines
    for (; i < to && i < xml.size(); ++i) {
      if (xml[i] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(xml[i]) & 0xC0u) != 0x80u) {
        ++column;
      }
    }
  };
  const auto skip_past = [&](std::size_t from, std::string_view end) {
    const std::size_t e = xml.find(end, from);
    advance(e == std::string_view::npos ? xml.size() : e + end.size());
  };
  // Bytes first: the tree pass cannot see past a NUL (TinyXML reads a C string).
  for (std::size_t k = 0; k < xml.size();) {
    if (xml[k] == '\0') {
      advance(k);
      fail(source, "NUL byte at " + where(line, column) + " (in <" + std::string(element) + ">)");
    }
    const std::size_t n = utf8_length(xml, k);
    if (n == 0) {
      advance(k);
      fail(source, "invalid UTF-8 (byte " + shown(xml.substr(k, 1)) + ") at " + where(line, column) + " (in <" +
                       std::string(element) + ">)");
    }
    if (xml[k] == '<' && k + 1 < xml.size() && xml[k + 1] != '/' && xml[k + 1] != '!' && xml[k + 1] != '?')
      element = tag_name(xml, k);
    k += n;
  }
  line = 1;
  column = 1;
  while (i < xml.size()) {
    const std::size_t lt = xml.find('<', i);
    if (lt == std::string_view::npos) break;
    advance(lt);
    const std::string_view rest = xml.substr(lt);
    if (rest.starts_with("<!--")) {
      skip_past(lt + 4, "-->");
    } else if (rest.starts_with("<![CDATA[")) {
      skip_past(lt + 9, "]]>");
    } else if (rest.starts_with("<?")) {
      skip_past(lt + 2, "?>");
    } else if (rest.starts_with("<!") || rest.starts_with("</")) {
      if (rest[1] == '/' && depth > 0) --depth;  // a stray end tag must not buy depth
      skip_past(lt + 1, ">");
    } else {
      const std::string_view name = tag_name(xml, lt);
      const int tag_line = line, tag_column = column;
      std::size_t e = lt + 1;
      char quote = 0;
      for (; e < xml.size(); ++e) {
        if (quote) {
          if (xml[e] == quote) quote = 0;
        } else if (xml[e] == '"' || xml[e] == '\'') {
          quote = xml[e];
        } else if (xml[e] == '>') {
          break;
        }
      }
      if (e >= xml.size()) break;  // an unterminated tag: the parser reports it
      if (xml[e - 1] != '/' && ++depth > kMaxUrdfDepth)
        fail(source, "elements nested deeper than " + std::to_string(kMaxUrdfDepth) + " levels at " +
                         where(tag_line, tag_column) + " (<" + shown(name) + ">)");
      advance(e + 1);
    }
  }
}

/// A finite decimal number, the whole text (surrounding blanks allowed): [+-] digits [. digits]
/// [e [+-] digits]. Rejects "", "1.5kg", "nan", "inf", hexadecimal, and overflow to ±inf.
bool finite_number(std::string_view t) {
  while (!t.empty() && std::strchr(" \t\r\n", t.front())) t.remove_prefix(1);
  while (!t.empty() && std::strchr(" \t\r\n", t.back())) t.remove_suffix(1);
  std::size_t i = 0, digits = 0;
  const auto isdigit = [&](std::size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  while (isdigit(i)) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (isdigit(i)) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!isdigit(i)) return false;
    while (isdigit(i)) ++i;
  }
  if (i != t.size()) return false;
  return std::isfinite(std::strtod(std::string(t).c_str(), nullptr));
}

/// The number of values an attribute of an element holds (urdfdom's reader), 0 if it is not
/// numeric.
int numeric_arity(std::string_view element, std::string_view attribute) {
  struct Entry {
    const char* element;
    const char* attributes;  // space-separated
    int arity;
  };
  static const Entry table[] = {
      {"origin", "xyz rpy", 3},
      {"mass", "value", 1},
      {"inertia", "ixx ixy ixz iyy iyz izz", 1},
      {"axis", "xyz", 3},
      {"limit", "lower upper effort velocity", 1},
      {"dynamics", "damping friction", 1},
      {"calibration", "rising falling reference_position", 1},
      {"safety_controller", "soft_lower_limit soft_upper_limit k_position k_velocity", 1},
      {"mimic", "multiplier offset", 1},
      {"box", "size", 3},
      {"cylinder", "radius length", 1},
      {"capsule", "radius length", 1},
      {"sphere", "radius", 1},
      {"mesh", "scale", 3},
      {"color", "rgba", 4},
  };
  for (const Entry& e : table) {
    if (element != e.element) continue;
    std::string_view list = e.attributes;
    while (!list.empty()) {
      const std::size_t sp = list.find(' ');
      if (list.substr(0, sp) == attribute) return e.arity;
      list = sp == std::string_view::npos ? std::string_view{} : list.substr(sp + 1);
    }
  }
  return 0;
}

/// Checks one attribute's text holds exactly `arity` finite numbers.
bool numbers_ok(std::string_view text, int arity) {
  int count = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::strchr(" \t\r\n", text[i])) ++i;
    if (i == text.size()) break;
    std::size_t e = i;
    while (e < text.size() && !std::strchr(" \t\r\n", text[e])) ++e;
    if (!finite_number(text.substr(i, e - i))) return false;
    ++count;
    i = e;
  }
  return count == arity;
}

class TreeChecker {
 public:
  explicit TreeChecker(const std::string& source) : source_(source) {}

  void check_robot(const TiXmlElement& robot) {
    check_text_and_attributes(robot, "<robot>");
    for (const TiXmlElement* e = robot.FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string kind = e->Value();
      const char* name = e->Attribute("name");
      const bool named = kind == "link" || kind == "joint";
      if (named && (!name || !*name))
        fail(source_, "<" + kind + "> at line " + std::to_string(e->Row()) + " has " +
                          (name ? "an empty name" : "no name attribute"));
      if (kind == "joint") check_joint_links(*e);
      const std::string context = name ? kind + " '" + shown(name) + "'" : "<" + kind + ">";
      // <gazebo>, <transmission> and other extensions are not read by urdfdom's model: only
      // their text is checked for '%'.
      const bool numeric = named || kind == "material";
      walk(*e, context, numeric);
    }
  }

 private:
  void check_joint_links(const TiXmlElement& joint) {
    for (const char* tag : {"parent", "child"}) {
      const TiXmlElement* e = joint.FirstChildElement(tag);
      if (!e) continue;
      const char* link = e->Attribute("link");
      if (!link || !*link)
        fail(source_, "joint '" + shown(joint.Attribute("name")) + "' <" + tag + "> at line " +
                          std::to_string(e->Row()) + " has " + (link ? "an empty" : "no") + " link attribute");
    }
  }

  /// `context` names the enclosing link/joint/material and the elements below it, down to e.
  void walk(const TiXmlElement& e, const std::string& context, bool numeric) {
    check_text_and_attributes(e, context);
    if (numeric) {
      for (const TiXmlAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
        const int arity = numeric_arity(e.Value(), a->Name());
        if (arity > 0 && !numbers_ok(a->ValueStr(), arity))
          fail(source_, context + " attribute " + a->Name() + " at line " + std::to_string(e.Row()) + ": '" +
                            shown(a->ValueStr()) + "' is not " +
                            (arity == 1 ? "a finite number" : std::to_string(arity) + " finite numbers"));
      }
    }
    for (const TiXmlElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement())
      walk(*c, context + " <" + shown(c->ValueStr()) + ">", numeric);
  }

  // urdfdom's error paths pass some attribute text to its printf-style logger as the format
  // (console_bridge's CONSOLE_BRIDGE_logError(text)): a '%' there reads arguments that are
  // not passed, so no '%' is let through at all.
  void check_text_and_attributes(const TiXmlElement& e, const std::string& context) {
    for (const TiXmlAttribute* a = e.FirstAttribute(); a; a = a->Next())
      if (a->ValueStr().find('%') != std::string::npos || std::strchr(a->Name(), '%'))
        fail(source_, context + " attribute " + shown(a->Name()) + " at line " + std::to_string(e.Row()) + ": '" +
                          shown(a->ValueStr()) + "' contains '%', which is not allowed in a URDF read by articula");
    if (e.ValueStr().find('%') != std::string::npos)
      fail(source_, "element <" + shown(e.ValueStr()) + "> at line " + std::to_string(e.Row()) + " contains '%'");
    for (const TiXmlNode* n = e.FirstChild(); n; n = n->NextSibling())
      if (const TiXmlText* t = n->ToText(); t && t->ValueStr().find('%') != std::string::npos)
        fail(source_, context + " text at line " + std::to_string(n->Row()) + ": '" + shown(t->ValueStr()) +
                          "' contains '%', which is not allowed in a URDF read by articula");
  }

  const std::string& source_;
};

}  // namespace

void check_urdf_text(const std::string& xml, const std::string& source) {
  scan_raw(xml, source);
  TiXmlDocument doc;
  doc.Parse(xml.c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (doc.Error())
    fail(source, std::string("malformed XML: ") + doc.ErrorDesc() + " at " + where(doc.ErrorRow(), doc.ErrorCol()));
  const TiXmlElement* root = doc.RootElement();
  if (!root) fail(source, "no XML element");
  if (root->ValueStr() != "robot") fail(source, "the root element is <" + shown(root->ValueStr()) + ">, not <robot>");
  TreeChecker(source).check_robot(*root);
}

}  // namespace articula::detail
