/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "ferry-engine.h"
#include "ferry-fs.h"

/**
 * ferry_engine_get_locale_dir:
 * Where Ferry's translations are: LOCALEDIR, the installed place, unless
 * FERRY_LOCALEDIR names another. The tests set it to the build tree's po/
 * folder, where the compiled catalogs are before anything is installed.
 */
const char *
ferry_engine_get_locale_dir (void)
{
  const char *dir = g_getenv ("FERRY_LOCALEDIR");

  return dir != NULL && *dir != '\0' ? dir : LOCALEDIR;
}

/* Once per process, before the first job: the engine's messages are
 * translated, and deep trees may keep many folders open. */
void
ferry_engine_init (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      bindtextdomain (GETTEXT_PACKAGE, ferry_engine_get_locale_dir ());
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      ferry_raise_fd_limit ();
      g_once_init_leave (&initialized, 1);
    }
}
