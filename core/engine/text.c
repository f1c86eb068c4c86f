/* text.c — the growable text buffer (mcf_text) in which config.ini as used, results.tsv
 * and the run summary are composed, and the whitespace trim of the configuration readers.
 * Not a file writer: fileio.c puts the finished text on disk. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 2, 0)))
#endif
static void text_vprintf(mcf_text *t, const char *fmt, va_list ap)
{
    va_list aq;
    if (t->failed)
        return;
    va_copy(aq, ap);
    int need = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (need < 0) {
        t->failed = 1;
        return;
    }
    if (t->len + (size_t)need + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + (size_t)need + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    t->len += (size_t)need;
}

void mcfe_text_printf(mcf_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_vprintf(t, fmt, ap);
    va_end(ap);
}

char *mcfi_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}
