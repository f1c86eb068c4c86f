/* mpi.c — the few collective operations that distribute chains over MPI ranks
 * (docs/architecture.md, "MPI ranks").  Compiled only with -DMCF_MPI=ON; mcf_mpi.h has
 * the single-process fallbacks.  MPI is called from the main thread only (MPI_THREAD_FUNNELED):
 * the OpenMP threads of a rank step its chains between synchronisation points. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "mcf_mpi.h"

#include "mcf/error.h"

#include <limits.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* bytes per message: MPI counts are ints, and checkpoints can pass 2 GiB */
#define CHUNK ((size_t)1 << 30)
#define MESSAGE_CAPACITY 4096

static int active, my_rank, n_ranks = 1;

/* Launchers leave these in the environment; without one a run is a single process, and
 * we do not start MPI at all (no singleton start-up, nothing MPI can change). */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                       "PMI_SIZE", "MV2_COMM_WORLD_SIZE"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
        if (getenv(vars[k]))
            return 1;
    return 0;
}

void mcfe_mpi_init(int *argc, char ***argv)
{
    if (!launched())
        return;
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    active = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    /* one GPU per rank: the ranks of a node take the node's devices round-robin.  The GPU
       plugins read MCF_CUDA_DEVICE (modulo the device count); a value the user set wins,
       and CUDA_VISIBLE_DEVICES is left alone. */
    MPI_Comm node;
    int local = 0, local_size = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, my_rank, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_size(node, &local_size);
        MPI_Comm_free(&node);
    }
    char text[32];
    snprintf(text, sizeof text, "%d", local);
    setenv("MCF_CUDA_DEVICE", text, 0);
    /* OpenMP threads per rank, unless OMP_NUM_THREADS says: the cores the launcher bound the
       rank to, or, when it did not bind it (its mask is the whole node), the node's cores
       shared among the node's ranks.  Without this every unbound rank started one thread
       per core of the node (measured: 4 ranks on 16 cores 7x slower than 1; benchmarks.md);
       [run] threads > 0 still decides the core's thread groups. */
    if (!getenv("OMP_NUM_THREADS")) {
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        cpu_set_t set;
        CPU_ZERO(&set);
        const long mask = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : online;
        long n = mask > 0 && mask < online ? mask : online / (local_size > 0 ? local_size : 1);
        omp_set_num_threads(n > 0 ? (int)n : 1);
    }
}

void mcfe_mpi_finalize(void)
{
    if (active)
        MPI_Finalize();
    active = 0;
}

int mcfi_mpi_active(void) { return active; }
int mcfe_mpi_rank(void) { return my_rank; }
int mcfi_mpi_size(void) { return n_ranks; }

/* For failures that cannot be agreed on (the other ranks are inside a transfer): the job
 * ends here; the last checkpoint, written whole or not at all, stays valid. */
