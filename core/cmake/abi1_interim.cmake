# Interim (mcf 1.0, the flip; docs/sdk-1.md): slater-jastrow, and the test that calls its
# table, are an ABI-1 plugin until its port to ABI 2 lands (blip and blip-cuda are ported).  ABI 1's
# declarations are private since the flip, so their targets build against them: the C
# sources with core/sdk/abi1/abi1_interim.h forced in front (mcf/abi1.h, and
# MCF_ABI_VERSION as the ABI 1 their descriptors state), the CUDA sources with ABI 1's
# orbital table (mcf_walker_moves, mcf_orbital_ops).  Delete this file, and its include in
# the top CMakeLists.txt, with that port.
foreach(t mcf-slater-jastrow test_sj_jastrow)
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${MCF_ABI1_INCLUDE})
    target_compile_options(${t} PRIVATE
      "$<$<COMPILE_LANGUAGE:C>:SHELL:-include ${MCF_ABI1_INCLUDE}/abi1_interim.h>"
      "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:--pre-include ${MCF_ABI1_INCLUDE}/mcf/abi1_orbital.h>")
  endif()
endforeach()
