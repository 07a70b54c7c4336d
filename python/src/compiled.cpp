// Kernels compiled on demand from Python (docs/codegen.md, "Compiled on demand"): compile(),
// the CompiledKernels it returns (callable rnea / crba / aba), Simulator.use_compiled, and the
// same in the background: compile_in_background() → KernelsInFlight, Simulator.use_compiled_when_ready.
#include <algorithm>
#include <chrono>
#include <future>

#include "common.hpp"

namespace articula::python {
namespace {

// The loaded kernels and the sizes of the model they were made for (the shape checks).
struct Sizes {
  Eigen::Index nq = 0, nv = 0, nb = 0;  // nb: bodies (Model::njoints)
  // The constrained kernels: declared constraints, entries of ref, rows of lambda.
  Eigen::Index declared = 0, ref_size = 0, m = 0;
};

// The sizes of `model`'s kernels for `o` (constrained_layout, as the generated header's constants;
// raises for names the model lacks, as compile_kernels would).
Sizes sizes_for(const Model& model, const CompileOptions& o) {
  const ConstrainedLayout layout =
      constrained_layout(model, o.held_frames, o.locked_joints, o.distances, o.wheels);  // checks the names
  return {model.nq, model.nv, model.njoints, static_cast<int>(layout.declared.size()), layout.ref_size, layout.m};
}

struct PyCompiled : Sizes {
  std::shared_ptr<const CompiledKernels> k;
};

std::vector<HeldFrame> held_arg(const py::object& held) {
  std::vector<HeldFrame> out;
  if (held.is_none()) return out;
  for (const py::handle item : held) {
    if (py::isinstance<py::str>(item)) {
      out.push_back({item.cast<std::string>(), true});
      continue;
    }
    const auto pair = item.cast<py::tuple>();
    if (pair.size() != 2 && pair.size() != 3)
      raise(errors().argument,
            "held_frames: each entry is a frame name, a (frame, kind) pair or a (frame, kind, other_frame) "
            "triple (a loop closure), kind 'weld', 'point' or an axis list such as 'rxrz'");
    out.push_back(held_frame(pair[0].cast<std::string>(), pair[1].cast<std::string>(),
                             pair.size() == 3 ? pair[2].cast<std::string>() : ""));
  }
  return out;
}

py::list held_list(const std::vector<HeldFrame>& held) {
  py::list out;
  for (const HeldFrame& f : held) {
    if (f.relative_to.empty())
      out.append(py::make_tuple(f.frame, f.kind()));
    else
      out.append(py::make_tuple(f.frame, f.kind(), f.relative_to));
  }
  return out;
}

// A compile started by compile_in_background(), running on its own thread.
struct PyInFlight {
  std::shared_future<std::shared_ptr<const CompiledKernels>> future;
  Sizes sizes;
};

std::vector<HeldDistance> distances_arg(const py::object& distances) {
  std::vector<HeldDistance> out;
  if (distances.is_none()) return out;
  for (const py::handle item : distances) {
    const auto pair = item.cast<py::tuple>();
    if (pair.size() != 2) raise(errors().argument, "distances: each entry is a (frame_a, frame_b) pair");
    out.push_back({pair[0].cast<std::string>(), pair[1].cast<std::string>()});
  }
  return out;
}

py::list distances_list(const std::vector<HeldDistance>& distances) {
  py::list out;
  for (const HeldDistance& d : distances) out.append(py::make_tuple(d.frame_a, d.frame_b));
  return out;
}

// (frame, radius, axis, normal, height) tuples, axis and normal normalized as WheelConstraint does.
std::vector<HeldWheel> wheels_arg(const py::object& wheels) {
  std::vector<HeldWheel> out;
  if (wheels.is_none()) return out;
  for (const py::handle item : wheels) {
    const auto t = item.cast<py::tuple>();
    if (t.size() != 5) raise(errors().argument, "wheels: each entry is a (frame, radius, axis, normal, height) tuple");
    out.push_back({t[0].cast<std::string>(), t[1].cast<double>(), vec3_arg(t[2], "axis").normalized(),
                   vec3_arg(t[3], "normal").normalized(), t[4].cast<double>()});
  }
  return out;
}

py::list wheels_list(const std::vector<HeldWheel>& wheels) {
  py::list out;
  for (const HeldWheel& w : wheels)
    out.append(py::make_tuple(w.frame, w.radius, to_array(w.axis), to_array(w.normal), w.height));
  return out;
}

// Frame names (a point at the frame's origin on the ground z = 0) or (frame, offset) or (frame,
// offset, plane_point, plane_normal) tuples.
std::vector<DeclaredContact> contacts_arg(const py::object& contacts) {
  std::vector<DeclaredContact> out;
  if (contacts.is_none()) return out;
  for (const py::handle item : contacts) {
    if (py::isinstance<py::str>(item)) {
      out.push_back({item.cast<std::string>()});
      continue;
    }
    const auto t = item.cast<py::tuple>();
    if (t.size() != 2 && t.size() != 4)
      raise(errors().argument,
            "contacts: each entry is a frame name, a (frame, offset) pair or a (frame, offset, plane_point, "
            "plane_normal) tuple");
    DeclaredContact d{t[0].cast<std::string>(), vec3_arg(t[1], "offset")};
    if (t.size() == 4) {
      d.point = vec3_arg(t[2], "plane_point");
      d.normal = vec3_arg(t[3], "plane_normal");
    }
    out.push_back(d);
  }
  return out;
}

py::list contacts_list(const std::vector<DeclaredContact>& contacts) {
  py::list out;
  for (const DeclaredContact& c : contacts)
    out.append(py::make_tuple(c.frame, to_array(c.offset), to_array(c.point), to_array(c.normal)));
  return out;
}

CompileOptions compile_options(const py::object& held, bool external_forces, const std::string& cache_dir,
                               const std::string& compiler, const std::string& flags, int jobs,
                               const py::object& locked, int max_statements, const py::object& states,
                               const py::object& distances, const py::object& wheels, bool engine_kernels_only,
                               const py::object& contacts) {
  CompileOptions o;
  o.contacts = contacts_arg(contacts);
  o.engine_kernels_only = engine_kernels_only;
  o.wheels = wheels_arg(wheels);
  if (!states.is_none()) o.state_frames = states.cast<std::vector<std::string>>();
  o.distances = distances_arg(distances);
  o.max_statements = max_statements;
  o.held_frames = held_arg(held);
  if (!locked.is_none()) o.locked_joints = locked.cast<std::vector<std::string>>();
  o.external_forces = external_forces;
  o.cache_dir = cache_dir;
  o.compiler = compiler;
  o.flags = flags;
  o.jobs = jobs;
  return o;
}

// compile() and compile_in_background() take the same arguments: `def_compile` binds `body(model,
// options)` under `name` with them.
template <typename Body>
void def_compile(py::module_& m, const char* name, Body body, const std::string& doc) {
  m.def(
      name,
      [body](const Model& model, const py::object& held, bool external_forces, const std::string& cache_dir,
             const std::string& compiler, const std::string& flags, int jobs, const py::object& locked,
             int max_statements, const py::object& states, const py::object& distances, const py::object& wheels,
             bool engine_kernels_only, const py::object& contacts) {
        return body(model, compile_options(held, external_forces, cache_dir, compiler, flags, jobs, locked,
                                           max_statements, states, distances, wheels, engine_kernels_only, contacts));
      },
      py::arg("model"), py::arg("held_frames") = py::none(), py::arg("external_forces") = false,
      py::arg("cache_dir") = "", py::arg("compiler") = "", py::arg("flags") = CompileOptions{}.flags,
      py::arg("jobs") = 0, py::arg("locked_joints") = py::none(), py::arg("max_statements") = kDefaultMaxStatements,
      py::arg("state_frames") = py::none(), py::arg("distances") = py::none(), py::arg("wheels") = py::none(),
      py::arg("engine_kernels_only") = false, py::arg("contacts") = py::none(), doc.c_str());
}

// A kernel left out by engine_kernels_only is a null pointer: an error naming it, never a call.
template <typename Kernel>
void need(Kernel kernel, const char* name) {
  if (kernel == nullptr)
    raise(errors().argument, std::string(name) +
                                 ": not in these kernels (compiled with engine_kernels_only=True: only the kernels a "
                                 "Simulator calls)");
}

// rnea and aba: (q, v, x) → a new (nv,) array, with the shapes checked.
template <typename Kernel>
py::array_t<double> call_qv(const PyCompiled& c, Kernel kernel, const py::object& q, const py::object& v,
                            const py::object& x, const char* x_name) {
  need(kernel, x_name[0] == 'a' ? "rnea" : "aba");
  Array kq = null_array(), kv = null_array(), kx = null_array();
  const auto qm = vector_arg(q, "q", c.nq, kq), vm = vector_arg(v, "v", c.nv, kv), xm = vector_arg(x, x_name, c.nv, kx);
  py::array_t<double> out(c.nv);
  kernel(qm.data(), vm.data(), xm.data(), out.mutable_data());
  return out;
}

}  // namespace

void init_compiled(py::module_& m) {
  py::class_<PyCompiled>(m, "CompiledKernels",
                         "RNEA, CRBA and ABA (and, for held frames, the constrained dynamics) of one model, "
                         "generated and compiled for this machine by compile(); the library stays loaded "
                         "while this object or a Simulator using it lives.")
      .def_property_readonly(
          "key", [](const PyCompiled& c) { return c.k->key; }, "Cache key (16 hex digits).")
      .def_property_readonly(
          "library", [](const PyCompiled& c) { return c.k->library; }, "Path of the loaded shared library.")
      .def_property_readonly("model_digest", [](const PyCompiled& c) { return c.k->model_digest; })
      .def_property_readonly(
          "from_cache", [](const PyCompiled& c) { return c.k->from_cache; },
          "True when loaded from the cache without compiling.")
      .def_property_readonly(
          "seconds", [](const PyCompiled& c) { return c.k->seconds; },
          "Wall time of compile() [s]: generation, compilation and loading.")
      .def_property_readonly(
          "units", [](const PyCompiled& c) { return c.k->units; }, "Translation units compiled (0 from the cache).")
      .def_property_readonly(
          "held_frames", [](const PyCompiled& c) { return held_list(c.k->held_frames); },
          "[(frame, kind) or (frame, kind, other_frame)] of the constrained kernels, kind 'weld', 'point' or "
          "the axes held ('rxrz').")
      .def_property_readonly(
          "locked_joints", [](const PyCompiled& c) { return c.k->locked_joints; },
          "The joints locked in the constrained kernels.")
      .def_property_readonly(
          "distances", [](const PyCompiled& c) { return distances_list(c.k->distances); },
          "[(frame_a, frame_b)]: the distances held in the constrained kernels.")
      .def_property_readonly(
          "wheels", [](const PyCompiled& c) { return wheels_list(c.k->wheels); },
          "[(frame, radius, axis, normal, height)]: the wheels rolling in the constrained kernels.")
      .def_property_readonly(
          "external_forces", [](const PyCompiled& c) { return c.k->external_forces; },
          "True when compiled with the kernels that take external forces (aba with f_ext; the elastic "
          "contacts of a Simulator).")
      .def_property_readonly(
          "contacts", [](const PyCompiled& c) { return contacts_list(c.k->contacts); },
          "[(frame, offset, plane_point, plane_normal)]: the elastic contacts of aba_contacts.")
      .def(
          "aba_contacts",
          [](const PyCompiled& c, const py::object& q, const py::object& v, const py::object& tau,
             const py::object& law) {
            if (!c.k->aba_contacts)
              raise(errors().argument, "aba_contacts: these kernels declare no contact (compile(..., contacts=...))");
            const auto n = static_cast<Eigen::Index>(c.k->contacts.size());
            const Eigen::Matrix<double, 4, Eigen::Dynamic> packed = matrix_arg(law, "law", n, 4).transpose();
            Array kq = null_array(), kv = null_array(), kx = null_array();
            const auto qm = vector_arg(q, "q", c.nq, kq), vm = vector_arg(v, "v", c.nv, kv);
            const auto xm = vector_arg(tau, "tau", c.nv, kx);
            py::array_t<double> qdd(c.nv);
            py::array_t<double> f({n, Eigen::Index(3)});
            c.k->aba_contacts(qm.data(), vm.data(), xm.data(), packed.data(), qdd.mutable_data(), f.mutable_data());
            return py::make_tuple(qdd, f);
          },
          py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("law"),
          "(qdd (nv,), f_contact (ncontacts, 3)): the declared elastic contacts' forces [N, world axes; 0 out of "
          "contact] and ABA with them, as Simulator runs robots with contacts. law: (ncontacts, 4) stiffness "
          "[N/m], damping [N·s/m], friction, slip_velocity [m/s] per contact.")
      .def(
          "rnea",
          [](const PyCompiled& c, const py::object& q, const py::object& v, const py::object& a) {
            return call_qv(c, c.k->rnea, q, v, a, "a");
          },
          py::arg("q"), py::arg("v"), py::arg("a"),
          "τ = M(q) a + h(q, v) (nv,) [N·m or N], as rnea() without external forces.")
      .def(
          "crba",
          [](const PyCompiled& c, const py::object& q) {
            need(c.k->crba, "crba");
            Array kq = null_array();
            const auto qm = vector_arg(q, "q", c.nq, kq);
            py::array_t<double, py::array::f_style> M({c.nv, c.nv});
            std::fill(M.mutable_data(), M.mutable_data() + c.nv * c.nv, 0.0);
            c.k->crba(qm.data(), M.mutable_data());  // writes the tree's sparsity pattern, both triangles
            return M;
          },
          py::arg("q"), "M(q) (nv, nv) with armature, both triangles, as crba().")
      .def(
          "aba",
          [](const PyCompiled& c, const py::object& q, const py::object& v, const py::object& tau,
             const py::object& f_ext) {
            if (f_ext.is_none()) return call_qv(c, c.k->aba, q, v, tau, "tau");
            if (!c.k->aba_fext)
              raise(errors().argument,
                    "f_ext: these kernels were compiled without external forces "
                    "(compile(..., external_forces=True))");
            const MatrixX f = matrix_arg(f_ext, "f_ext", c.nb, 6);
            const Eigen::Matrix<double, 6, Eigen::Dynamic> packed = f.transpose();  // 6 per body, body after body
            Array kq = null_array(), kv = null_array(), kx = null_array();
            const auto qm = vector_arg(q, "q", c.nq, kq), vm = vector_arg(v, "v", c.nv, kv);
            const auto xm = vector_arg(tau, "tau", c.nv, kx);
            py::array_t<double> out(c.nv);
            c.k->aba_fext(qm.data(), vm.data(), xm.data(), packed.data(), out.mutable_data());
            return out;
          },
          py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("f_ext") = py::none(),
          "v̇ = M(q)⁻¹ (τ − h(q, v) + Σ Jᵢᵀ f_ext,i) (nv,), as aba(). f_ext None or (njoints, 6) [force N; "
          "moment N·m] in each body frame (kernels compiled with external_forces=True).")
      .def(
          "constrained_dynamics",
          [](const PyCompiled& c, const py::object& q, const py::object& v, const py::object& tau,
             const py::object& ref, const py::object& kp, const py::object& kd, const py::object& active,
             const py::object& f_ext) {
            if (!c.k->constrained_dynamics && !c.k->constrained_dynamics_fext)
              raise(errors().argument,
                    "constrained_dynamics: these kernels declare no held frame, locked joint or distance "
                    "(compile(..., held_frames=..., locked_joints=..., distances=...))");
            if (!f_ext.is_none() && !c.k->constrained_dynamics_fext)
              raise(errors().argument,
                    "f_ext: these kernels were compiled without external forces (compile(..., external_forces=True))");
            Array kq = null_array(), kv = null_array(), kt = null_array(), kr = null_array(), kp_ = null_array(),
                  kd_ = null_array(), ka = null_array();
            const auto qm = vector_arg(q, "q", c.nq, kq), vm = vector_arg(v, "v", c.nv, kv);
            const auto tm = vector_arg(tau, "tau", c.nv, kt), rm = vector_arg(ref, "ref", c.ref_size, kr);
            const auto pm = vector_arg(kp, "kp", c.declared, kp_), dm = vector_arg(kd, "kd", c.declared, kd_);
            const double* am = active.is_none() ? nullptr : vector_arg(active, "active", c.declared, ka).data();
            py::array_t<double> qdd(c.nv), lambda(c.m);
            bool ok = false;
            if (f_ext.is_none() && c.k->constrained_dynamics) {
              ok = c.k->constrained_dynamics(qm.data(), vm.data(), tm.data(), rm.data(), pm.data(), dm.data(), am,
                                             qdd.mutable_data(), lambda.mutable_data());
            } else {
              Eigen::Matrix<double, 6, Eigen::Dynamic> packed = Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, c.nb);
              if (!f_ext.is_none()) packed = matrix_arg(f_ext, "f_ext", c.nb, 6).transpose();
              ok = c.k->constrained_dynamics_fext(qm.data(), vm.data(), tm.data(), packed.data(), rm.data(), pm.data(),
                                                  dm.data(), am, qdd.mutable_data(), lambda.mutable_data());
            }
            if (!ok)
              raise(errors().solve,
                    "constrained_dynamics: the active rows are dependent at this q (a pivot of J M^-1 J^T below "
                    "1e-10 of its diagonal); articula.constrained_forward_dynamics handles redundant rows");
            return py::make_tuple(qdd, lambda);
          },
          py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("ref"), py::arg("kp"), py::arg("kd"),
          py::arg("active") = py::none(), py::arg("f_ext") = py::none(),
          "(qdd (nv,), lambda (m,)): constrained forward dynamics with the declared constraints that are active "
          "(held frames, then locked joints, then distances; active: 1/0 each, None = all). ref: 12 per held "
          "frame (position, rotation column-major), then each locked joint's nq reference coordinates, then each "
          "distance; kp, kd: Baumgarte gains per declared constraint; lambda: the frames' rows, then the locked "
          "dofs', then the distances' (0 when off). Raises "
          "SolveError when the active rows are dependent (docs/codegen.md).")
      .def(
          "velocity_jump",
          [](const PyCompiled& c, const py::object& q, const py::object& v_minus, const py::object& active) {
            if (!c.k->velocity_jump)
              raise(errors().argument,
                    "velocity_jump: these kernels declare no held frame, locked joint or distance (compile(..., "
                    "held_frames=..., locked_joints=..., distances=...)), or were compiled with "
                    "engine_kernels_only=True (only the kernels a Simulator calls)");
            Array kq = null_array(), kv = null_array(), ka = null_array();
            const auto qm = vector_arg(q, "q", c.nq, kq), vm = vector_arg(v_minus, "v_minus", c.nv, kv);
            const double* am = active.is_none() ? nullptr : vector_arg(active, "active", c.declared, ka).data();
            py::array_t<double> v_plus(c.nv), Lambda(c.m);
            if (!c.k->velocity_jump(qm.data(), vm.data(), am, v_plus.mutable_data(), Lambda.mutable_data()))
              raise(errors().solve, "velocity_jump: the active rows are dependent at this q");
            return py::make_tuple(v_plus, Lambda);
          },
          py::arg("q"), py::arg("v_minus"), py::arg("active") = py::none(),
          "(v_plus (nv,), Lambda (m,)): the plastic jump when the active declared constraints switch on, "
          "velocity_jump's full form. Raises SolveError for dependent rows.")
      .def("__repr__", [](const PyCompiled& c) {
        return "CompiledKernels(key=" + c.k->key + ", from_cache=" + (c.k->from_cache ? "True" : "False") + ")";
      });

