/* test_params_finite.c — MCF_PARAM_FINITE (mcf/params.h, mcf 0.5): a REAL key that must be
 * finite, checked by the core's value parser (the one the configuration goes through):
 *
 *   (a) inf, -inf, +inf, INF and infinity refused with MCF_EINVAL saying "not finite" and the
 *       allowed values ("finite real number ..."), with and without a range that would take
 *       them; the largest finite doubles and 0 accepted with their values;
 *   (b) the same words accepted (as +-inf) by a REAL key without the flag whose range takes
 *       them, so the flag is what refuses them;
 *   (c) mcfe_spec_describe says "finite real number", with the range after it;
 *   (d) a declaration whose default is inf under the flag is refused when the plugin is
 *       checked (mcfi_specs_check), naming the parameter;
 *   (e) MCF_PARAM_RANGE(lo, hi) gives the flags and limits of [lo, hi] (mcf 0.8). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "mcf/mcf.h"

static const mcf_param_spec finite_any = {"J", MCF_PARAM_REAL, "1", MCF_PARAM_FINITE, 0, 0,
                                          NULL, .doc = "a coupling"};
static const mcf_param_spec finite_pos = {"rs", MCF_PARAM_REAL, "1",
                                          MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE |
                                              MCF_PARAM_FINITE,
                                          0, 0, NULL, .doc = "a density"};
static const mcf_param_spec open_pos = {"hund", MCF_PARAM_REAL, "inf",
                                        MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
                                        .doc = "inf allowed"};
static const mcf_param_spec plain = {"h", MCF_PARAM_REAL, "0", 0, 0, 0, NULL, .doc = "no range"};

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static void expect_refused(const mcf_param_spec *s, const char *text)
{
    mcf_value v;
    mcf_clear_error();
    int rc = mcfi_value_parse(s, text, &v);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "not finite") &&
              contains(mcf_last_error(), "finite real number") &&
              contains(mcf_last_error(), text),
          "%s = %s under MCF_PARAM_FINITE: rc %d, %s", s->name, text, rc, mcf_last_error());
    if (rc == MCF_OK)
        mcfe_value_release(&v);
}

static void expect_value(const mcf_param_spec *s, const char *text, double want)
{
    mcf_value v;
    int rc = mcfi_value_parse(s, text, &v);
    CHECK(rc == MCF_OK && v.r == want, "%s = %s: rc %d, value %.17g, expected %.17g (%s)",
          s->name, text, rc, rc == MCF_OK ? v.r : NAN, want, mcf_last_error());
    if (rc == MCF_OK)
        mcfe_value_release(&v);
}

int main(void)
{
    static const char *const infinities[] = {"inf", "-inf", "+inf", "INF", "infinity"};
    /* (a) */
    for (size_t k = 0; k < 5; k++) {
        expect_refused(&finite_any, infinities[k]);
        if (infinities[k][0] != '-')
            expect_refused(&finite_pos, infinities[k]);
    }
    expect_value(&finite_any, "1.7976931348623157e308", 1.7976931348623157e308);
    expect_value(&finite_any, "-1.7976931348623157e308", -1.7976931348623157e308);
    expect_value(&finite_any, "0", 0.0);
    expect_value(&finite_pos, "1e300", 1e300);
    /* (b) */
    expect_value(&open_pos, "inf", INFINITY);
    expect_value(&plain, "-inf", -INFINITY);
    expect_value(&plain, "infinity", INFINITY);
    /* (c) */
    char buf[256];
    mcfe_spec_describe(&finite_pos, buf, sizeof buf);
    CHECK(!strcmp(buf, "finite real number > 0"), "describe: '%s'", buf);
    mcfe_spec_describe(&finite_any, buf, sizeof buf);
    CHECK(!strcmp(buf, "finite real number"), "describe: '%s'", buf);
    mcfe_spec_describe(&plain, buf, sizeof buf);
    CHECK(!strcmp(buf, "real number"), "describe without the flag: '%s'", buf);
    /* (d) */
    const mcf_param_spec bad_default[] = {
        {"J", MCF_PARAM_REAL, "inf", MCF_PARAM_FINITE, 0, 0, NULL, .doc = "inf by default"},
        {0}};
    mcf_clear_error();
    int rc = mcfi_specs_check(bad_default, "tplugin");
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "tplugin") &&
              contains(mcf_last_error(), "default of parameter 'J'"),
          "a finite key defaulting to inf: rc %d, %s", rc, mcf_last_error());
    /* (e) MCF_PARAM_RANGE(lo, hi) is the flags and limits of [lo, hi], other flags or-ed in
     * front of it: 3 is taken, 4096.5 refused with the range */
    const mcf_param_spec ranged = {"L", MCF_PARAM_REAL, "8",
                                   MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(2, 4096), NULL, .doc = "size"};
    CHECK(ranged.flags == (MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX) &&
              ranged.min == 2 && ranged.max == 4096 && ranged.choices == NULL,
          "MCF_PARAM_RANGE: flags %u, [%g, %g]", ranged.flags, ranged.min, ranged.max);
    expect_value(&ranged, "3", 3.0);
    mcf_value v;
    mcf_clear_error();
    rc = mcfi_value_parse(&ranged, "4096.5", &v);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "4096"), "L = 4096.5: rc %d, %s", rc,
          mcf_last_error());
    if (rc == MCF_OK)
        mcfe_value_release(&v);
    return check_exit();
}
