// timing_wheel: header-only timer queues. SPDX-License-Identifier: MIT
#pragma once

// The umbrella header: the contract and all three timer queues.
#include <timing_wheel/flat_wheel.hpp>
#include <timing_wheel/hierarchical_wheel.hpp>
#include <timing_wheel/instrumentation.hpp>
#include <timing_wheel/min_heap.hpp>
#include <timing_wheel/timer_queue.hpp>
#include <timing_wheel/version.hpp>
