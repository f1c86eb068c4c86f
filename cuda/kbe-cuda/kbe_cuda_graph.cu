/* kbe_cuda_graph.cu — a step of kbe-cuda as one CUDA graph (issue 45, part 5: the seed's
 * "one launch per slice" lesson).  A step is ~30 launches (the propagator, the new row and
 * diagonal, the local density, per pass the self-energy's row — its FFT chunks — and the
 * collision tiles); at small Nk and n each is a few microseconds of work, so the device waits
 * between them for the host.  Here the step's launches are captured from the plugins' stream
 * into a graph (kbcu_dev_step, or kbcu_dev_step_bdf for orders 3 .. 5, unchanged: nothing in
 * them waits for the host, so they capture),
 * the graph updates the last step's executable graph in place (cudaGraphExecUpdate: the same
 * nodes with new arguments; a new instantiation when the shape changed, e.g. one more FFT
 * chunk every KBCU_CHUNK rows), and the executable graph is launched once.  The numbers are
 * the launches' own: the same kernels with the same arguments in the same order. */
#include "kbe_cuda_internal.cuh"

static int graph_fail(cudaError_t e, const char *what)
{
    return mcu_fail((int)e, "kbe-cuda", what, 0, NULL);
}

extern "C" int kbcu_dev_step_graph(kbcu_dev *d, size_t n, double E1, double U1, int passes,
                                   int bdf)
{
    cudaStream_t st = mcu_stream();
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess)
        return graph_fail(e, "capturing a step (begin)");
    const int rc = bdf ? kbcu_dev_step_bdf(d, n, E1, U1, passes)
                       : kbcu_dev_step(d, n, E1, U1, passes);
    e = cudaStreamEndCapture(st, &g); /* ended even when the step failed */
    if (rc || e != cudaSuccess) {
        if (g)
            cudaGraphDestroy(g);
        return rc ? rc : graph_fail(e, "capturing a step (end)");
    }
    if (d->have_exec) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(d->exec, g, &info) != cudaSuccess) {
            (void)cudaGetLastError(); /* a changed shape: instantiate anew below */
            cudaGraphExecDestroy(d->exec);
            d->have_exec = 0;
        }
    }
    if (!d->have_exec) {
        e = cudaGraphInstantiate(&d->exec, g, 0);
        if (e != cudaSuccess) {
            cudaGraphDestroy(g);
            return graph_fail(e, "instantiating a step's graph");
        }
        d->have_exec = 1;
        d->instantiations++;
    }
    cudaGraphDestroy(g);
    e = cudaGraphLaunch(d->exec, st);
    return e == cudaSuccess ? MCF_OK : graph_fail(e, "launching a step's graph");
}

extern "C" size_t kbcu_dev_graph_instantiations(const kbcu_dev *d) { return d->instantiations; }
