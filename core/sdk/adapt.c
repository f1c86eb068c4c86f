/* adapt.c — the step adaptation of model plugins (mcf/model.h, mcf_adapt_step). */
#include "mcf/model.h"

double mcf_adapt_step(double step, double acceptance, double target, double min, double max)
{
    double f = acceptance / target;
    if (f < 0.5)
        f = 0.5;
    if (f > 2.0)
        f = 2.0;
    step *= f;
    if (step < min)
        step = min;
    if (step > max)
        step = max;
    return step;
}
