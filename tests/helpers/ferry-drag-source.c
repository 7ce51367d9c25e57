/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A window to drag files from, for the drag-and-drop test: it plays the
 * file manager. `ferry-drag-source FILE…` shows one large label; dragging
 * it offers the files as a GdkFileList (and so as text/uri-list) to
 * whatever they are dropped on, in another process. Prints "ready X Y"
 * (the label's centre in the window's surface) once it is on screen, and
 * "dropped" when the drag ended with a drop.
 */
#include <gtk/gtk.h>

#define TITLE "Ferry drag source"

static GdkContentProvider *
offer_files (GtkDragSource *source, double x, double y, gpointer user_data)
{
  GSList *files = NULL;

  for (char **path = user_data; *path != NULL; path++)
    files = g_slist_append (files, g_file_new_for_commandline_arg (*path));
  return gdk_content_provider_new_typed (GDK_TYPE_FILE_LIST, files);
}

static void
on_drag_end (GtkDragSource *source, GdkDrag *drag, gboolean delete_data, gpointer user_data)
{
  g_print ("drag-end\n");
}

static gboolean
report_ready (gpointer user_data)
{
  GtkWidget *label = user_data;
  GtkNative *native = gtk_widget_get_native (label);
  graphene_rect_t bounds;
  double dx, dy;

  if (!gtk_widget_compute_bounds (label, GTK_WIDGET (native), &bounds))
    return G_SOURCE_CONTINUE;
  gtk_native_get_surface_transform (native, &dx, &dy);
  g_print ("ready %d %d\n", (int) (dx + bounds.origin.x + bounds.size.width / 2),
           (int) (dy + bounds.origin.y + bounds.size.height / 2));
  return G_SOURCE_REMOVE;
}

static void
on_map (GtkWidget *label, gpointer user_data)
{
  g_timeout_add (300, report_ready, label);
}

static void
on_activate (GtkApplication *app, gpointer user_data)
{
  GtkWidget *window = gtk_application_window_new (app);
  GtkWidget *label = gtk_label_new ("Drag these files");
  GtkDragSource *source = gtk_drag_source_new ();

  gtk_window_set_title (GTK_WINDOW (window), TITLE);
  gtk_window_set_default_size (GTK_WINDOW (window), 300, 200);
  gtk_drag_source_set_actions (source, GDK_ACTION_COPY);
  g_signal_connect (source, "prepare", G_CALLBACK (offer_files), user_data);
  g_signal_connect (source, "drag-end", G_CALLBACK (on_drag_end), NULL);
  gtk_widget_add_controller (label, GTK_EVENT_CONTROLLER (source));
  g_signal_connect (label, "map", G_CALLBACK (on_map), NULL);
  gtk_window_set_child (GTK_WINDOW (window), label);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  g_autoptr (GtkApplication) app = NULL;

  if (argc < 2)
    {
      g_printerr ("usage: %s FILE…\n", argv[0]);
      return 2;
    }
  /* stdout is a pipe to the test: each line must reach it at once. */
  setvbuf (stdout, NULL, _IOLBF, 0);
  app = gtk_application_new (NULL, G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), argv + 1);
  return g_application_run (G_APPLICATION (app), 1, argv);
}