  def_compile(
      m, "compile",
      [](const Model& model, const CompileOptions& o) {
        PyCompiled out;
        static_cast<Sizes&>(out) = sizes_for(model, o);
        {
          py::gil_scoped_release release;
          out.k = compile_kernels(model, o);
        }
        return out;
      },
      "Generates the model's kernels, compiles them with the system C++ compiler for this machine and loads "
      "them; the next call (in any process) with the same model, frames, compiler and flags loads them from "
      "the cache ($ARTICULA_CACHE_DIR, $XDG_CACHE_HOME/articula or ~/.cache/articula; or cache_dir). "
      "held_frames: frame names (welded) or (frame, kind) pairs held in the world, or (frame, kind, "
      "other_frame) triples held to another frame (loop closures), kind 'weld', 'point' or an axis list "
      "('rxrz'), for the "
      "constrained kernels (Robot: compilable_held_frames(robot)). locked_joints: joint names locked in the "
      "constrained kernels (Robot: compilable_locked_joints(robot)). distances: (frame_a, frame_b) pairs whose "
      "distance the constrained kernels hold (Robot: compilable_distances(robot)). wheels: (frame, radius, axis, "
      "normal, height) of wheels rolling in them (Robot: compilable_wheels(robot)); any subset of the declared "
      "constraints runs on them. state_frames: frames whose bodies' kinematics a kernel computes "
      "(a robot's contact frames: the Simulator then skips its forward kinematics for the contacts). "
      "contacts: elastic contacts on planes, each a frame name (its origin on the ground z = 0) or (frame, "
      "offset) or (frame, offset, plane_point, plane_normal), for aba_contacts, which a Simulator runs for a "
      "robot with those contacts and no enabled constraint (Robot: compilable_contacts(robot)). "
      "max_statements: cut longer kernels into parts of about this many statements, compiled in parallel (faster "
      "to compile and, at the default 800, as fast or faster to run; 0: whole). external_forces: also the kernels with "
      "external forces, which a Simulator needs for a robot with "
      "elastic contacts. engine_kernels_only: only the kernels a Simulator calls (aba or aba_fext, the "
      "constrained dynamics, body_states; what `articula run --compiled` builds), faster to compile; the others "
      "then raise an error naming them. The GIL is released while compiling. "
      "Raises CompileError when there is no compiler or it fails (the message names it and what it printed).");
  py::class_<PyInFlight>(m, "KernelsInFlight",
                         "A compile started by compile_in_background(), running on its own thread.")
      .def(
          "ready",
          [](const PyInFlight& f) { return f.future.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
          "True once the compile has finished (loaded or failed).")
      .def(
          "result",
          [](const PyInFlight& f) {
            {
              py::gil_scoped_release release;
              f.future.wait();
            }
            PyCompiled out;
            static_cast<Sizes&>(out) = f.sizes;
            try {
              out.k = f.future.get();
            } catch (const std::exception& e) {
              raise(errors().compile, e.what());
            }
            return out;
          },
          "Waits for the compile (GIL released) and returns its CompiledKernels; raises CompileError as compile().");
  def_compile(
      m, "compile_in_background",
      [](const Model& model, const CompileOptions& o) {
        auto copy = std::make_shared<const Model>(model);  // the thread's own model: the caller's may go away
        PyInFlight out;
        out.sizes = sizes_for(model, o);
        out.future = std::async(std::launch::async, [copy, o] { return compile_kernels(*copy, o); }).share();
        return out;
      },
      "compile() on a thread of its own: returns a KernelsInFlight at once. Hand it to "
      "Simulator.use_compiled_when_ready() to run on the runtime algorithms until the kernels are ready, "
      "or call .result() to wait for them. Bad held frames and compiler failures surface from .result() "
      "(or, for a simulator, leave it on the runtime path).");
  m.def(
      "compilable_held_frames", [](const Robot& robot) { return held_list(compilable_held_frames(robot)); },
      py::arg("robot"),
      "The robot's FrameConstraints (in the world) and LoopConstraints (to another frame) as held frames "
      "[(frame, kind) or (frame, kind, other_frame)], kind 'weld', 'point' or the axes ('rxrz'), in their "
      "order (a set with other constraints enabled runs on the runtime solver).");
  m.def(
      "compilable_distances", [](const Robot& robot) { return distances_list(compilable_distances(robot)); },
      py::arg("robot"), "The robot's DistanceConstraints as [(frame_a, frame_b)], in their order.");
  m.def(
      "compilable_wheels", [](const Robot& robot) { return wheels_list(compilable_wheels(robot)); }, py::arg("robot"),
      "The robot's WheelConstraints as [(frame, radius, axis, normal, height)], in their order.");
  m.def(
      "compilable_contacts", [](const Robot& robot) { return contacts_list(compilable_contacts(robot)); },
      py::arg("robot"),
      "The robot's elastic contacts as [(frame, offset, plane_point, plane_normal)], in their order; [] when "
      "one of them is on a height field.");
  m.def(
      "compile_options_for",
      [](const Robot& robot, bool joint_limits) {
        SimulationOptions so;
        so.joint_limits = joint_limits;
        const CompileOptions o = compile_options_for(robot, so);
        py::dict d;
        d["held_frames"] = held_list(o.held_frames);
        d["locked_joints"] = o.locked_joints;
        d["distances"] = distances_list(o.distances);
        d["wheels"] = wheels_list(o.wheels);
        d["contacts"] = contacts_list(o.contacts);
        d["external_forces"] = o.external_forces;
        d["state_frames"] = o.state_frames;
        d["engine_kernels_only"] = o.engine_kernels_only;
        return d;
      },
      py::arg("robot"), py::arg("joint_limits") = false,
      "The keyword arguments of compile() for the kernels a Simulator of this robot calls, as `articula run "
      "--compiled` builds them: compile(robot.model, **compile_options_for(robot, options.joint_limits)). Its "
      "held frames, locks (and limit stops with joint_limits), distances, wheels; its elastic contacts "
      "(compilable_contacts) when it starts with no constraint enabled; the kernels with external forces and "
      "the contacts' body states when it has contacts and constraints; engine_kernels_only=True.");
  m.def("compilable_locked_joints", &compilable_locked_joints, py::arg("robot"), py::arg("joint_limits") = false,
        "The joints to lock in the compiled kernels: those of the robot's JointLocks and brakes and, with "
        "joint_limits (SimulationOptions.joint_limits), the revolute and prismatic joints with a finite limit.");

  auto sim = py::reinterpret_borrow<py::class_<Simulator>>(m.attr("Simulator"));
  sim.def(
      "use_compiled", [](Simulator& s, const PyCompiled& c) { s.use_compiled(c.k); }, py::arg("kernels"),
      "Runs the dynamics on compiled kernels (compile(robot.model, compilable_held_frames(robot), "
      "external_forces=robot has contacts, locked_joints=compilable_locked_joints(robot, "
      "options.joint_limits), distances=compilable_distances(robot), wheels=compilable_wheels(robot), "
      "contacts=compilable_contacts(robot))) where they apply: ABA with no constraint (with the robot's "
      "elastic contacts inside aba_contacts when they are the declared ones), the constrained kernels when every "
      "enabled constraint is a declared held "
      "frame, lock, distance or wheel (with elastic "
      "contacts, their forms with "
      "external forces, if compiled); the runtime algorithms otherwise. Raises ArgumentError for kernels of another "
      "model.");
  sim.def(
      "use_compiled_when_ready", [](Simulator& s, const PyInFlight& f) { s.use_compiled_when_ready(f.future); },
      py::arg("kernels"),
      "Runs on the runtime algorithms until the compile in flight (compile_in_background) is ready, then, "
      "between two steps, on the kernels as use_compiled() does; RunResult.compiled_from holds the time of "
      "the switch (NaN if it did not happen in that run). A failed compile leaves the runtime path. Such runs "
      "are not bitwise reproducible (the switch time depends on the wall clock).");
  sim.def_property_readonly("generated_evaluations", &Simulator::generated_evaluations,
                            "Evaluations done by generated or compiled kernels so far.");
  sim.def_property_readonly("dynamics_evaluations", &Simulator::dynamics_evaluations,
                            "Evaluations of the dynamics by any back end so far (the events' included).");
}

}  // namespace articula::python
