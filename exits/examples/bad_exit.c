/*
 * bad_exit.c - misbehaving mqgate C exits, to show what isolation can and
 * cannot do (docs/exits.md "Isolation").
 *
 * LoopExit:        never returns from a data call. With isolation "thread"
 *                  mqgate stops waiting after time_budget_ms and applies the
 *                  failure policy; the thread itself keeps running.
 * CrashExit:       writes through a NULL pointer on a data call. This kills
 *                  the whole gateway process (SIGSEGV); nothing in-process
 *                  can catch it.
 * BadResponseExit: scribbles on the data, then answers an ExitResponse that
 *                  does not exist; mqgate treats it as MQXCC_FAILED and keeps
 *                  the data as it was.
 *
 * Build:  cc -shared -fPIC -O2 -I exits/include -o libbad_exit.so bad_exit.c
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "mqgate_exit.h"

static int is_data_call(const mqgate_exit_parms *p)
{
    return p->exit_reason == MQXR_MSG || p->exit_reason == MQXR_XMIT;
}

void LoopExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (!is_data_call(p))
        return;
    for (;;)
        usleep(10000); /* sleeps rather than spins, to spare the CPU */
}

void CrashExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (!is_data_call(p))
        return;
    volatile uint8_t *nowhere = NULL;
    *nowhere = 1;
}

void BadResponseExit(mqgate_exit_parms *p)
{
    if (is_data_call(p) && p->buffer != NULL && p->data_length > 0)
        memset(p->buffer, 0xFF, p->data_length);
    p->exit_response = is_data_call(p) ? 42 : MQXCC_OK;
}
