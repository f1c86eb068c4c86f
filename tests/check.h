/* check.h — the few assertion macros the C tests use.  A failed CHECK prints file:line,
 * the condition and a printf-style explanation, and the test goes on; check_exit()
 * prints "N passed, N failed" and returns the process status. */
#ifndef MCF_TEST_CHECK_H
#define MCF_TEST_CHECK_H

#include <stdio.h>

static int check_passed_count;
static int check_failed_count;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (cond) {                                                              \
            check_passed_count++;                                                \
        } else {                                                                 \
            check_failed_count++;                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n    ", __FILE__, __LINE__, \
                    #cond);                                                      \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

static inline int check_exit(void)
{
    printf("%d passed, %d failed\n", check_passed_count, check_failed_count);
    return check_failed_count ? 1 : 0;
}

#endif
