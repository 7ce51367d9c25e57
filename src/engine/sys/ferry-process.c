/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ferry-process.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

static guint32
read_boot (void)
{
  g_autofree char *text = NULL;
  char hex[9] = { 0 };

  if (!g_file_get_contents (BOOT_ID_PATH, &text, NULL, NULL) || strlen (text) < 8)
    return 0;
  memcpy (hex, text, 8);
  return (guint32) strtoul (hex, NULL, 16);
}

/* Field 22 of /proc/PID/stat. The command name before it may hold
 * spaces and parentheses, so the fields are counted after its last ')'. */
static gboolean
read_start (pid_t pid, guint64 *start)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  g_auto (GStrv) fields = NULL;
  const char *rest;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (rest = strrchr (text, ')')) == NULL)
    return FALSE;
  fields = g_strsplit (rest + 1, " ", 0);
  /* fields[0] is empty (the space after ')'), fields[1] is field 3. */
  if (g_strv_length (fields) < 21)
    return FALSE;
  return g_ascii_string_to_unsigned (fields[20], 10, 0, G_MAXUINT64, start, NULL);
}

/**
 * ferry_process_self:
 * This process, found once.
 */
const FerryProcessId *
ferry_process_self (void)
{
  static FerryProcessId self;
  static gsize found;

  if (g_once_init_enter (&found))
    {
      self.boot = read_boot ();
      self.pid = getpid ();
      if (!read_start (self.pid, &self.start))
        self.start = 0;
      g_once_init_leave (&found, 1);
    }
  return &self;
}

/**
 * ferry_process_is_gone:
 * Whether the process @id names has certainly ended: it ran in an
 * earlier boot, no process has its pid, or the one that has it started
 * at another moment. A process that exists but cannot be looked at (of
 * another user, behind hidepid) is not gone. A pid from another pid
 * namespace names some other process here or none: the answer can be
 * wrong, so callers that must be sure (a file they would delete) also
 * check what only a living owner holds.
 */
gboolean
ferry_process_is_gone (const FerryProcessId *id)
{
  const FerryProcessId *self = ferry_process_self ();
  guint64 start;

  if (id->pid <= 0)
    return FALSE;
  if (id->boot != self->boot)
    return TRUE;
  if (kill (id->pid, 0) != 0 && errno == ESRCH)
    return TRUE;
  if (read_start (id->pid, &start))
    return start != id->start;
  return FALSE;
}
