/* kpm_plugin_pair.h — the CPU plugin kpm and the GPU plugin kpm-cuda through the loader, for
 * the GPU tests that compare them (test_kpm_cuda, test_kpm_cuda_traces).  Include after
 * check.h and the core's internal headers (mcfe_plugin_open). */
#ifndef MCF_TEST_KPM_PLUGIN_PAIR_H
#define MCF_TEST_KPM_PLUGIN_PAIR_H

/* *pc = kpm, *pg = kpm-cuda: MCF_OK, or a failed CHECK and the loader's error */
static int open_kpm_pair(mcf_plugin **pc, mcf_plugin **pg)
{
    int rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, pc);
    if (!rc)
        rc = mcfe_plugin_open("kpm-cuda", MCF_PLUGIN_FERMION_EVALUATOR, pg);
    CHECK(rc == MCF_OK, "loading kpm and kpm-cuda: %s", mcf_last_error());
    return rc;
}

#endif
