/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "ferry-application.h"
#include "ferry-engine.h"

int
main (int argc, char **argv)
{
  g_autoptr (FerryApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, ferry_engine_get_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  ferry_engine_init ();

  app = ferry_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
