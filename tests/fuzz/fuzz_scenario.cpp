// libFuzzer harness: a scenario parsed from text (models resolved against the bundled
// models/), then run for at most 5 ms of simulated time with no log (so nothing is written).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "articula/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  try {
    articula::ScenarioOverrides overrides;
    overrides.duration = 0.005;
    overrides.out_dir = "/tmp/articula_fuzz_scenario";  // only used to resolve stems; outputs are dropped
    articula::Scenario s = articula::parse_scenario(yaml, "fuzz.yaml", ARTICULA_FUZZ_SCENARIO_DIR, overrides);
    s.outputs.clear();
    (void)articula::run_scenario(s);
  } catch (const std::exception&) {
  }
  return 0;
}