static void abort_job(const char *what, size_t bytes)
{
    fprintf(stderr, "mcf: error: rank %d of %d: out of memory for %zu bytes %s; the job "
            "stops, the last checkpoint stays valid\n", my_rank, n_ranks, bytes, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int mcfe_mpi_agree(int rc)
{
    if (n_ranks == 1)
        return rc;
    /* the lowest failing rank speaks for the job: n_ranks - rank is largest for it */
    int mine = rc ? n_ranks - my_rank : 0, worst = 0, failed = rc ? 1 : 0, n_failed = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!worst)
        return MCF_OK;
    MPI_Allreduce(&failed, &n_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int root = n_ranks - worst;
    struct {
        int code;
        char text[MESSAGE_CAPACITY];
    } msg;
    memset(&msg, 0, sizeof msg);
    if (my_rank == root) {
        msg.code = rc;
        snprintf(msg.text, sizeof msg.text, "%s", mcf_last_error());
    }
    MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, root, MPI_COMM_WORLD);
    msg.text[sizeof msg.text - 1] = '\0';
    if (n_failed == n_ranks)
        return mcf_fail(msg.code, "%s", msg.text);
    return mcf_fail(msg.code, "rank %d of %d: %s", root, n_ranks, msg.text);
}

void mcfi_mpi_max_doubles(double *v, int n)
{
    if (n_ranks > 1)
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

void mcfi_mpi_sum_u64(uint64_t *v, int n)
{
    if (n_ranks > 1)
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void mcfi_mpi_bcast_u64(uint64_t *v, int n)
{
    if (n_ranks > 1)
        MPI_Bcast(v, n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

void mcfi_mpi_gather_bytes(const unsigned char *data, size_t size, unsigned char **all,
                           size_t *all_size)
{
    *all = NULL;
    *all_size = 0;
    uint64_t mine = size, *sizes = NULL;
    if (my_rank == 0) {
        sizes = malloc((size_t)n_ranks * sizeof *sizes);
        if (!sizes)
            abort_job("for the record sizes", (size_t)n_ranks * sizeof *sizes);
    }
    MPI_Gather(&mine, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (my_rank != 0) {
        for (size_t at = 0; at < size; at += CHUNK) {
            size_t n = size - at < CHUNK ? size - at : CHUNK;
            MPI_Send(data + at, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        return;
    }
    size_t total = 0;
    for (int r = 0; r < n_ranks; r++)
        total += (size_t)sizes[r];
    unsigned char *buf = malloc(total + 1);
    if (!buf)
        abort_job("gathering the chains' records", total);
    if (size)
        memcpy(buf, data, size);
    size_t off = size;
    for (int r = 1; r < n_ranks; r++) {
        size_t left = (size_t)sizes[r];
        while (left) {
            size_t n = left < CHUNK ? left : CHUNK;
            MPI_Recv(buf + off, (int)n, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            off += n;
            left -= n;
        }
    }
    free(sizes);
    *all = buf;
    *all_size = total;
}

void mcfi_mpi_bcast_bytes(unsigned char **data, size_t *size)
{
    if (n_ranks == 1)
        return;
    uint64_t n = my_rank == 0 ? *size : 0;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (my_rank != 0) {
        *data = malloc((size_t)n + 1);
        if (!*data)
            abort_job("receiving the checkpoint", (size_t)n);
        *size = (size_t)n;
    }
    for (size_t at = 0; at < (size_t)n; at += CHUNK) {
        size_t len = (size_t)n - at < CHUNK ? (size_t)n - at : CHUNK;
        MPI_Bcast(*data + at, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
}

void mcfi_mpi_allgather_bytes(const unsigned char *data, size_t size, unsigned char **all,
                              size_t *all_size)
{
    /* the gather of the checkpoint records and a broadcast: messages of at most CHUNK
       bytes whatever the total, and no second code path to get wrong */
    mcfi_mpi_gather_bytes(data, size, all, all_size);
    if (n_ranks > 1)
        mcfi_mpi_bcast_bytes(all, all_size);
}

/* ---- k points of `mcf kbe` over ranks (mcf_engine.h) ---- */

int mcfe_mpi_size(void) { return n_ranks; }

void mcfe_mpi_abort(const char *why)
{
    fprintf(stderr, "mcf: error: rank %d of %d: %s\n", my_rank, n_ranks, why);
    fflush(stderr);
    if (active)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* MPI's int counts and displacements for bytes[], or 0 when the total passes them */
static int byte_counts(const uint64_t *bytes, int *counts, int *displs)
{
    uint64_t at = 0;
    for (int r = 0; r < n_ranks; r++) {
        if (bytes[r] > (uint64_t)INT_MAX || at > (uint64_t)INT_MAX)
            return 0;
        counts[r] = (int)bytes[r];
        displs[r] = (int)at;
        at += bytes[r];
    }
    return 1;
}

/* every rank's bytes in turn, in messages of at most CHUNK (totals past 2 GiB), to all
 * (root_only 0) or to rank 0 */
static void chunked(const void *send, const uint64_t *bytes, void *recv, int root_only)
{
    unsigned char *out = recv;
    uint64_t at = 0;
    for (int r = 0; r < n_ranks; r++) {
        if (r == my_rank && (!root_only || my_rank == 0))
            memcpy(out + at, send, (size_t)bytes[r]);
        for (uint64_t c = 0; c < bytes[r]; c += CHUNK) {
            const int n = (int)(bytes[r] - c < CHUNK ? bytes[r] - c : CHUNK);
            if (!root_only)
                MPI_Bcast(out + at + c, n, MPI_BYTE, r, MPI_COMM_WORLD);
            else if (r != 0 && r == my_rank)
                MPI_Send((const unsigned char *)send + c, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
            else if (r != 0 && my_rank == 0)
                MPI_Recv(out + at + c, n, MPI_BYTE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        at += bytes[r];
    }
}

static void gather_bytes(const void *send, const uint64_t *bytes, void *recv, int to_all)
{
    if (n_ranks == 1) {
        memcpy(recv, send, (size_t)bytes[0]);
        return;
    }
    int *counts = malloc(2 * (size_t)n_ranks * sizeof *counts);
    if (!counts)
        mcfe_mpi_abort("out of memory for a gather's counts");
    int rc;
    if (!byte_counts(bytes, counts, counts + n_ranks)) {
        chunked(send, bytes, recv, !to_all);
        rc = MPI_SUCCESS;
    } else if (to_all)
        rc = MPI_Allgatherv(send, counts[my_rank], MPI_BYTE, recv, counts, counts + n_ranks,
                            MPI_BYTE, MPI_COMM_WORLD);
    else
        rc = MPI_Gatherv(send, counts[my_rank], MPI_BYTE, recv, counts, counts + n_ranks,
                         MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    if (rc != MPI_SUCCESS)
        mcfe_mpi_abort("a gather of the k points failed");
}

void mcfe_mpi_allgather(const void *send, const uint64_t *bytes, void *recv)
{
    gather_bytes(send, bytes, recv, 1);
}

void mcfe_mpi_gather(const void *send, const uint64_t *bytes, void *recv)
{
    gather_bytes(send, bytes, recv, 0);
}

void mcfe_mpi_bcast(void *buf, uint64_t bytes)
{
    for (uint64_t c = 0; n_ranks > 1 && c < bytes; c += CHUNK)
        MPI_Bcast((unsigned char *)buf + c, (int)(bytes - c < CHUNK ? bytes - c : CHUNK),
                  MPI_BYTE, 0, MPI_COMM_WORLD);
}

int mcfe_mpi_max_int(int v)
{
    int m = v;
    if (n_ranks > 1)
        MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return m;
}
