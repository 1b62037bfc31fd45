/* Reports the layout of mqgate_exit_parms as this C compiler sees it, so the
 * test can compare it with the Rust mirror (exits/src/external.rs RawParms). */
#include <stddef.h>
#include "mqgate_exit.h"

size_t mqgate_parms_layout(int i)
{
    static const size_t v[] = {
        sizeof(mqgate_exit_parms),
        offsetof(mqgate_exit_parms, version),
        offsetof(mqgate_exit_parms, exit_id),
        offsetof(mqgate_exit_parms, exit_point),
        offsetof(mqgate_exit_parms, exit_reason),
        offsetof(mqgate_exit_parms, exit_response),
        offsetof(mqgate_exit_parms, feedback),
        offsetof(mqgate_exit_parms, options),
        offsetof(mqgate_exit_parms, wait_interval),
        offsetof(mqgate_exit_parms, match_options),
        offsetof(mqgate_exit_parms, md_encoding),
        offsetof(mqgate_exit_parms, md_length),
        offsetof(mqgate_exit_parms, data_length),
        offsetof(mqgate_exit_parms, buffer_length),
        offsetof(mqgate_exit_parms, exit_space),
        offsetof(mqgate_exit_parms, exit_user_area),
        offsetof(mqgate_exit_parms, object_name),
        offsetof(mqgate_exit_parms, q_mgr_name),
        offsetof(mqgate_exit_parms, exit_data),
        offsetof(mqgate_exit_parms, buffer),
    };
    return (i >= 0 && i < (int)(sizeof v / sizeof v[0])) ? v[i] : (size_t)-1;
}
