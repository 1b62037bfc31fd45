/*
 * queue_exits.c - C exits used by tests/exits_gateway.rs (built there with `cc`).
 *
 * RefusePutExit (before_put): answers MQXCC_SUPPRESS_FUNCTION with the MQRC
 * given as exit data (e.g. "2035"), so the put fails with that reason.
 *
 * MatchAnyExit (before_get): clears the MQMO match options, so a get with a
 * msg_id or correl_id selector takes the first message.
 *
 * TermMarkExit (any point): appends "TERM <object name>\n" to the file named
 * by the exit data at MQXR_TERM, so a test can see the chain was ended.
 *
 * CountExit (any point): logs every call, so a test can count them.
 */
#include <stdio.h>
#include <stdlib.h>
#include "mqgate_exit.h"

void RefusePutExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (p->exit_reason == MQXR_INIT || p->exit_reason == MQXR_TERM)
        return;
    p->exit_response = MQXCC_SUPPRESS_FUNCTION;
    p->feedback = (int32_t)strtol(p->exit_data, NULL, 10);
}

void TermMarkExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (p->exit_reason != MQXR_TERM)
        return;
    FILE *f = fopen(p->exit_data, "a");
    if (f == NULL) {
        p->exit_response = MQXCC_FAILED;
        return;
    }
    fprintf(f, "TERM %s\n", p->object_name);
    fclose(f);
}

void MatchAnyExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (p->exit_reason == MQXR_INIT || p->exit_reason == MQXR_TERM)
        return;
    p->match_options = 0;
}

/*
 * CountExit (any point): appends "<exit_point> <exit_reason> <object name>\n"
 * to the file named by the exit data on every call, so a test can count how
 * often each point ran for each object.
 */
void CountExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    FILE *f = fopen(p->exit_data, "a");
    if (f == NULL) {
        p->exit_response = MQXCC_FAILED;
        return;
    }
    fprintf(f, "%d %d %s\n", (int)p->exit_point, (int)p->exit_reason, p->object_name);
    fclose(f);
}
