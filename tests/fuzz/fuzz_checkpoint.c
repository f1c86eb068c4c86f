/* fuzz_checkpoint.c — libFuzzer target: a checkpoint as `mcf resume` reads it.
 *
 * An input is one selector byte and a checkpoint file.  The selector's two low bits pick one
 * of three fixed configurations (tests/fuzz/checkpoint/: a run stopped mid-way with a curve
 * observable, parallel tempering, a fermion model with exact diagonalization); the
 * checkpoint goes into that configuration's output folder and the run resumes from it with
 * mcfe_run_execute, as `mcf resume` would.  Unless the selector's bit 2 is set, the
 * checkpoint's last 8 bytes are replaced by the FNV-1a checksum of the rest: the checksum
 * is integrity, not trust, and a crafted file has a valid one — every count, index and size
 * behind it must still be checked before use.  The resume must either refuse the file with a
 * message or run to the end (a few dozen sweeps) — never crash, hang, overflow or read out of
 * bounds (ASan + UBSan).
 *
 * The seeds are real checkpoints of the same configurations, written by `mcf run` when
 * tests/fuzz/run_fuzz.sh starts (the configuration's hash is in the checkpoint, so stored
 * seeds would go stale whenever a configuration's text as used changes). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fileio.h"
#include "fuzz_util.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_CONFIGS 3
static const char *const config_names[N_CONFIGS] = {"stopped", "tempering", "fermions"};

static mcf_setup *setups[N_CONFIGS];
static char outdirs[N_CONFIGS][300];

/* The three setups, once: a configuration that does not load is the harness's fault. */
static void init(void)
{
    setenv("MCF_PLUGIN_PATH", MCF_FUZZ_PLUGIN_PATH, 0);
    fuzz_keep_plugins_loaded(getenv("MCF_PLUGIN_PATH"));
    const char *base = fuzz_scratch_path("mcf-fuzz-checkpoint");
    mkdir(base, 0700);
    for (int k = 0; k < N_CONFIGS; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.ini", MCF_FUZZ_CHECKPOINT_CONFIGS, config_names[k]);
        mcf_config *c = NULL;
        if (mcfe_config_read(path, &c) != MCF_OK || mcfe_setup_create(c, &setups[k]) != MCF_OK) {
            fprintf(stderr, "fuzz_checkpoint: %s\n", mcf_last_error());
            abort();
        }
        mcfe_config_free(c);
        snprintf(outdirs[k], sizeof outdirs[k], "%s/%s", base, config_names[k]);
        mkdir(outdirs[k], 0700);
    }
}

static void remove_in(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!setups[0])
        init();
    if (size < 1)
        return 0;
    const int which = (data[0] & 3) % N_CONFIGS, keep_sum = data[0] & 4;
    const char *dir = outdirs[which];
    data++;
    size--;
    unsigned char *file = malloc(size ? size : 1);
    if (!file)
        return 0;
    memcpy(file, data, size);
    if (!keep_sum && size >= 8) {
        const uint64_t sum = mcfi_fnv1a64(file, size - 8, MCF_FNV_OFFSET);
        memcpy(file + size - 8, &sum, 8);
    }
    /* what the last input's resume left behind goes: each input starts from the same folder */
    remove_in(dir, "results.tsv");
    remove_in(dir, "results.h5");
    remove_in(dir, "log");
    char path[512];
    snprintf(path, sizeof path, "%s/checkpoint", dir);
    const int written = fuzz_write_file(path, file, size);
    free(file);
    if (!written)
        return 0;
    mcf_run_options opt = {.output = dir, .resume = 1, .progress = 0};
    (void)mcfe_run_execute(setups[which], &opt);
    return 0;
}
