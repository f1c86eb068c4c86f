# mcf_add_plugin(NAME src...) — builds the plugin mcf-NAME.so into the plugin folder of
# the build tree (lib/mcf) and installs it into <prefix>/lib/mcf.  The same function is
# installed with the SDK (mcfConfig.cmake) for out-of-tree plugins.
function(mcf_add_plugin name)
  set(target mcf-${name})
  add_library(${target} MODULE ${ARGN})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME mcf-${name}
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${MCF_PLUGIN_BUILD_DIR}
    INSTALL_RPATH "$ORIGIN/..")
  target_link_libraries(${target} PRIVATE mcf::mcf)
  if(TARGET OpenMP::OpenMP_C)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${MCF_WARNINGS}>)
  install(TARGETS ${target} LIBRARY DESTINATION ${MCF_PLUGIN_SUBDIR})
endfunction()
