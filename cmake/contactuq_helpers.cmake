# Warnings we hold every target to.
function(contactuq_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
endfunction()

# One line registers a module's tests: contactuq_add_test_module(units) builds every
# tests/units/*_test.cpp into one executable, test_units; CTest sees each TEST_CASE.
function(contactuq_add_test_module module)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${module}/*_test.cpp)
  if(NOT sources)
    return()
  endif()
  set(target test_${module})
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE contactuq::contactuq contactuq_test_main)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${target} PRIVATE
    CONTACTUQ_SOURCE_DIR="${PROJECT_SOURCE_DIR}" CONTACTUQ_CLI="$<TARGET_FILE:contactuq_cli>")
  contactuq_warnings(${target})
  catch_discover_tests(${target} TEST_PREFIX "${module}: " PROPERTIES TIMEOUT 600)
endfunction()
