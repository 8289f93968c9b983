#pragma once

#include <chrono>

// Mixed traffic with faults through a real proxy for `duration`, printing memory, descriptors and
// the proxy's flights every 10 s (bench/soak.cpp).
int soak(std::chrono::milliseconds duration);
