/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Files copied in another program, for the paste tests: it plays the
 * file manager. `ferry-clipboard-source FORMAT FILE…` puts the files on
 * the clipboard of the display, in one format:
 *
 * - x-special/gnome-copied-files: "copy", then a URI a line, as GNOME's
 *   file manager offers them besides text/uri-list;
 * - text/uri-list: a URI a line, ended by CR LF (RFC 2483);
 * - text/plain: the paths, as a text editor would copy them (no files).
 *
 * Prints "ready" once the clipboard is its own, and keeps it until it is
 * killed.
 */
#include <gtk/gtk.h>

static GBytes *
encode (const char *format, char **paths)
{
  GString *out = g_string_new (NULL);
  gboolean copied_files = g_str_equal (format, "x-special/gnome-copied-files");
  gboolean uri_list = g_str_equal (format, "text/uri-list");

  if (copied_files)
    g_string_append (out, "copy");
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autoptr (GFile) file = g_file_new_for_commandline_arg (paths[i]);
      g_autofree char *uri = g_file_get_uri (file);

      if (copied_files)
        g_string_append_printf (out, "\n%s", uri);
      else if (uri_list)
        g_string_append_printf (out, "%s\r\n", uri);
      else
        g_string_append_printf (out, "%s\n", paths[i]);
    }
  return g_string_free_to_bytes (out);
}

int
main (int argc, char **argv)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GdkContentProvider) provider = NULL;

  if (argc < 3)
    {
      g_printerr ("usage: %s FORMAT FILE…\n", argv[0]);
      return 2;
    }
  /* stdout is a pipe to the test: the line must reach it at once. */
  setvbuf (stdout, NULL, _IOLBF, 0);
  gtk_init ();
  bytes = encode (argv[1], argv + 2);
  provider = gdk_content_provider_new_for_bytes (argv[1], bytes);
  gdk_clipboard_set_content (gdk_display_get_clipboard (gdk_display_get_default ()), provider);
  g_print ("ready\n");
  while (TRUE)
    g_main_context_iteration (NULL, TRUE);
  return 0;
}
