/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a block device says it has done (/sys/class/block/NAME/stat):
 * counted by the device's queue, so it tells how fast the device writes
 * whatever the filesystem above it spent its time on. */
typedef struct
{
  guint64 sectors_written; /* 512-byte sectors whose writes completed */
  guint64 busy_ms;         /* time with at least one request in flight */
  guint64 flushes;         /* cache flushes completed (0: not counted) */
  guint64 flush_ms;        /* time spent in cache flushes (0: not counted) */
} FerryBlockStat;

gboolean ferry_block_stat_read (const char *block_name, FerryBlockStat *stat);
double ferry_block_stat_write_rate (const FerryBlockStat *before, const FerryBlockStat *after);
guint64 ferry_block_stat_bytes_written (const FerryBlockStat *before, const FerryBlockStat *after);
double ferry_block_stat_flush_ms_each (const FerryBlockStat *before, const FerryBlockStat *after);

G_END_DECLS
