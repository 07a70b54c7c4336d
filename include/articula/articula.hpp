#pragma once
/// Umbrella header: the whole public API of articula.
#include "articula/dynamics/aba.hpp"
#include "articula/dynamics/crba.hpp"
#include "articula/dynamics/energy.hpp"
#include "articula/dynamics/jacobian.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "articula/dynamics/rnea.hpp"
#include "articula/io/urdf.hpp"
#include "articula/model/configuration.hpp"
#include "articula/model/data.hpp"
#include "articula/model/model.hpp"
#include "articula/model/model_builder.hpp"
