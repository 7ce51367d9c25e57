/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "ferry-rate-meter.h"

#define MIN_INTERVAL_USEC (G_USEC_PER_SEC / 5)
#define WINDOW_USEC       (5 * G_USEC_PER_SEC)
/* The longest a window stretches to hold two steps of a count that
 * grows in steps. */
#define LONGEST_WINDOW_USEC (20 * G_USEC_PER_SEC)
/* The least a count stands still before it is stalled. */
#define STALL_USEC (3 * G_USEC_PER_SEC)

void
ferry_rate_meter_reset (FerryRateMeter *meter)
{
  memset (meter, 0, sizeof *meter);
}

/* The @age-th sample back from the newest (0 is the newest). */
static guint
sample_at (const FerryRateMeter *meter, guint age)
{
  return (meter->head + 2 * FERRY_RATE_METER_SAMPLES - 1 - age) % FERRY_RATE_METER_SAMPLES;
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
  if (meter->count > 0 && bytes > meter->bytes[sample_at (meter, 0)])
    meter->grown = TRUE;
  meter->times[meter->head] = now_usec;
  meter->bytes[meter->head] = bytes;
  meter->head = (meter->head + 1) % FERRY_RATE_METER_SAMPLES;
  meter->count = MIN (meter->count + 1, FERRY_RATE_METER_SAMPLES);
}

/* Whether the count grew between the @age-th sample back and the one
 * before it. */
static gboolean
grew_at (const FerryRateMeter *meter, guint age)
{
  return meter->bytes[sample_at (meter, age)] > meter->bytes[sample_at (meter, age + 1)];
}

/* Samples that say when a count growing in steps grew: @newest_step
 * and @oldest_step, ages of the first samples showing the newest and
 * the oldest step in the window, and how many steps lie in it. */
typedef struct
{
  guint oldest;      /* the oldest sample in the window */
  guint newest_step; /* the newest sample showing a step */
  guint oldest_step; /* the oldest sample showing a step */
  guint steps;
} Window;

/* Five seconds back, or as many more as hold two steps, up to twenty. */
static Window
find_window (const FerryRateMeter *meter)
{
  const gint64 now = meter->times[sample_at (meter, 0)];
  Window w = { 0, 0, 0, 0 };

  for (guint age = 1; age < meter->count; age++)
    {
      gint64 span = now - meter->times[sample_at (meter, age)];

      if (span > LONGEST_WINDOW_USEC || (span > WINDOW_USEC && w.steps >= 2))
        break;
      w.oldest = age;
      if (grew_at (meter, age - 1))
        {
          if (w.steps == 0)
            w.newest_step = age - 1;
          w.oldest_step = age - 1;
          w.steps++;
        }
    }
  return w;
}

/**
 * ferry_rate_meter_get_rate:
 * Bytes per second over the last five seconds, from the oldest sample
 * still inside them to the newest; 0 until two samples exist. A count
 * that grows in steps (what a slow drive confirmed, a sync every few
 * seconds) is measured from step to step, over as many seconds as hold
 * two steps (up to twenty): over a fixed five seconds, a 4 MB/s stick
 * confirming 32 MB every eight seconds showed 1.3 MB/s, then 6.9. A
 * step later than usual slows the rate as it waits.
 */
double
ferry_rate_meter_get_rate (const FerryRateMeter *meter)
{
  Window w;
  gint64 newest_time, step_time, first_time, late;
  guint64 bytes;

  if (meter->count < 2)
    return 0.0;
  w = find_window (meter);
  newest_time = meter->times[sample_at (meter, 0)];
  first_time = meter->times[sample_at (meter, w.oldest)];
  bytes = meter->bytes[sample_at (meter, 0)] - MIN (meter->bytes[sample_at (meter, 0)],
                                                     meter->bytes[sample_at (meter, w.oldest)]);
  /* Growing at (nearly) every sample, or once at most: no steps. */
  if (w.steps >= 2 && w.steps + 1 < w.oldest)
    {
      step_time = meter->times[sample_at (meter, w.newest_step)];
      first_time = meter->times[sample_at (meter, w.oldest_step)];
      bytes = meter->bytes[sample_at (meter, w.newest_step)]
              - meter->bytes[sample_at (meter, w.oldest_step)];
      /* Waiting longer than a step takes on average counts too. */
      late = (newest_time - step_time) - (step_time - first_time) / (w.steps - 1);
      newest_time = step_time + MAX (late, 0);
    }
  if (newest_time <= first_time)
    return 0.0;
  return (double) bytes * G_USEC_PER_SEC / (double) (newest_time - first_time);
}

/**
 * ferry_rate_meter_is_stalled:
 * Whether the count, having grown, has stood still for twice as long as
 * its steps take in the window (3 s at least): a drive that stopped
 * taking data. ferry_rate_meter_get_rate() only slows then, as it does
 * for a step a little late; a stick that took nothing for 5 s still
 * showed 11.4 MB/s and "4 seconds left". A count growing at every
 * sample is stalled after 3 s, one confirmed every 8 s after 16.
 */
gboolean
ferry_rate_meter_is_stalled (const FerryRateMeter *meter)
{
  const gint64 now = meter->times[sample_at (meter, 0)];
  gint64 since, pace = 0;
  guint age = 0;
  Window w;

  if (meter->count < 2 || !meter->grown)
    return FALSE;
  while (age + 1 < meter->count && !grew_at (meter, age))
    age++;
  /* No step among the samples kept: standing still for as long as they go back. */
  since = now - meter->times[sample_at (meter, age)];
  w = find_window (meter);
  if (w.steps >= 2)
    pace = (meter->times[sample_at (meter, w.newest_step)]
            - meter->times[sample_at (meter, w.oldest_step)])
           / (w.steps - 1);
  return since > MAX (STALL_USEC, 2 * pace);
}
