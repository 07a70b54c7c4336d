// `articula codegen MODEL.urdf --name NAME [-o DIR] [--floating] [--hold …] [--lock …] [--distance …]`:
// writes DIR/NAME.hpp and DIR/NAME.cpp, the model-specific RNEA, CRBA, ABA and constrained
// kernels (docs/codegen.md).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "articula/articula.hpp"
#include "articula/codegen/kernels.hpp"
#include "commands.hpp"
#include "interrupt.hpp"

namespace articula::cli {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  // Written beside the target and renamed over it: a build never sees half a file.
  // The temporary is removed on a write error and when Ctrl-C ends the command.
  const std::filesystem::path tmp = path.string() + ".tmp";
  const RemoveOnSignal remove_on_signal(tmp.string());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw std::runtime_error("codegen: cannot write '" + tmp.string() + "'");
    }
  }
  std::filesystem::rename(tmp, path);
}

// The C++20 keywords and alternative tokens ([lex.key], [lex.digraph]): none may name the namespace.
bool is_keyword(const std::string& word) {
  static const std::set<std::string> keywords = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  return keywords.count(word) > 0;
}

// --name becomes a C++ namespace and the file names: an identifier ([lex.name]) of ASCII
// letters, digits and '_', not starting with a digit, not a keyword, and not reserved
// ([lex.name]/3: no "__", no leading "_" + capital).
void check_name(const std::string& name) {
  const bool chars =
      !name.empty() &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos &&
      !(name[0] >= '0' && name[0] <= '9');
  std::string why;
  if (!chars)
    why = "not a C++ identifier (ASCII letters, digits and '_', not starting with a digit)";
  else if (is_keyword(name))
    why = "a C++ keyword";
  else if (name.find("__") != std::string::npos ||
           (name[0] == '_' && name.size() > 1 && std::isupper(static_cast<unsigned char>(name[1]))))
    why = "a reserved identifier (it holds '__' or starts with '_' and a capital)";
  if (!why.empty()) {
    std::string shown;
    for (unsigned char c : name) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      shown += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : std::string(hex);
    }
    throw std::invalid_argument("codegen: --name '" + shown + "' is " + why +
                                "; it names the namespace articula::generated::NAME and the files NAME.hpp, NAME.cpp");
  }
}

// The command's arguments; the generator's options that need no parsing are filled directly.
struct CodegenArgs {
  std::string path, name, dir = ".";
  bool floating = false, quiet = false;
  std::vector<std::string> holds, distances, wheels, contacts;
  CodegenOptions options;
};

// "FRAME,X1,X2,…" → FRAME and the numbers (none when one of them is not a number).
std::pair<std::string, std::vector<double>> frame_numbers(const std::string& text) {
  std::vector<std::string> f;
  for (std::size_t from = 0;;) {
    const auto comma = text.find(',', from);
    f.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  std::vector<double> x;
  try {
    for (std::size_t i = 1; i < f.size(); ++i) {
      std::size_t used = 0;
      x.push_back(std::stod(f[i], &used));
      if (used != f[i].size()) throw std::invalid_argument(f[i]);
    }
  } catch (const std::exception&) {
    x.assign(1, std::nan(""));  // a count no option accepts
  }
  return {f[0], x};
}

// FRAME@OTHER → (FRAME, OTHER); FRAME → (FRAME, "").
std::pair<std::string, std::string> frame_pair(const std::string& text) {
  const auto at = text.find('@');
  return {text.substr(0, at), at == std::string::npos ? std::string() : text.substr(at + 1)};
}

int run_codegen(CodegenArgs a) {
  check_name(a.name);
  require_input_file(a.path, "model file");
  const Model model = load_urdf(a.path, a.floating ? BaseType::Floating : BaseType::Fixed);
  CodegenOptions& options = a.options;
  options.origin =
      std::filesystem::path(a.path).filename().string() + (a.floating ? " (floating base)" : " (fixed base)");
  for (const std::string& h : a.holds) {
    const auto colon = h.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("codegen: --hold '" + h +
                                  "': expected weld:FRAME, point:FRAME, AXES:FRAME (e.g. rxrz:FRAME), "
                                  "or any of them with @OTHER");
    const auto [frame, other] = frame_pair(h.substr(colon + 1));
    options.held_frames.push_back(held_frame(frame, h.substr(0, colon), other));
  }
  for (const std::string& d : a.distances) {
    const auto [frame_a, frame_b] = frame_pair(d);
    if (frame_b.empty()) throw std::invalid_argument("codegen: --distance '" + d + "': expected FRAME@OTHER");
    options.distances.push_back({frame_a, frame_b});
  }
  for (const std::string& w : a.wheels) {
    const auto [frame, x] = frame_numbers(w);  // FRAME,RADIUS,AX,AY,AZ[,NX,NY,NZ,HEIGHT]
    if (x.size() != 4 && x.size() != 8)
      throw std::invalid_argument("codegen: --wheel '" + w + "': expected FRAME,RADIUS,AX,AY,AZ[,NX,NY,NZ,HEIGHT]");
    HeldWheel held{frame, x[0], Vector3(x[1], x[2], x[3]).normalized()};
    if (x.size() == 8) {
      held.normal = Vector3(x[4], x[5], x[6]).normalized();
      held.height = x[7];
    }
    options.wheels.push_back(held);
  }
  for (const std::string& c : a.contacts) {
    const auto [frame, x] = frame_numbers(c);  // FRAME[,OX,OY,OZ[,PX,PY,PZ,NX,NY,NZ]]
    if (x.size() != 0 && x.size() != 3 && x.size() != 9)
      throw std::invalid_argument("codegen: --contact '" + c + "': expected FRAME[,OX,OY,OZ[,PX,PY,PZ,NX,NY,NZ]]");
    DeclaredContact d{frame};
    if (x.size() >= 3) d.offset = Vector3(x[0], x[1], x[2]);
    if (x.size() == 9) {
      d.point = Vector3(x[3], x[4], x[5]);
      d.normal = Vector3(x[6], x[7], x[8]);
    }
    options.contacts.push_back(d);
  }
  const GeneratedKernels k = generate_kernels(model, a.name, options);
  const std::filesystem::path out_dir(a.dir);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("codegen: cannot create directory '" + a.dir + "': " + ec.message());
  write_file(out_dir / (a.name + ".hpp"), k.header);
  write_file(out_dir / (a.name + ".cpp"), k.source);
  if (!a.quiet)
    std::cout << "wrote " << (out_dir / (a.name + ".hpp")).string() << " and " << (out_dir / (a.name + ".cpp")).string()
              << " (" << k.lines << " statements; nq " << model.nq << ", nv " << model.nv << ", digest "
              << model_digest(model) << ")\n";
  return 0;
}

}  // namespace

