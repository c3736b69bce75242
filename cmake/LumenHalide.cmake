# Everything Halide-version-specific in Lumen's build lives here (written for Halide 14).
#
#   lumen_add_generator(<target> SOURCES <src>...)
#
# Makes the generator executable Lumen::<target>. A native build compiles it and exports it to
# <build>/cmake/LumenGeneratorsConfig.cmake; a cross build (e.g. for Windows) imports it from a
# host build instead: -DLumenGenerators_ROOT=<host build dir> (Halide 14's add_halide_generator).
#
#   lumen_add_halide_pipelines(<target> GENERATOR <exe> PIPELINES <name>...
#                              CPU_TARGETS <t>... GPU_TARGETS <t>...)
#
# For each pipeline <p> (generator "lumen_<p>") it emits, as object files:
#   - lumen__<p>_cpu: ONE multi-target library over CPU_TARGETS (best first), with Halide's wrapper
#     choosing a variant at run time through halide_can_use_target_features;
#   - lumen__<p>_<backend>: one library per GPU target (backend = cuda, opencl, ... from the target).
# All are built with user_context and no_runtime, and ONE Halide runtime (lumen__runtime) is made
# for the union of all targets. <target> becomes an INTERFACE library for compiling against the
# generated headers (include directory, Halide runtime headers, system libraries); its property
# LUMEN_OBJECTS lists the objects, runtime included, for a library to add to its sources, and
# <target>_generate makes them. Halide 15+ has add_halide_runtime(); Halide 14 does not,
# so the runtime comes from the generator's -r option.

if (CMAKE_CROSSCOMPILING)  # only the runtime headers and the CMake helpers: no libHalide
    find_package(HalideHelpers 14 REQUIRED)
else ()
    find_package(Halide 14 REQUIRED)
endif ()
find_package(Threads REQUIRED)

function(lumen_add_generator TARGET)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
    if (CMAKE_CROSSCOMPILING)
        find_package(LumenGenerators QUIET)
        if (NOT TARGET Lumen::${TARGET})
            message(FATAL_ERROR "Lumen: no host generator Lumen::${TARGET}. A cross build needs "
                    "-DLumenGenerators_ROOT=<a host build of Lumen> (cmake --preset release && "
                    "cmake --build --preset release --target ${TARGET}).")
        endif ()
    endif ()
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/cmake")
    add_halide_generator(${TARGET} SOURCES ${ARG_SOURCES}
                         PACKAGE_NAME LumenGenerators PACKAGE_NAMESPACE Lumen::
                         EXPORT_FILE "${PROJECT_BINARY_DIR}/cmake/LumenGeneratorsConfig.cmake")
    if (TARGET ${TARGET})  # built here: a unity build compiles Halide.h once
        set_target_properties(${TARGET} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
    endif ()
endfunction()

# Halide's file suffixes and OS name for the platform being built for.
if (WIN32)
    set(LUMEN_HALIDE_OS windows)
    set(_lumen_obj .obj)
elseif (APPLE)
    set(LUMEN_HALIDE_OS osx)
    set(_lumen_obj .o)
else ()
    set(LUMEN_HALIDE_OS linux)
    set(_lumen_obj .o)
endif ()

# The backend a GPU target string is for.
function(_lumen_gpu_backend target out)
    foreach (b IN ITEMS cuda opencl metal d3d12compute vulkan)
        if (target MATCHES "(^|-)${b}(-|$)")
            set(${out} ${b} PARENT_SCOPE)
            return()
        endif ()
    endforeach ()
    message(FATAL_ERROR "Lumen: no GPU backend in Halide target '${target}'")
endfunction()

function(lumen_add_halide_pipelines TARGET)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "GENERATOR" "PIPELINES;CPU_TARGETS;GPU_TARGETS")
    set(features user_context-no_runtime)
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/halide")
    file(MAKE_DIRECTORY "${dir}")
    set(gen ${ARG_GENERATOR})

    list(TRANSFORM ARG_CPU_TARGETS APPEND "-${features}" OUTPUT_VARIABLE cpu_targets)
    list(JOIN cpu_targets "," cpu_target_arg)
    set(objects "")
    set(backends "")
    foreach (p IN LISTS ARG_PIPELINES)
        # The CPU multi-target library: one object per target plus the wrapper.
        set(fn lumen__${p}_cpu)
        list(LENGTH cpu_targets n)
        if (n EQUAL 1)
            set(outs "${dir}/${fn}${_lumen_obj}")
        else ()
            list(TRANSFORM cpu_targets PREPEND "${dir}/${fn}-" OUTPUT_VARIABLE outs)
            list(TRANSFORM outs APPEND "${_lumen_obj}")
            list(APPEND outs "${dir}/${fn}_wrapper${_lumen_obj}")
        endif ()
        _lumen_generate("${gen}" "${dir}" lumen_${p} ${fn} "${cpu_target_arg}" "${outs}")
        list(APPEND objects ${outs})

        foreach (t IN LISTS ARG_GPU_TARGETS)
            _lumen_gpu_backend("${t}" b)
            list(APPEND backends ${b})
            set(fn lumen__${p}_${b})
            _lumen_generate("${gen}" "${dir}" lumen_${p} ${fn} "${t}-${features}"
                            "${dir}/${fn}${_lumen_obj}")
            list(APPEND objects "${dir}/${fn}${_lumen_obj}")
        endforeach ()
    endforeach ()

    # ONE runtime for every target above: Halide takes the union of the GPU features and the
    # intersection of the CPU ones.
    list(JOIN ARG_CPU_TARGETS "," rt_targets)
    foreach (t IN LISTS ARG_GPU_TARGETS)
        string(APPEND rt_targets ",${t}")
    endforeach ()
    set(rt "${dir}/lumen__runtime${_lumen_obj}")
    add_custom_command(OUTPUT "${rt}"
                       COMMAND ${gen} -r lumen__runtime -e object -o "${dir}" "target=${rt_targets}"
                       DEPENDS ${gen}
                       COMMENT "Halide runtime (one for all pipelines): ${rt_targets}"
                       VERBATIM)
    list(APPEND objects "${rt}")

    add_custom_target(${TARGET}_generate DEPENDS ${objects})
    add_library(${TARGET} INTERFACE)
    add_dependencies(${TARGET} ${TARGET}_generate)
    target_include_directories(${TARGET} INTERFACE "${dir}")
    target_link_libraries(${TARGET} INTERFACE Halide::Runtime Threads::Threads ${CMAKE_DL_LIBS}
                                              "$<$<NOT:$<PLATFORM_ID:Windows>>:m>")
    list(REMOVE_DUPLICATES backends)
    set_target_properties(${TARGET} PROPERTIES
                          LUMEN_OBJECTS "${objects}"
                          LUMEN_GPU_BACKENDS "${backends}"
                          LUMEN_CPU_TARGETS "${ARG_CPU_TARGETS}"
                          LUMEN_GPU_TARGETS "${ARG_GPU_TARGETS}")
endfunction()

function(_lumen_generate gen dir generator fn targets outs)
    add_custom_command(OUTPUT ${outs} "${dir}/${fn}.h"
                       COMMAND ${gen} -g ${generator} -f ${fn} -e object,c_header -o "${dir}"
                               "target=${targets}"
                       DEPENDS ${gen}
                       COMMENT "Halide ${fn}"
                       VERBATIM)
endfunction()
