/* kbe_drive.h — what `mcf kbe` reads of [kbe], [pulse] and [output], and the drive it owns
 * (kbe_drive.c; the program's, internal):
 *   E(t) = amplitude exp(-(t - center)^2 / (2 width^2)) sin(frequency (t - center)),
 *          an odd pulse about its center: no net area, so no static field is left;
 *   U(t) = U sin^2(pi t / (2 ramp)) for t < ramp, then U (ramp = 0: U from t = 0). */
#ifndef MCF_KBE_DRIVE_H
#define MCF_KBE_DRIVE_H

#include "mcf_engine.h"

#include <stddef.h>
#include <stdint.h>

/* the sections of a kbe run, in the order of kbe.c's job: run, kbe, pulse, output, model,
   evaluator */
#define KBE_SECTIONS 6

extern const mcf_param_spec mcfi_kbe_specs[], mcfi_pulse_specs[], mcfi_output_specs[];

typedef struct kbe_drive {
    double amplitude, frequency, center, width; /* the pulse */
    double U, ramp;                             /* the interaction's ramp */
    uint64_t every;                             /* kbe.tsv: a row every that many steps */
    int checkpoint;                             /* [output] checkpoint: rows kept */
    int memory_auto;                            /* memory_limit_gb = 0: the machine's */
    uint64_t checkpoint_every;                  /* steps between the header's updates */
    size_t n_nk_times;
    uint64_t *nk_steps;                         /* nk.tsv's steps, ascending (owned) */
    double *nk_times;                           /* as given (in nk_steps's block) */
} kbe_drive;

/* The propagation and the drive from params[1..3] ([kbe], [pulse], [output], checked by
 * mcfe_section_check) and [output] nk_times's text (a key the sections keep as text) for a
 * crystal of `dims` periodic directions; c for the keys' places in messages.  MCF_EINVAL
 * naming file:line and key (an nk_times value outside the run). */
int mcfi_kbe_propagation(const mcf_config *c, const mcf_params *params, unsigned dims,
                         const char *nk_times_text, mcf_propagation *prop, kbe_drive *drive);
double mcfi_kbe_field(const kbe_drive *d, double t);
double mcfi_kbe_u(const kbe_drive *d, double t);

#endif
