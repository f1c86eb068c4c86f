/* kpm_cuda_ham.cu — the device copy of a Hamiltonian (kcu_ham: the model's slot-major ELL
 * table on the device, and the field of factorized hoppings) and its journal: what changed
 * since the last sync travels as row updates (kcu_row_update), or the whole table when the
 * Hamiltonian's change journal cannot name the rows; and the staging buffers the row
 * updates (and the GFMC batches, kpm_cuda_gfmc.cu) travel through.  The GFMC kernel applies
 * its chains' row updates itself; kcu_ham_sync launches its own small kernel. */
#include "kpm_cuda_internal.cuh"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* n bytes from src to dst on the OpenMP threads, in chunks of 1 MiB (4.8 MB at 32^3) */
static void kcu_copy_host(void *dst, const void *src, size_t n)
{
    const size_t chunk = (size_t)1 << 20, chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (size_t c = 0; c < chunks; c++) {
        const size_t o = c * chunk;
        memcpy((char *)dst + o, (const char *)src + o, n - o < chunk ? n - o : chunk);
    }
}

int kcu_ham_upload_all(kcu_ham *d, const mcf_hamiltonian *h)
{
    const size_t n = (size_t)d->width * d->dim;
    const size_t fb = d->frank > 0 ? d->dim * (size_t)d->frank * sizeof(double2) : 0;
    const size_t bytes = n * sizeof(int32_t) + 2 * n * sizeof(double) + d->dim * sizeof(double) +
                         fb;
    /* the mirror, once, for a copy uploaded whole again (not at its creation: a workspace
     * whose Hamiltonian changes by rows never needs it); a failure: the pageable copies */
    if (d->version != 0 && d->pin_bytes < bytes) {
        cudaFreeHost(d->pin);
        d->pin = NULL;
        d->pin_bytes = 0;
        if (cudaMallocHost(&d->pin, bytes) == cudaSuccess)
            d->pin_bytes = bytes;
        else
            (void)cudaGetLastError();
    }
    const void *src[5] = {h->col, h->hop_re, h->hop_im, h->onsite,
                          d->frank > 0 ? (const void *)h->factors->field : NULL};
    void *dst[5] = {d->col, d->hre, d->him, d->ons, d->field};
    const size_t len[5] = {n * sizeof(int32_t), n * sizeof(double), n * sizeof(double),
                           d->dim * sizeof(double), fb};
    char *p = (char *)d->pin;
    for (int k = 0; k < 5; k++) {
        if (!len[k])
            continue;
        const void *from = src[k];
        if (p) {
            kcu_copy_host(p, src[k], len[k]);
            from = p;
            p += len[k];
        }
        KCU_TRY(cudaMemcpyAsync(dst[k], from, len[k], cudaMemcpyHostToDevice, kcu_stream),
                k < 4 ? "uploading the Hamiltonian" : "uploading the Hamiltonian's field",
                len[k]);
    }
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "uploading the Hamiltonian", 0);
    d->version = h->version;
    d->full_uploads++;
    return MCF_OK;
}

extern "C" void kcu_ham_destroy(kcu_ham *d)
{
    if (!d)
        return;
    cudaStreamSynchronize(kcu_stream); /* nothing on the stream may still read it */
    cudaFree(d->col);
    cudaFree(d->hre);
    cudaFree(d->him);
    cudaFree(d->ons);
    cudaFree(d->field);
    cudaFreeHost(d->pin);
    free(d);
}

/* The factorized form the device copy follows (d->frank = -1: none; the table then): any
 * h->factors of one orbital per site and at most 8 neighbours; the neighbours computed on
 * periodic square and cubic lattices with L >= 3, else read from the table's columns. */
