/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "ferry-rate-meter.h"

#define MIN_INTERVAL_USEC (G_USEC_PER_SEC / 5)
#define WINDOW_USEC       (5 * G_USEC_PER_SEC)

void
ferry_rate_meter_reset (FerryRateMeter *meter)
{
  memset (meter, 0, sizeof *meter);
}

void
ferry_rate_meter_sample (FerryRateMeter *meter, gint64 now_usec, guint64 bytes)
{
  if (meter->count > 0)
    {
      guint last = (meter->head + FERRY_RATE_METER_SAMPLES - 1) % FERRY_RATE_METER_SAMPLES;
      if (now_usec - meter->times[last] < MIN_INTERVAL_USEC)
        return;
    }
  meter->times[meter->head] = now_usec;
  meter->bytes[meter->head] = bytes;
  meter->head = (meter->head + 1) % FERRY_RATE_METER_SAMPLES;
  meter->count = MIN (meter->count + 1, FERRY_RATE_METER_SAMPLES);
}

/* Bytes per second between the newest sample and the oldest one still
 * inside the window; 0 until two samples exist. */
double
ferry_rate_meter_get_rate (const FerryRateMeter *meter)
{
  guint newest, oldest;

  if (meter->count < 2)
    return 0.0;
  newest = (meter->head + FERRY_RATE_METER_SAMPLES - 1) % FERRY_RATE_METER_SAMPLES;
  oldest = (meter->head + FERRY_RATE_METER_SAMPLES - meter->count) % FERRY_RATE_METER_SAMPLES;
  while (oldest != newest && meter->times[newest] - meter->times[oldest] > WINDOW_USEC)
    oldest = (oldest + 1) % FERRY_RATE_METER_SAMPLES;
  if (oldest == newest || meter->bytes[newest] < meter->bytes[oldest])
    return 0.0;
  return (double) (meter->bytes[newest] - meter->bytes[oldest]) * G_USEC_PER_SEC
         / (double) (meter->times[newest] - meter->times[oldest]);
}
