/* test_rng_device_cuda.cu — mcf/rng_device.h on the device against libmcf's streams on the
 * host, bit for bit (label gpu; "skipped: no device" without one):
 *   (a) 4096 streams (seed 20261124, streams 0..4095, each with 0-3 words drawn first so
 *       that the device starts inside a block), 1000 draws each of u32, u64, uniform and
 *       uniform_pos in a per-stream pattern: every value and every final state the host's;
 *   (b) 4096 x 100 Metropolis decisions (log ratios in [-8, 1]) by mcf_metropolis_accept on
 *       the device against the same on the host: the same decisions and final states.  (The
 *       device's exp() may round otherwise than the host's; a decision differs only if a
 *       uniform falls within an ulp of e^log_ratio, probability ~1e-16 each: none expected
 *       in 4e5.) */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "mcf/rng_device.h"

#define NS 4096
#define ND 1000
#define NM 100

static int failures = 0;
#define EXPECT(cond, ...)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            printf("FAILED: " __VA_ARGS__);                                                 \
            printf("\n");                                                                   \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

static __device__ uint64_t draw(mcf_rng *r, int kind)
{
    double d;
    uint64_t bits;
    switch (kind) {
    case 0: return mcf_rng_hd_u32(r);
    case 1: return mcf_rng_hd_u64(r);
    case 2: d = mcf_rng_hd_uniform(r); break;
    default: d = mcf_rng_hd_uniform_pos(r); break;
    }
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

static __global__ void draws_kernel(mcf_rng *states, uint64_t *out)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= NS)
        return;
    mcf_rng r = states[s];
    for (int i = 0; i < ND; i++)
        out[(size_t)s * ND + i] = draw(&r, (s + i * 7) % 4);
    states[s] = r;
}

static __global__ void decide_kernel(mcf_rng *states, const double *lr, int *acc)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= NS)
        return;
    mcf_rng r = states[s];
    for (int i = 0; i < NM; i++)
        acc[s * NM + i] = mcf_metropolis_accept(&r, lr[s * NM + i]);
    states[s] = r;
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("skipped: no device\n");
        return 77;
    }
    static mcf_rng host[NS], dev_back[NS];
    static uint64_t out[(size_t)NS * ND];
    for (int s = 0; s < NS; s++) {
        mcf_rng_init(&host[s], 20261124, (uint64_t)s);
        for (int w = 0; w < s % 4; w++)
            mcf_rng_u32(&host[s]);
    }
    mcf_rng *d_states;
    uint64_t *d_out;
    cudaMalloc(&d_states, sizeof host);
    cudaMalloc(&d_out, sizeof out);
    cudaMemcpy(d_states, host, sizeof host, cudaMemcpyHostToDevice);
    draws_kernel<<<NS / 128, 128>>>(d_states, d_out);
    cudaError_t e = cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    cudaMemcpy(dev_back, d_states, sizeof host, cudaMemcpyDeviceToHost);
    EXPECT(e == cudaSuccess, "(a) the kernel: %s", cudaGetErrorString(e));
    /* the host's draws with libmcf's own functions */
    long bad = 0;
    for (int s = 0; s < NS; s++) {
        for (int i = 0; i < ND; i++) {
            const int kind = (s + i * 7) % 4;
            uint64_t want;
            double d;
            if (kind == 0)
                want = mcf_rng_u32(&host[s]);
            else if (kind == 1)
                want = mcf_rng_u64(&host[s]);
            else {
                d = kind == 2 ? mcf_rng_uniform(&host[s]) : mcf_rng_uniform_pos(&host[s]);
                memcpy(&want, &d, sizeof want);
            }
            bad += want != out[(size_t)s * ND + i];
        }
        bad += memcmp(&host[s], &dev_back[s], sizeof host[s]) != 0;
    }
    EXPECT(bad == 0, "(a) %ld device draws or final states differ from the host's", bad);
    printf("(a) %d streams x %d draws on the device = libmcf on the host: %s\n", NS, ND,
           bad ? "NO" : "yes");

    /* (b) */
    static double lr[NS * NM];
    static int acc[NS * NM];
    mcf_rng src;
    mcf_rng_init(&src, 7, 0);
    for (int q = 0; q < NS * NM; q++)
        lr[q] = -8.0 + 9.0 * mcf_rng_uniform(&src);
    double *d_lr;
    int *d_acc;
    cudaMalloc(&d_lr, sizeof lr);
    cudaMalloc(&d_acc, sizeof acc);
    cudaMemcpy(d_lr, lr, sizeof lr, cudaMemcpyHostToDevice);
    cudaMemcpy(d_states, host, sizeof host, cudaMemcpyHostToDevice);
    decide_kernel<<<NS / 128, 128>>>(d_states, d_lr, d_acc);
    e = cudaMemcpy(acc, d_acc, sizeof acc, cudaMemcpyDeviceToHost);
    cudaMemcpy(dev_back, d_states, sizeof host, cudaMemcpyDeviceToHost);
    EXPECT(e == cudaSuccess, "(b) the kernel: %s", cudaGetErrorString(e));
    long differ = 0, accepted = 0;
    for (int s = 0; s < NS; s++) {
        for (int i = 0; i < NM; i++) {
            const int want = mcf_metropolis_accept(&host[s], lr[s * NM + i]);
            differ += want != acc[s * NM + i];
            accepted += want;
        }
        differ += memcmp(&host[s], &dev_back[s], sizeof host[s]) != 0;
    }
    EXPECT(differ == 0, "(b) %ld decisions or final states differ between device and host",
           differ);
    printf("(b) %d decisions (%ld accepted): device = host: %s\n", NS * NM, accepted,
           differ ? "NO" : "yes");
    cudaFree(d_states);
    cudaFree(d_out);
    cudaFree(d_lr);
    cudaFree(d_acc);
    printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
