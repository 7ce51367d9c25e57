/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/**
 * FerryProcessId:
 * Who a process is, as far as this machine can tell across time: its pid
 * alone is reused, so the boot it runs in and the moment it started
 * (clock ticks since that boot) come with it.
 */
typedef struct
{
  guint32 boot; /* the first 32 bits of the kernel's boot id */
  pid_t pid;
  guint64 start; /* clock ticks after boot */
} FerryProcessId;

const FerryProcessId *ferry_process_self (void);
gboolean ferry_process_is_gone (const FerryProcessId *id);

G_END_DECLS
