/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-enums.h"

/* Stable names for machine-readable output (the CLI's JSON lines). */
const char *
ferry_phase_to_string (FerryPhase phase)
{
  switch (phase)
    {
      case FERRY_PHASE_QUEUED:
        return "queued";
      case FERRY_PHASE_PLANNING:
        return "planning";
      case FERRY_PHASE_COPYING:
        return "copying";
      case FERRY_PHASE_SYNCING:
        return "syncing";
      case FERRY_PHASE_DONE:
        return "done";
      case FERRY_PHASE_FAILED:
        return "failed";
      case FERRY_PHASE_CANCELLED:
        return "cancelled";
      default:
        g_return_val_if_reached ("unknown");
    }
}

/* Whether data travels the slow devices' way (a device measured or told
 * slow), whatever the device's class says. */
gboolean
ferry_copy_method_is_slow (FerryCopyMethod method)
{
  return method == FERRY_COPY_METHOD_WINDOW || method == FERRY_COPY_METHOD_CHUNK_SYNC;
}
