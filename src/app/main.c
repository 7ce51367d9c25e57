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
  /* Above and below the options of `ferry --help`: what Ferry is, and
   * what a script that hands it files gets back. */
  g_application_set_option_context_summary (
      G_APPLICATION (app), _ ("Copy files and folders onto USB sticks and other drives. With "
                              "--destination, hand the FILEs to the Ferry that runs (starting "
                              "one if none does), and return once they are queued."));
  g_application_set_option_context_description (
      G_APPLICATION (app),
      _ ("Exit status: 0 when the files are queued (or the window was closed); 1 when they are "
         "refused, with nothing written: FOLDER is not an existing folder, or a FILE does not "
         "exist; 2 on bad usage (no FILE, or an empty FOLDER)."));
  return g_application_run (G_APPLICATION (app), argc, argv);
}
