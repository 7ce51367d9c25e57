/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the flusher makes of a window it measured (data/ferry-flusher):
 * a device is slow only when it wrote slowly and held someone up; what
 * one of its cache flushes costs it. */
#include "config.h"

#include "ferry-block-stat.h"
#include "ferry-flusher.h"

#define MB (1024.0 * 1024.0)

static void
test_window_verdict (void)
{
  static const struct
  {
    double rate;
    gboolean held_up;
    FerryWindowVerdict verdict;
  } rows[] = {
    { 150 * MB, TRUE, FERRY_WINDOW_FAST },
    { 150 * MB, FALSE, FERRY_WINDOW_FAST },
    { 64 * MB, TRUE, FERRY_WINDOW_FAST },
    /* a USB 2 stick, writers waiting for it */
    { 20 * MB, TRUE, FERRY_WINDOW_SLOW },
    { 63.9 * MB, TRUE, FERRY_WINDOW_SLOW },
    /* small files given one at a time to a fast device: slow to read,
     * but nobody waited */
    { 44 * MB, FALSE, FERRY_WINDOW_UNTOLD },
    { 0, FALSE, FERRY_WINDOW_UNTOLD },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_test_message ("%.1f MB/s, %s", rows[i].rate / MB, rows[i].held_up ? "held up" : "kept up");
      g_assert_cmpint (ferry_flusher_judge_window (rows[i].rate, rows[i].held_up), ==, rows[i].verdict);
    }
}

/* A flush's cost is read from the device's counters: the mean of those
 * completed between two readings, none where too few completed to say
 * (one may have waited behind writes) or the kernel counts none. */
static void
test_flush_cost (void)
{
  static const struct
  {
    guint64 flushes_before, ms_before, flushes_after, ms_after;
    double ms_each;
  } rows[] = {
    /* the slower disk's emulator charging 20 ms a flush */
    { 10, 100, 48, 860, 20.0 },
    /* the same without the charge */
    { 10, 3, 48, 9, 6.0 / 38 },
    { 10, 100, 11, 150, 0 },
    /* a kernel before 5.5 */
    { 0, 0, 0, 0, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      FerryBlockStat before = { .flushes = rows[i].flushes_before, .flush_ms = rows[i].ms_before };
      FerryBlockStat after = { .flushes = rows[i].flushes_after, .flush_ms = rows[i].ms_after };

      g_assert_cmpfloat_with_epsilon (ferry_block_stat_flush_ms_each (&before, &after),
                                      rows[i].ms_each, 1e-9);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/flusher/window-verdict", test_window_verdict);
  g_test_add_func ("/flusher/flush-cost", test_flush_cost);
  return g_test_run ();
}
