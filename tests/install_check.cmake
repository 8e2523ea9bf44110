# The installed tree serves an outside C++ project: installs the build into a fresh
# prefix, configures and builds examples/cpp on its own against that prefix
# (find_package(SimPhant), SimPhant::simphant), runs the installed `simphant --version` and
# the example's rl_rollout on the slider-crank. Fails on the first step that fails.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX_COMPILER=...
#         [-DCXX_LAUNCHER=...] -DVERSION=... -P install_check.cmake
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_check.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/examples-build)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The environment must not help: the programs find libsimphant through their RPATH.
unset(ENV{LD_LIBRARY_PATH})
file(GLOB simphant_program ${prefix}/bin/simphant)
if(NOT simphant_program)
  message(FATAL_ERROR "the install put no bin/simphant into ${prefix}")
endif()
run_step("installed simphant --version" ${simphant_program} --version)
string(STRIP "${step_output}" installed_version)
if(NOT installed_version STREQUAL VERSION)
  message(FATAL_ERROR "installed simphant --version says '${installed_version}', the project is ${VERSION}")
endif()

set(configure_args -S ${SOURCE_DIR}/examples/cpp -B ${example_build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
                   -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(CXX_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
run_step("configuring examples/cpp against the installed tree" ${CMAKE_COMMAND} ${configure_args})
run_step("building examples/cpp" ${CMAKE_COMMAND} --build ${example_build})
run_step("rl_rollout" ${example_build}/rl_rollout ${SOURCE_DIR}/examples/slider_crank.json)
message(STATUS "rl_rollout built against ${prefix}: ${step_output}")
