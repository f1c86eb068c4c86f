/* test_plugin.c — plugin loading: a good plugin loads; a wrong ABI, a missing entry
 * symbol, a NULL required op (of a model and of a fermion evaluator) and a misnamed file are each refused with a message that
 * names the file and the problem.  Uses the test plugins in MCF_PLUGIN_PATH. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfi_plugin_open("tgood", MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK && p, "good plugin: %s", mcf_last_error());
    if (p) {
        CHECK(!strcmp(p->info->name, "tgood"), "name %s", p->info->name);
        CHECK(contains(p->path, "mcf-tgood.so"), "path %s", p->path);
        mcfi_plugin_close(p);
    }

    rc = mcfi_plugin_open("tgood", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "not a fermion-evaluator"),
          "kind mismatch: %s", mcf_last_error());

    rc = mcfi_plugin_open("tbadabi", 0, &p);
    {
        char want[64], have[64];
        snprintf(want, sizeof want, "ABI version %u", MCF_ABI_VERSION + 1);
        snprintf(have, sizeof have, "ABI version %u", MCF_ABI_VERSION);
        CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tbadabi.so") &&
                  contains(mcf_last_error(), want) && contains(mcf_last_error(), have),
              "bad ABI: rc %d, %s", rc, mcf_last_error());
    }

    rc = mcfi_plugin_open("tnoentry", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tnoentry.so") &&
              contains(mcf_last_error(), "mcf_plugin_entry"),
          "missing symbol: rc %d, %s", rc, mcf_last_error());

    rc = mcfi_plugin_open("tnullop", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tnullop.so") &&
              contains(mcf_last_error(), "'measure' is NULL"),
          "NULL op: rc %d, %s", rc, mcf_last_error());

    rc = mcfi_plugin_open("tnullev", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tnullev.so") &&
              contains(mcf_last_error(), "fermion-evaluator op 'dos' is NULL"),
          "NULL evaluator op: rc %d, %s", rc, mcf_last_error());

    rc = mcfi_plugin_open("tmisnamed", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-somethingelse.so"),
          "misnamed: rc %d, %s", rc, mcf_last_error());

    rc = mcfi_plugin_open("tgoood", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "no plugin named 'tgoood'") &&
              contains(mcf_last_error(), "did you mean 'tgood'"),
          "not found: rc %d, %s", rc, mcf_last_error());

    rc = mcfi_plugin_open("../etc/passwd", 0, &p);
    CHECK(rc == MCF_EINVAL, "a path is not a name: rc %d", rc);

    /* the real plugins beside libmcf are found too */
    rc = mcfi_plugin_open("ising", MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK, "ising beside libmcf: %s", mcf_last_error());
    if (!rc)
        mcfi_plugin_close(p);
    return check_exit();
}
