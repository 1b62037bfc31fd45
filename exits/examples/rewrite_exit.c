/*
 * rewrite_exit.c - example mqgate C exits (see exits/include/mqgate_exit.h
 * and docs/exits.md).
 *
 * RewriteExit (receive/send/message): sets RemoteQMgrName of the MQXQH at
 * offset 0 of the transmission message to the exit data, blank padded to
 * 48, if the header is an ASCII "XQH ". Counts its calls in the user area.
 *
 * PriorityExit (before_put): sets the MQMD Priority to 9.
 *
 * AppendExit (receive/send/message/before_put/after_get): appends the exit
 * data to the message; needs buffer_headroom in the configuration, else it
 * answers MQXCC_FAILED.
 *
 * NoWaitExit (before_get): turns every get into a get without wait
 * (WaitInterval 0, MQGMO_WAIT 0x1 cleared).
 *
 * TrailerExit (send): reserves ExitSpace for the exit data at MQXR_INIT,
 * as MQ send exits do, and appends the exit data to every transmission
 * buffer in that room; no buffer_headroom needed.
 *
 * Build:  cc -shared -fPIC -O2 -I exits/include -o librewrite_exit.so rewrite_exit.c
 * Config: exit: "/path/librewrite_exit.so(RewriteExit)"   data: "DEVICE01"
 */
#include <stdint.h>
#include <string.h>
#include "mqgate_exit.h"

#define XQH_REMOTE_Q_MGR_NAME_OFFSET 56 /* MQXQH RemoteQMgrName, 48 bytes */
#define MD_PRIORITY_OFFSET 40           /* MQMD Priority, MQLONG */

static void count_call(mqgate_exit_parms *p)
{
    uint32_t calls;
    memcpy(&calls, p->exit_user_area, sizeof calls);
    calls++;
    memcpy(p->exit_user_area, &calls, sizeof calls);
}

void RewriteExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    count_call(p);
    if (p->version < MQGATE_EXIT_PARMS_VERSION) {
        p->exit_response = MQXCC_FAILED;
        return;
    }
    if (p->exit_reason == MQXR_INIT || p->exit_reason == MQXR_TERM)
        return;
    if (p->buffer == NULL || p->data_length < MQGATE_MQXQH_LENGTH)
        return;
    if (memcmp(p->buffer, "XQH ", 4) != 0)
        return;

    size_t n = strlen(p->exit_data);
    if (n == 0 || n > 48) {
        /* Refuse rather than truncate: dead-letter with 2087 UNKNOWN_REMOTE_Q_MGR. */
        p->exit_response = MQXCC_SUPPRESS_FUNCTION;
        p->feedback = 2087;
        return;
    }
    uint8_t *field = p->buffer + XQH_REMOTE_Q_MGR_NAME_OFFSET;
    memset(field, ' ', 48);
    memcpy(field, p->exit_data, n);
}

void PriorityExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (p->exit_point != MQGATE_POINT_BEFORE_PUT || p->exit_reason != MQXR_MSG)
        return;
    if (p->buffer == NULL || p->md_length < MQGATE_MQMD_V2_LENGTH)
        return;
    /* The MQMD is in this machine's byte order (md_encoding says which). */
    int32_t priority = 9;
    memcpy(p->buffer + MD_PRIORITY_OFFSET, &priority, sizeof priority);
}

void NoWaitExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (p->exit_point != MQGATE_POINT_BEFORE_GET || p->exit_reason != MQXR_MSG)
        return;
    p->wait_interval = 0;
    p->options &= ~0x1; /* MQGMO_WAIT */
}

void AppendExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    if (p->exit_reason != MQXR_MSG && p->exit_reason != MQXR_XMIT)
        return;
    if (p->buffer == NULL)
        return;
    size_t n = strlen(p->exit_data);
    if (p->buffer_length - p->data_length < n) {
        p->exit_response = MQXCC_FAILED; /* no room: refuse, never truncate */
        return;
    }
    memcpy(p->buffer + p->data_length, p->exit_data, n);
    p->data_length += (uint32_t)n;
}

void TrailerExit(mqgate_exit_parms *p)
{
    p->exit_response = MQXCC_OK;
    size_t n = strlen(p->exit_data);
    if (p->exit_reason == MQXR_INIT) {
        p->exit_space = (int32_t)n; /* MQCXP ExitSpace: only honoured at INIT */
        return;
    }
    if (p->exit_reason != MQXR_XMIT || p->buffer == NULL)
        return;
    if (p->buffer_length - p->data_length < n) {
        p->exit_response = MQXCC_FAILED; /* no room: refuse, never truncate */
        return;
    }
    memcpy(p->buffer + p->data_length, p->exit_data, n);
    p->data_length += (uint32_t)n;
}
