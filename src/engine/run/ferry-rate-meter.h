/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* At one sample every 0.2 s at most, 25 seconds of them. */
#define FERRY_RATE_METER_SAMPLES 128

/* A transfer rate over the last few seconds, from samples of a growing
 * byte count: steadier than an instant rate, quicker than an average;
 * for a count that grows in steps, from step to step. */
typedef struct
{
  gint64 times[FERRY_RATE_METER_SAMPLES];
  guint64 bytes[FERRY_RATE_METER_SAMPLES];
  guint head;
  guint count;
  gboolean grown; /* the count grew since the reset */
} FerryRateMeter;

void ferry_rate_meter_reset (FerryRateMeter *meter);
void ferry_rate_meter_sample (FerryRateMeter *meter, gint64 now_usec, guint64 bytes);
double ferry_rate_meter_get_rate (const FerryRateMeter *meter);
gboolean ferry_rate_meter_is_stalled (const FerryRateMeter *meter);

G_END_DECLS
