/*
 * mqgate_exit.h - the C ABI of mqgate external exits.
 *
 * An external exit is a function in a shared library, named in the mqgate
 * configuration as  library(function)  the way IBM MQ channel definitions
 * name exits (MSGEXIT, RCVEXIT, SENDEXIT):
 *
 *     channels:
 *       GW.TO.DEVICES:
 *         receive:
 *           - exit: "/opt/mqgate/exits/librewrite.so(RewriteExit)"
 *             data: "DEV"
 *
 * mqgate calls the function with one pointer to an mqgate_exit_parms:
 *   - once with exit_reason MQXR_INIT when the chain starts (buffer NULL),
 *   - once per message with MQXR_XMIT (send/receive) or MQXR_MSG (others),
 *   - once with exit_reason MQXR_TERM when the chain ends (buffer NULL).
 * The exit sets exit_response (preset to MQXCC_OK) and may change the bytes
 * at buffer, data_length (never above buffer_length), options,
 * wait_interval, match_options and exit_user_area. buffer_length is
 * data_length plus the exit's configured buffer_headroom (default 0), so
 * an exit may lengthen the data only when the configuration allows it.
 * A send exit may instead set exit_space at MQXR_INIT, as MQ's MQCXP
 * ExitSpace: every later buffer then has at least that much room after
 * the data (buffer_length = data_length + the larger of the two), and the
 * sender channel keeps that much of the agreed message length free for it.
 * A negative exit_space fails MQXR_INIT.
 *
 * Threads: by default each exit instance runs on its own worker thread and
 * every call of one instance comes from that thread, one at a time. Buffers
 * are only valid during the call; keep no pointer to them.
 *
 * Integers in this struct are in the machine's own byte order. The data at
 * buffer keeps the byte order and CCSID it has on the wire (see docs/exits.md).
 *
 * What mqgate cannot protect against: this code runs inside the gateway
 * process. A crash (SIGSEGV, abort, stack overflow), a write through a wild
 * pointer, exit() or a call that corrupts the heap takes the whole gateway
 * down or corrupts it. mqgate only stops waiting for a call that overruns its
 * time budget; the thread keeps running. See docs/exits.md "Isolation".
 */
#ifndef MQGATE_EXIT_H
#define MQGATE_EXIT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of mqgate_exit_parms; mqgate sets it, an exit may check it. */
#define MQGATE_EXIT_PARMS_VERSION 1

/* mqgate_exit_parms.exit_point */
#define MQGATE_POINT_RECEIVE    1 /* raw transmission message after the channel read it */
#define MQGATE_POINT_SEND       2 /* raw transmission message before the channel writes it */
#define MQGATE_POINT_MESSAGE    3 /* transmission message after it was parsed */
#define MQGATE_POINT_BEFORE_PUT 4 /* MQMD + data before a put; options = MQPMO Options */
#define MQGATE_POINT_BEFORE_GET 5 /* before a get; options/wait_interval/match_options = MQGMO */
#define MQGATE_POINT_AFTER_GET  6 /* MQMD + data after a get */

/* exit_id: MQXT_* (IBM MQ values) */
#define MQXT_API          2
#define MQXT_CHANNEL_MSG  12
#define MQXT_CHANNEL_SEND 13
#define MQXT_CHANNEL_RCV  14

/* exit_reason: MQXR_* (IBM MQ values) */
#define MQXR_INIT 11
#define MQXR_TERM 12
#define MQXR_MSG  13
#define MQXR_XMIT 14

/* exit_response: MQXCC_* (IBM MQ values). Anything else counts as a failure. */
#define MQXCC_OK                 0  /* carry on with the data as left */
#define MQXCC_SUPPRESS_FUNCTION (-1) /* dead-letter the message with reason = feedback */
#define MQXCC_CLOSE_CHANNEL     (-6) /* close the channel (queue points: fail with 2374) */
#define MQXCC_FAILED            (-8) /* the exit failed: mqgate applies its failure policy */

/* Lengths in bytes */
#define MQGATE_EXIT_USER_AREA_LENGTH 16
#define MQGATE_MQXQH_LENGTH          428 /* MQXQH at offset 0 of send/receive/message buffers */
#define MQGATE_MQMD_V2_LENGTH        364 /* MQMD at offset 0 of before_put/after_get buffers */

typedef struct mqgate_exit_parms {
    int32_t  version;        /* in:  MQGATE_EXIT_PARMS_VERSION */
    int32_t  exit_id;        /* in:  MQXT_* */
    int32_t  exit_point;     /* in:  MQGATE_POINT_* */
    int32_t  exit_reason;    /* in:  MQXR_INIT, MQXR_MSG, MQXR_XMIT, MQXR_TERM */
    int32_t  exit_response;  /* out: MQXCC_*, preset to MQXCC_OK */
    int32_t  feedback;       /* out: MQRC reason with MQXCC_SUPPRESS_FUNCTION (0 = 2374) */
    int32_t  options;        /* in/out: MQPMO Options (before_put), MQGMO Options (before_get) */
    int32_t  wait_interval;  /* in/out: MQGMO WaitInterval, milliseconds (before_get) */
    int32_t  match_options;  /* in/out: MQGMO MatchOptions (before_get) */
    int32_t  md_encoding;    /* in:  MQENC_* of the MQMD at buffer (before_put/after_get), else 0 */
    uint32_t md_length;      /* in:  bytes of MQMD at the start of buffer: 364 or 0 */
    uint32_t data_length;    /* in/out: bytes in use at buffer, MQMD included */
    uint32_t buffer_length;  /* in:  bytes usable at buffer: data_length + buffer_headroom (or exit_space) */
    int32_t  exit_space;     /* send exits, MQCXP ExitSpace: out at MQXR_INIT (in: 0) = bytes to
                                reserve in every transmission buffer; in on later calls: that value */
    uint8_t  exit_user_area[MQGATE_EXIT_USER_AREA_LENGTH]; /* in/out: kept between calls */
    const char *object_name; /* in:  channel or queue name, NUL-terminated */
    const char *q_mgr_name;  /* in:  the gateway's queue manager name, NUL-terminated */
    const char *exit_data;   /* in:  exit user data from the config, NUL-terminated */
    uint8_t  *buffer;        /* in:  the data; NULL at INIT, TERM and before_get */
} mqgate_exit_parms;

/* The type of every exit function. */
typedef void mqgate_exit_fn(mqgate_exit_parms *parms);

#ifdef __cplusplus
}
#endif

#endif /* MQGATE_EXIT_H */
