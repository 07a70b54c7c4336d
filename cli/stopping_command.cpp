// articula stopping: ISO 10218-1 Annex B stopping tables (docs/stopping.md), on a thread pool
// and, when built with MPI and started by mpirun / srun, on MPI ranks.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#ifdef ARTICULA_HAVE_MPI
#include <mpi.h>
#endif

#include "articula/scenario/scenario.hpp"
#include "articula/study/stopping.hpp"
#include "bundled_files.hpp"
#include "commands.hpp"

namespace articula::cli {
namespace {
namespace fs = std::filesystem;

struct StoppingOptions {
  std::string study;
  std::string output = "articula_out/stopping";
  int jobs = 0;
  int samples = 0;
  std::uint64_t seed = 1;
  bool plot = false;
  bool quiet = false;
};

// The bundled study (bundled_files.hpp's lookup), else the relative path for the error message.
std::string default_study() {
  if (auto dir = find_bundled_dir("studies", "rx130_stopping.yaml")) return (*dir / "rx130_stopping.yaml").string();
  return "studies/rx130_stopping.yaml";
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
}

// Process rank and size; MPI is initialized only when a launcher started this process.
struct Ranks {
  int rank = 0, size = 1;
  bool mpi = false;
};

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

Ranks start_ranks() {
  Ranks r;
#ifndef ARTICULA_HAVE_MPI
  if (launched_by_mpi())
    std::fprintf(stderr, "articula stopping: built without MPI: every process runs the whole sweep alone\n");
#endif
#ifdef ARTICULA_HAVE_MPI
  if (launched_by_mpi()) {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    r.mpi = true;
  }
#endif
  return r;
}

void end_ranks(const Ranks& r) {
#ifdef ARTICULA_HAVE_MPI
  if (r.mpi) MPI_Finalize();
#else
  (void)r;
#endif
}

// Runs every work item of the plan, on this process's threads or, with MPI, spread over the
// ranks: rank 0 scatters the item numbers (round robin, so that every rank gets each joint
// and category), each rank runs its share on `jobs` threads, rank 0 gathers the figures
// (kStopFiguresDoubles numbers per item) back into item order. Returns all items on rank 0.
std::vector<StopFigures> run_items(const StoppingStudy& study, const std::vector<StoppingCase>& cases,
                                   const SweepPlan& plan, int jobs, const Ranks& ranks) {
  const int n = plan.items();
  if (!ranks.mpi) {
    std::vector<int> all(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
    return run_stopping_items(study, cases, plan, all, jobs);
  }
#ifdef ARTICULA_HAVE_MPI
  std::vector<int> counts(static_cast<std::size_t>(ranks.size)), displs(static_cast<std::size_t>(ranks.size));
  std::vector<int> order;  // item numbers grouped by rank
  for (int r = 0, off = 0; r < ranks.size; ++r) {
    displs[static_cast<std::size_t>(r)] = off;
    for (int i = r; i < n; i += ranks.size) order.push_back(i);
    counts[static_cast<std::size_t>(r)] = static_cast<int>(order.size()) - off;
    off = static_cast<int>(order.size());
  }
  std::vector<int> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(ranks.rank)]));
  MPI_Scatterv(order.data(), counts.data(), displs.data(), MPI_INT, mine.data(), static_cast<int>(mine.size()), MPI_INT,
               0, MPI_COMM_WORLD);
  const std::vector<StopFigures> local = run_stopping_items(study, cases, plan, mine, jobs);
  std::vector<double> packed(local.size() * kStopFiguresDoubles);
  for (std::size_t i = 0; i < local.size(); ++i) pack_figures(local[i], &packed[i * kStopFiguresDoubles]);
  std::vector<int> dcounts(counts.size()), ddispls(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    dcounts[r] = counts[r] * kStopFiguresDoubles;
    ddispls[r] = displs[r] * kStopFiguresDoubles;
  }
  std::vector<double> gathered(ranks.rank == 0 ? static_cast<std::size_t>(n) * kStopFiguresDoubles : 0);
  MPI_Gatherv(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, gathered.data(), dcounts.data(),
              ddispls.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<StopFigures> out;
  if (ranks.rank != 0) return out;
  out.resize(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < order.size(); ++k)
    out[static_cast<std::size_t>(order[k])] = unpack_figures(&gathered[k * kStopFiguresDoubles]);
  // Rank 0's own failures keep their message.
  for (std::size_t k = 0; k < local.size(); ++k) out[static_cast<std::size_t>(mine[k])] = local[k];
  return out;
#else
  return {};
#endif
}

int run_stopping(const StoppingOptions& o) {
  const Ranks ranks = start_ranks();
  struct Finalize {
    const Ranks& r;
    ~Finalize() { end_ranks(r); }
  } finalize{ranks};
  const bool lead = ranks.rank == 0;
  const std::string path = o.study.empty() ? default_study() : o.study;
  StoppingStudy study;
  try {
    if (o.samples < 0) throw std::invalid_argument("--samples must be ≥ 0, got " + std::to_string(o.samples));
    if (o.jobs < 0) throw std::invalid_argument("--jobs must be ≥ 0, got " + std::to_string(o.jobs));
    study = load_stopping_study(path);
  } catch (const std::exception& e) {
    if (lead) std::cerr << "articula stopping: error: " << e.what() << "\n";
    return 2;
  }
  const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::vector<StoppingCase> cases = stopping_cases(study);
  const SweepPlan plan{static_cast<int>(cases.size()), o.samples, o.seed};
  const auto wall0 = std::chrono::steady_clock::now();
  const std::vector<StopFigures> items = run_items(study, cases, plan, jobs, ranks);
  if (!lead) return 0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const std::vector<StoppingCaseResult> results = assemble_results(cases, plan, items);

  int code = 0;
  if (!o.quiet) {
    std::printf("articula stopping: %s (%s), %zu cases x %d runs, flange '%s'\n", study.name.c_str(),
                study.model_file.c_str(), cases.size(), plan.runs_per_case(), study.flange.c_str());
    std::printf("  brakes: the study's friction / pin brakes; ideal = instant locks (consistent jump) at engagement\n");
    std::fputs(stopping_table(study, results).c_str(), stdout);
  }
  for (const StoppingCaseResult& r : results)
    for (const StopFigures* f : {&r.real, &r.ideal})
      if (!f->ok) {
        std::fprintf(stderr, "articula stopping: case %d (%s, category %d) failed: %s\n", r.c.index,
                     study.joints[r.c.joint].joint.c_str(), r.c.category, f->message.c_str());
        code = 1;
      }
  try {
    const fs::path dir(o.output);
    fs::create_directories(dir);
    write_file(dir / "stopping.csv", stopping_csv(study, results));
    write_file(dir / "stopping.json", stopping_json(study, results, o.samples, o.seed));
    std::printf("%sWrote %s and %s (%d runs in %.2f s on %d rank(s) x %d thread(s))\n", o.quiet ? "" : "\n",
                (dir / "stopping.csv").string().c_str(), (dir / "stopping.json").string().c_str(), plan.items(), wall,
                ranks.size, jobs);
    if (o.plot) {
      const auto tool = tool_script("plot_stopping.py");
      if (!tool) {
        std::fprintf(stderr, "articula stopping: --plot needs tools/plot_stopping.py; no plot drawn\n");
        return 1;
      }
      const std::string python = python_with_matplotlib().value_or("/usr/bin/python3");
      const std::string cmd = python + " " + shell_quote(tool->string()) + " " +
                              shell_quote((dir / "stopping.csv").string()) + " -o " + shell_quote(dir.string()) +
                              " --ideal --title " + shell_quote(study.model->name);
      if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "articula stopping: the plot tool failed (needs python3-matplotlib)\n");
        code = 1;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "articula stopping: error writing the results: " << e.what() << "\n";
    return 1;
  }
  return code;
}

}  // namespace

Command add_stopping_command(CLI::App& app) {
  auto* sub = app.add_subcommand("stopping",
                                 "ISO 10218-1 Annex B stopping times and distances of joints 1-3 (categories 0 and 1)");
  auto o = std::make_shared<StoppingOptions>();
  sub->add_option("study", o->study, "Study file (default: the bundled studies/rx130_stopping.yaml)");
  sub->add_option("-o,--output", o->output, "Folder for stopping.csv, stopping.json and the plots")
      ->capture_default_str();
  sub->add_option("-j,--jobs", o->jobs, "Threads per process (default: the cores)");
  sub->add_option("--samples", o->samples, "Sampled runs per case (brake delays and torques within tolerance)")
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "Seed of the sampling (results depend on it and the case only)")
      ->capture_default_str();
  sub->add_flag("--plot", o->plot, "Also draw stopping_cat<C>.png (tools/plot_stopping.py, python3-matplotlib)");
  sub->add_flag("-q,--quiet", o->quiet, "No table on the terminal");
  return [o] { return run_stopping(*o); };
}

}  // namespace articula::cli