static void kcu_ham_factors(const mcf_hamiltonian *h, kcu_ham *d)
{
    const mcf_hamiltonian_factors *f = h->factors;
    d->frank = -1;
    if (!f || h->orbitals != 1 || f->coordination > 8 || f->coordination > h->width)
        return;
    d->frank = f->rank;
    d->famp = f->amplitude;
    d->fz = f->coordination;
    d->fL = f->L;
    const int periodic = f->boundary == MCF_BOUNDARY_PERIODIC && f->L >= 3;
    d->fdims = periodic && f->kind == MCF_LATTICE_CUBIC    ? 3
               : periodic && f->kind == MCF_LATTICE_SQUARE ? 2
                                                           : 0;
}

extern "C" int kcu_ham_create(const mcf_hamiltonian *h, kcu_ham **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (!h || h->dim < 1 || h->width < 1)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: no Hamiltonian (or an empty one) was given");
    kcu_ham *d = (kcu_ham *)calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    d->dim = h->dim;
    d->width = h->width;
    kcu_ham_factors(h, d);
    const size_t n = (size_t)h->width * h->dim;
    if ((rc = kcu_alloc((void **)&d->col, n * sizeof(int32_t), "the Hamiltonian")) ||
        (rc = kcu_alloc((void **)&d->hre, n * sizeof(double), "the Hamiltonian")) ||
        (rc = kcu_alloc((void **)&d->him, n * sizeof(double), "the Hamiltonian")) ||
        (rc = kcu_alloc((void **)&d->ons, h->dim * sizeof(double), "the Hamiltonian")) ||
        (d->frank > 0 && (rc = kcu_alloc((void **)&d->field,
                                         h->dim * d->frank * sizeof(double2),
                                         "the Hamiltonian's field"))) ||
        (rc = kcu_ham_upload_all(d, h))) {
        kcu_ham_destroy(d);
        return rc;
    }
    d->full_uploads = 0;
    *out = d;
    return MCF_OK;
}

extern "C" int kcu_ham_load(kcu_ham **d, const mcf_hamiltonian *h)
{
    if (*d && h && h->dim == (*d)->dim && h->width == (*d)->width) {
        kcu_ham_factors(h, *d);
        if ((*d)->frank <= 0 || (*d)->field) /* a field needs its array: created anew */
            return kcu_ham_upload_all(*d, h);
    }
    kcu_ham_destroy(*d);
    *d = NULL;
    return kcu_ham_create(h, d);
}

extern "C" size_t kcu_ham_bytes(const kcu_ham *d)
{
    if (d->frank >= 0) /* the on-site term, the field, the columns unless computed */
        return d->dim * (8 + 16 * (size_t)d->frank + (d->fdims ? 0 : 4 * (size_t)d->fz));
    return d->dim * ((size_t)d->width * (4 + 8 + 8) + 8);
}

extern "C" void kcu_ham_stats(const kcu_ham *d, uint64_t *rows_updated, uint64_t *full_uploads)
{
    *rows_updated = d->rows_updated;
    *full_uploads = d->full_uploads;
}

static void kcu_pack_row(const mcf_hamiltonian *h, const kcu_ham *d, size_t r,
                         kcu_row_update *u)
{
    u->row = (int32_t)r;
    u->width = h->width;
    for (int k = 0; k < h->width; k++) {
        const size_t sl = (size_t)k * h->dim + r;
        u->col[k] = h->col[sl];
        u->re[k] = h->hop_re[sl];
        u->im[k] = h->hop_im[sl];
    }
    u->onsite = h->onsite[r];
    u->frank = d->frank > 0 ? d->frank : 0;
    for (int c = 0; c < u->frank; c++)
        u->a[c] = make_double2(h->factors->field[2 * (r * u->frank + c)],
                               h->factors->field[2 * (r * u->frank + c) + 1]);
    u->dfield = d->field;
    u->dcol = d->col;
    u->dre = d->hre;
    u->dim_ = d->him;
    u->dons = d->ons;
    u->dim = (long long)h->dim;
}

