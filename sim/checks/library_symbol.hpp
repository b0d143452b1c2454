#pragma once
// A function of a library loaded with dlopen (plug-ins, the CUDA backend), looked up by name.

#include <dlfcn.h>

namespace dtsim::checks {

/// The symbol `name` of `handle` as a `Function` pointer; null when the library has none.
template <class Function>
Function library_symbol(void* handle, const char* name) {
  // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
  return reinterpret_cast<Function>(dlsym(handle, name));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

}  // namespace dtsim::checks
