// libFuzzer harness: the URDF loader (load_urdf_string) on arbitrary text, both base types.
// Bad input must end as std::exception, never as a signal (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "articula/io/urdf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  for (articula::BaseType base : {articula::BaseType::Fixed, articula::BaseType::Floating}) {
    try {
      (void)articula::load_urdf_string(xml, base, "fuzz.urdf");
    } catch (const std::exception&) {
    }
  }
  return 0;
}
