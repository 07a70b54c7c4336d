// Forward dynamics against DART 6.12 and Simbody 3.7 (tests/data/*.csv, see README there).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace articula {
namespace {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  int col(const std::string& name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return static_cast<int>(i);
    throw std::runtime_error("no column " + name);
  }
};

Table read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  Table t;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (t.columns.empty()) {
      t.columns = cells;
      continue;
    }
    std::vector<double> row;
    for (const auto& c : cells) row.push_back(std::stod(c));
    t.rows.push_back(row);
  }
  return t;
}

class ReferenceTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ReferenceTest, AbaMatchesOtherEngine) {
  const auto& [stem, engine] = GetParam();
  const std::string file = stem == "talos" ? "talos_reduced" : stem;
  const bool floating = stem == "solo12" || stem == "talos";
  const Model model = load_urdf(test::model_path(file), floating ? BaseType::Floating : BaseType::Fixed);
  Data data(model);
  const Table t = read_csv(std::string(ARTICULA_TEST_DATA_DIR) + "/" + stem + "_" + engine + ".csv");
  ASSERT_GE(t.rows.size(), 20u);
  for (const auto& row : t.rows) {
    VectorX q(model.nq), v(model.nv), tau(model.nv), qdd_ref(model.nv);
    for (Index j = 0; j < model.njoints; ++j) {
      const int iq = model.idx_q[j], iv = model.idx_v[j];
      if (model.joint_types[j] == JointType::FreeFlyer) {
        const char* pn[] = {"px", "py", "pz"};
        for (int k = 0; k < 3; ++k) q[iq + k] = row[t.col(std::string("q_base_") + pn[k])];
        q[iq + 3] = row[t.col("q_base_qx")];
        q[iq + 4] = row[t.col("q_base_qy")];
        q[iq + 5] = row[t.col("q_base_qz")];
        q[iq + 6] = row[t.col("q_base_qw")];
        const char* vn[] = {"vx", "vy", "vz", "wx", "wy", "wz"};
        for (int k = 0; k < 6; ++k) {
          v[iv + k] = row[t.col(std::string("v_base_") + vn[k])];
          tau[iv + k] = row[t.col(std::string("tau_base_") + vn[k])];
          qdd_ref[iv + k] = row[t.col(std::string("qdd_base_") + vn[k])];
        }
      } else {
        const std::string& n = model.joint_names[j];
        q[iq] = row[t.col("q_" + n)];
        v[iv] = row[t.col("v_" + n)];
        tau[iv] = row[t.col("tau_" + n)];
        qdd_ref[iv] = row[t.col("qdd_" + n)];
      }
    }
    const VectorX qdd = aba(model, data, q, v, tau);
    EXPECT_LT((qdd - qdd_ref).norm() / std::max(1.0, qdd_ref.norm()), 1e-12) << stem << " " << engine;
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, ReferenceTest,
                         ::testing::Combine(::testing::Values("pendulum3r", "ur5", "panda", "solo12", "talos"),
                                            ::testing::Values("dart", "simbody")),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace articula
