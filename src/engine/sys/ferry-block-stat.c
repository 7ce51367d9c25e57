/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-block-stat.h"

/* Fields of the stat file, counted from 0 (Documentation/block/stat.rst). */
#define FIELD_SECTORS_WRITTEN 6
#define FIELD_IO_TICKS        9
#define FIELD_FLUSHES         15
#define FIELD_FLUSH_TICKS     16
#define N_FIELDS              17

/**
 * ferry_block_stat_read:
 * @block_name: a name in /sys/class/block ("sdb1", "loop3", "dm-0")
 *
 * Reads the device's counters; FALSE when it has none to read. Kernels
 * before 5.5 have no flush fields: their flush time reads as 0.
 */
gboolean
ferry_block_stat_read (const char *block_name, FerryBlockStat *stat)
{
  g_autofree char *path = g_build_filename ("/sys/class/block", block_name, "stat", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) fields = NULL;
  guint64 values[N_FIELDS] = { 0 };
  guint n = 0;

  if (block_name == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  fields = g_strsplit_set (g_strstrip (text), " \t\n", -1);
  for (guint i = 0; fields[i] != NULL && n < N_FIELDS; i++)
    if (fields[i][0] != '\0')
      values[n++] = g_ascii_strtoull (fields[i], NULL, 10);
  if (n <= FIELD_IO_TICKS)
    return FALSE;
  stat->sectors_written = values[FIELD_SECTORS_WRITTEN];
  stat->busy_ms = values[FIELD_IO_TICKS];
  stat->flushes = values[FIELD_FLUSHES];
  stat->flush_ms = values[FIELD_FLUSH_TICKS];
  return TRUE;
}

guint64
ferry_block_stat_bytes_written (const FerryBlockStat *before, const FerryBlockStat *after)
{
  if (after->sectors_written < before->sectors_written)
    return 0;
  return (after->sectors_written - before->sectors_written) * 512;
}

/* Bytes per second of writing between two readings: the bytes the device
 * completed over the time it was busy, less the time it spent flushing
 * its cache, a cost per flush that says nothing of how fast it takes
 * data (a fast device with a slow flush is still fast for a big copy). */
double
ferry_block_stat_write_rate (const FerryBlockStat *before, const FerryBlockStat *after)
{
  guint64 busy = after->busy_ms > before->busy_ms ? after->busy_ms - before->busy_ms : 0;
  guint64 flush = after->flush_ms > before->flush_ms ? after->flush_ms - before->flush_ms : 0;
  guint64 writing_ms = busy > flush ? busy - flush : 0;

  return (double) ferry_block_stat_bytes_written (before, after) * 1000.0 / MAX (writing_ms, 1);
}

/* The mean time of a cache flush between two readings, in ms; 0 where
 * fewer than two completed (or the kernel counts none): one flush may
 * have waited behind writes. */
double
ferry_block_stat_flush_ms_each (const FerryBlockStat *before, const FerryBlockStat *after)
{
  guint64 flushes = after->flushes > before->flushes ? after->flushes - before->flushes : 0;

  if (flushes < 2 || after->flush_ms < before->flush_ms)
    return 0;
  return (double) (after->flush_ms - before->flush_ms) / flushes;
}
