/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the flusher makes of a window it measured (data/ferry-flusher):
 * a device is slow only when it wrote slowly and held someone up. */
#include "config.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/flusher/window-verdict", test_window_verdict);
  return g_test_run ();
}
