// libFuzzer harness: the command-line parser (run_cli with parse_only), the input split into
// argv words at newlines.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words{"articula"};
  std::string w;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n') {
      words.push_back(w);
      w.clear();
    } else if (c != '\0') {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(w);
  std::vector<char*> argv;
  for (std::string& s : words) argv.push_back(s.data());
  argv.push_back(nullptr);
  try {
    (void)articula::cli::run_cli(static_cast<int>(words.size()), argv.data(), /*parse_only=*/true);
  } catch (const std::exception&) {
  }
  return 0;
}