__global__ void kcu_apply_updates_kernel(const kcu_row_update *u, int n)
{
    for (int q = blockIdx.x; q < n; q += gridDim.x)
        kcu_apply_row_update(u + q);
}

/* The staging buffers (one per process; the plugin's ops run on one thread at a time,
 * guarded by kcu_lock). */
static pthread_mutex_t kcu_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *kcu_stage_host, *kcu_stage_dev;
static size_t kcu_stage_size;

static int kcu_stage_reserve(size_t bytes)
{
    if (bytes <= kcu_stage_size)
        return MCF_OK;
    size_t n = kcu_stage_size ? kcu_stage_size : 65536;
    while (n < bytes)
        n *= 2;
    /* a copy of the last batch may still read the old pair (an error path leaves it) */
    if (kcu_stage_size)
        KCU_TRY(cudaStreamSynchronize(kcu_stream), "the previous batch", 0);
    cudaFreeHost(kcu_stage_host);
    cudaFree(kcu_stage_dev);
    kcu_stage_host = kcu_stage_dev = NULL;
    kcu_stage_size = 0;
    KCU_TRY(cudaMallocHost((void **)&kcu_stage_host, n), "the pinned staging buffer", n);
    KCU_TRY(cudaMalloc((void **)&kcu_stage_dev, n), "the staging buffer", n);
    kcu_stage_size = n;
    return MCF_OK;
}

int kcu_stage_begin(size_t bytes, kcu_stage *out)
{
    pthread_mutex_lock(&kcu_lock);
    const int rc = kcu_stage_reserve(bytes);
    if (rc) {
        pthread_mutex_unlock(&kcu_lock);
        return rc;
    }
    out->host = kcu_stage_host;
    out->dev = kcu_stage_dev;
    return MCF_OK;
}

void kcu_stage_end(void)
{
    pthread_mutex_unlock(&kcu_lock);
}

long kcu_changed(const kcu_ham *d, const mcf_hamiltonian *h, kcu_row_update *upd)
{
    if (d->version == h->version)
        return 0;
    if (h->width > KCU_MAX_WIDTH)
        return -1;
    size_t rows[KCU_MAX_UPDATE_ROWS];
    const long n = mcf_hamiltonian_changed_rows(h, d->version, rows, KCU_MAX_UPDATE_ROWS);
    if (n < 0)
        return -1;
    for (long q = 0; q < n; q++)
        kcu_pack_row(h, d, rows[q], upd + q);
    return n;
}

extern "C" int kcu_ham_sync(kcu_ham *d, const mcf_hamiltonian *h)
{
    if (!h || h->dim != d->dim || h->width != d->width)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: the Hamiltonian's shape changed (dim %zu, width "
                        "%d; the device copy has %zu, %d)", h ? h->dim : 0, h ? h->width : 0,
                        d->dim, d->width);
    if (d->version == h->version)
        return MCF_OK;
    kcu_stage st;
    int rc = kcu_stage_begin(KCU_MAX_UPDATE_ROWS * sizeof(kcu_row_update), &st);
    if (rc)
        return rc;
    const long n = kcu_changed(d, h, (kcu_row_update *)st.host);
    if (n < 0) {
        rc = kcu_ham_upload_all(d, h);
    } else if (n > 0) {
        cudaError_t e = cudaMemcpyAsync(st.dev, st.host, (size_t)n * sizeof(kcu_row_update),
                                        cudaMemcpyHostToDevice, kcu_stream);
        if (e == cudaSuccess) {
            kcu_apply_updates_kernel<<<(unsigned)n, 32, 0, kcu_stream>>>(
                (const kcu_row_update *)st.dev, (int)n);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(kcu_stream);
        if (e != cudaSuccess)
            rc = kcu_fail(e, "updating the Hamiltonian", 0);
        d->rows_updated += (uint64_t)n;
        d->version = h->version;
    }
    kcu_stage_end();
    return rc;
}