Command add_codegen_command(CLI::App& app) {
  auto* sub = app.add_subcommand("codegen",
                                 "Write C++ source of RNEA, CRBA and ABA specialized to one model "
                                 "(NAME.hpp, NAME.cpp; docs/codegen.md)");
  auto args = std::make_shared<CodegenArgs>();
  CodegenArgs& a = *args;
  sub->add_option("model", a.path, "URDF file")->required();
  sub->add_option("--name", a.name, "C++ namespace articula::generated::NAME and file names")->required();
  sub->add_option("-o,--output-dir", a.dir, "Directory for NAME.hpp and NAME.cpp (created if missing)");
  sub->add_flag("--floating", a.floating, "Put a free-flyer joint at the root link");
  sub->add_flag("-q,--quiet", a.quiet, "Print nothing on success");
  sub->add_option("--snap", a.options.snap,
                  "Take placement rotation entries within this of 0 or +-1 as exact (0 = use the model's numbers)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e-3));
  sub->add_option("--hold", a.holds,
                  "weld:FRAME or point:FRAME, repeatable: also write constrained_dynamics and velocity_jump "
                  "for these frames held in the world, in this order; AXES:FRAME holds the axes listed (as "
                  "AxisMask, e.g. rxrz); KIND:FRAME@OTHER holds FRAME to frame OTHER (a loop closure, as "
                  "LoopConstraint)");
  sub->add_option("--lock", a.options.locked_joints,
                  "JOINT, repeatable: also lock this joint in constrained_dynamics and velocity_jump (as a "
                  "JointLock; after the held frames). The kernels' `active` input switches each held frame "
                  "and lock on or off");
  sub->add_flag("--external-forces", a.options.external_forces,
                "Also write aba_fext (and with --hold constrained_dynamics_fext): the kernels with external "
                "forces on the bodies, which a Simulator uses for robots with elastic contacts");
  sub->add_option("--state", a.options.state_frames,
                  "FRAME, repeatable: also write body_states, the world placement and velocity of the bodies "
                  "that carry these frames (a robot's contact frames)");
  sub->add_option("--max-statements", a.options.max_statements,
                  "Cut kernels longer than this many statements into parts, functions of their own in NAME.cpp "
                  "(0: whole), which a compiler builds faster and, at the default, runs as fast or faster")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--distance", a.distances,
                  "FRAME@OTHER, repeatable: also hold the distance between the two frames' origins in "
                  "constrained_dynamics and velocity_jump (as a DistanceConstraint; after the locks)");
  sub->add_option("--wheel", a.wheels,
                  "FRAME,RADIUS,AX,AY,AZ[,NX,NY,NZ,HEIGHT], repeatable: also make the wheel whose centre is "
                  "FRAME roll on the plane n.x = HEIGHT (default normal 0,0,1, height 0) in "
                  "constrained_dynamics and velocity_jump (as a WheelConstraint, axis in FRAME; after the "
                  "distances)");
  sub->add_option("--contact", a.contacts,
                  "FRAME[,OX,OY,OZ[,PX,PY,PZ,NX,NY,NZ]], repeatable: also write aba_contacts, ABA with these "
                  "elastic contacts' forces computed inside it: the point at offset O in FRAME's axes against "
                  "the plane through P with normal N (default: the frame's origin on the ground z = 0), as a "
                  "robot's contacts in their order");
  return [args] { return run_codegen(*args); };
}

}  // namespace articula::cli
