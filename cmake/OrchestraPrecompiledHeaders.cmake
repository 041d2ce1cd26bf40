# Precompiled upstream headers (ORCHESTRA_PRECOMPILE_HEADERS).
#
# cmake/OrchestraUpstreamHeaders.h is compiled once and reused by every C++
# target that links libMLIR.so. Clang refuses a precompiled header made with
# other language options, so there is one per kind of target, each made once:
# with the flags LLVM gives its own targets (llvm_update_compile_flags: no
# exceptions) or with exceptions (LLVM_REQUIRES_EH: the ONNX importer), and
# with NDEBUG for the targets whose files compile without assertions (the
# property ORCHESTRA_WITHOUT_ASSERTIONS: OrchestraUpstreamHeadersNDEBUG.h).
# Targets that do not link libMLIR.so (the runtime and its tests) parse what
# they include: the headers' dump methods are emitted in every file that
# includes them, and reference libMLIR.so.

function(orchestra_collect_targets dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    orchestra_collect_targets("${subdir}" sub)
    list(APPEND targets ${sub})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# orchestra_links_mlir(TARGET OUT): whether TARGET links libMLIR.so, directly
# or through the libraries it links (for an object library obj.X of
# add_mlir_library: whether X does).
function(orchestra_links_mlir target out)
  set(pending ${target})
  if(target MATCHES "^obj\\.(.*)$")
    set(pending ${CMAKE_MATCH_1})
  endif()
  set(seen)
  while(pending)
    list(POP_FRONT pending current)
    if(current STREQUAL "MLIR" OR current MATCHES "^MLIR[A-Za-z]")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
    if(NOT TARGET ${current} OR current IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${current})
    get_target_property(type ${current} TYPE)
    set(properties INTERFACE_LINK_LIBRARIES)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      list(APPEND properties LINK_LIBRARIES)
    endif()
    foreach(property IN LISTS properties)
      get_target_property(libraries ${current} ${property})
      if(libraries)
        list(APPEND pending ${libraries})
      endif()
    endforeach()
  endwhile()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

# orchestra_upstream_headers_target(EXCEPTIONS NDEBUG OUT): the target that
# makes the precompiled header for files compiled with (or without) C++
# exceptions and NDEBUG, created on first use.
function(orchestra_upstream_headers_target exceptions ndebug out)
  set(name OrchestraUpstreamHeaders)
  set(header OrchestraUpstreamHeaders.h)
  if(exceptions)
    string(APPEND name "EH")
  endif()
  if(ndebug)
    string(APPEND name "NDEBUG")
    set(header OrchestraUpstreamHeadersNDEBUG.h)
  endif()
  if(NOT TARGET ${name})
    add_library(${name} OBJECT
                "${ORCHESTRA_SOURCE_DIR}/cmake/OrchestraUpstreamHeaders.cpp")
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    if(NOT exceptions)
      llvm_update_compile_flags(${name})
    endif()
    target_precompile_headers(${name} PRIVATE
                              "${ORCHESTRA_SOURCE_DIR}/cmake/${header}")
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# orchestra_precompile_upstream_headers(DIR...): every target defined under
# the DIRs that compiles C++ and links libMLIR.so reuses a precompiled header.
function(orchestra_precompile_upstream_headers)
  set(count 0)
  foreach(dir IN LISTS ARGN)
    orchestra_collect_targets("${dir}" targets)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(NOT type MATCHES "^(OBJECT_LIBRARY|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
        continue()
      endif()
      get_target_property(sources ${target} SOURCES)
      list(FILTER sources INCLUDE REGEX "\\.cpp$")
      orchestra_links_mlir(${target} links_mlir)
      if(NOT sources OR NOT links_mlir)
        continue()
      endif()
      get_target_property(options ${target} COMPILE_OPTIONS)
      set(exceptions TRUE)
      if("${options}" MATCHES "-fno-exceptions")
        set(exceptions FALSE)
      endif()
      get_target_property(ndebug ${target} ORCHESTRA_WITHOUT_ASSERTIONS)
      orchestra_upstream_headers_target("${exceptions}" "${ndebug}" pch)
      target_precompile_headers(${target} REUSE_FROM ${pch})
      math(EXPR count "${count} + 1")
    endforeach()
  endforeach()
  message(STATUS "Precompiled upstream headers: reused by ${count} targets")
endfunction()
