# Where the `pjrt` driver finds the PJRT C API header, included by
# runtime/CMakeLists.txt before it adds the driver folders. The header is
# never copied into the repository: it comes with a PJRT plugin, by default
# the XLA CPU plugin's Python wheel (xla-cpu-pjrt) installed into the virtual
# environment .venv-xla of the source tree. Without it the runtime builds
# without the `pjrt` driver.
#
# Sets ORCHESTRA_PJRT_C_API_INCLUDE_DIR (the folder of pjrt_c_api.h) and
# ORCHESTRA_TEST_PJRT_PLUGIN (the plugin next to it that the unit tests run
# real programs on; empty when there is none).

if(NOT ORCHESTRA_PJRT_C_API_INCLUDE_DIR)
  file(GLOB _orchestra_pjrt_candidates LIST_DIRECTORIES true
       "${ORCHESTRA_SOURCE_DIR}/.venv-xla/lib/python3*/site-packages/xla_plugins/xla_cpu_pjrt/include")
  set(_orchestra_pjrt_found "")
  foreach(candidate ${_orchestra_pjrt_candidates})
    if(EXISTS "${candidate}/pjrt_c_api.h")
      set(_orchestra_pjrt_found "${candidate}")
      break()
    endif()
  endforeach()
  set(ORCHESTRA_PJRT_C_API_INCLUDE_DIR "${_orchestra_pjrt_found}" CACHE PATH
      "Folder of the PJRT C API header pjrt_c_api.h (the pjrt runtime driver is built only when it is found)")
endif()

set(_orchestra_pjrt_plugin_default "")
if(ORCHESTRA_PJRT_C_API_INCLUDE_DIR AND
   EXISTS "${ORCHESTRA_PJRT_C_API_INCLUDE_DIR}/../xla_cpu_pjrt.so")
  get_filename_component(_orchestra_pjrt_plugin_default
                         "${ORCHESTRA_PJRT_C_API_INCLUDE_DIR}/../xla_cpu_pjrt.so"
                         ABSOLUTE)
endif()
# Not in a ThreadSanitizer build: XLA's plugin is not instrumented and
# synchronizes its threads with primitives TSan cannot see, so every buffer it
# hands over reads as a race (the simulated plugins cover the driver there).
if(ORCHESTRA_ENABLE_TSAN)
  set(_orchestra_pjrt_plugin_default "")
endif()
set(ORCHESTRA_TEST_PJRT_PLUGIN "${_orchestra_pjrt_plugin_default}" CACHE FILEPATH
    "A PJRT plugin the runtime unit tests run real programs on (empty: those tests are skipped)")

if("pjrt" IN_LIST ORCHESTRA_RUNTIME_DRIVERS AND
   NOT EXISTS "${ORCHESTRA_PJRT_C_API_INCLUDE_DIR}/pjrt_c_api.h")
  message(STATUS "Runtime driver 'pjrt' left out: no pjrt_c_api.h found "
                 "(set ORCHESTRA_PJRT_C_API_INCLUDE_DIR, or install the XLA CPU "
                 "plugin into ${ORCHESTRA_SOURCE_DIR}/.venv-xla)")
  list(REMOVE_ITEM ORCHESTRA_RUNTIME_DRIVERS pjrt)
endif()
