/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gdk/x11/gdkx.h>
#include <stdlib.h>
#include <string.h>

#include "ferry-test-ui.h"

#include "ferry-destination-row.h"
#include "ferry-test-util.h"

/* The journals' folder this program made for itself, removed when it
 * ends normally; after a failure (g_error() aborts) it stays in the
 * scratch folder, to be looked at. */
static char *own_state_dir;

static void
remove_own_state_dir (void)
{
  ferry_test_remove_tree (own_state_dir);
  g_clear_pointer (&own_state_dir, g_free);
}

void
ferry_test_ui_init (int *argc, char ***argv)
{
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("NO_AT_BRIDGE", "1", TRUE);
  /* Each window test keeps its own journals of transfers cut short: one
   * another test left would be offered in this one's window. A test that
   * chose its own folder keeps it. */
  if (g_strcmp0 (g_getenv ("XDG_STATE_HOME"), g_getenv ("FERRY_TEST_STATE_HOME")) == 0)
    {
      own_state_dir = ferry_test_scratch_new ("state");
      g_setenv ("XDG_STATE_HOME", own_state_dir, TRUE);
      atexit (remove_own_state_dir);
    }
  gtk_test_init (argc, argv, NULL);
  adw_init ();
  if (g_getenv ("FERRY_TEST_ICON_DIR") != NULL)
    gtk_icon_theme_add_search_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    g_getenv ("FERRY_TEST_ICON_DIR"));
  ferry_test_ui_load_app_style ();
}

void
ferry_test_ui_wait (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
}

/* Iterates the main context until @condition holds; FALSE on timeout. */
gboolean
ferry_test_ui_wait_until (gboolean (*condition) (gpointer data), gpointer data, guint timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!condition (data))
    {
      if (g_get_monotonic_time () > until)
        return FALSE;
      ferry_test_ui_wait (10);
    }
  return TRUE;
}

/* Renders @widget as it is on screen into a PNG file. */
void
ferry_test_ui_screenshot (GtkWidget *widget, const char *path)
{
  g_autoptr (GdkTexture) texture = ferry_test_ui_render (widget);

  g_assert_true (gdk_texture_save_to_png (texture, path));
}

/* A Ferry window over a queue and a drive list of its own, with a scratch
 * folder holding src/ and the folder a made-up drive will stand for. */
void
ferry_test_window_set_up (FerryTestWindow *f,
                          const char *label,
                          const char *drive_folder,
                          int width,
                          int height)
{
  f->scratch = ferry_test_scratch_new (label);
  f->src = g_build_filename (f->scratch, "src", NULL);
  f->stick = g_build_filename (f->scratch, drive_folder, NULL);
  ferry_test_make_dirs (f->src);
  ferry_test_make_dirs (f->stick);
  f->queue = ferry_queue_new ();
  f->drives = ferry_drive_list_new (NULL);
  f->window = ferry_window_new (NULL, f->queue, f->drives);
  gtk_window_set_default_size (GTK_WINDOW (f->window), width, height);
  gtk_window_present (GTK_WINDOW (f->window));
  ferry_test_ui_wait (200);
}

void
ferry_test_window_tear_down (FerryTestWindow *f)
{
  ferry_queue_cancel_all (f->queue);
  gtk_window_destroy (GTK_WINDOW (f->window));
  ferry_test_ui_wait (100);
  g_clear_object (&f->queue);
  g_clear_object (&f->drives);
  ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->stick);
}

/* The drive list's row for the drive named @name, NULL if none. */
FerryDestinationRow *
ferry_test_window_drive_row (FerryTestWindow *f, const char *name)
{
  g_autoptr (GList) rows
      = ferry_test_ui_find_all (GTK_WIDGET (f->window), FERRY_TYPE_DESTINATION_ROW);

  for (GList *l = rows; l != NULL; l = l->next)
    if (g_strcmp0 (ferry_destination_get_name (ferry_destination_row_get_destination (l->data)),
                   name)
        == 0)
      return l->data;
  return NULL;
}

/* The text @label shows as it is laid out now: an ellipsized part
 * replaced by the "…" drawn for it, and wrapped lines joined again. */
char *
ferry_test_ui_label_shown_text (GtkLabel *label)
{
  PangoLayout *layout = gtk_label_get_layout (label);
  const char *text = pango_layout_get_text (layout);
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  GString *shown = g_string_new (NULL);

  do
    {
      PangoLayoutRun *run = pango_layout_iter_get_run_readonly (iter);

      if (run == NULL)
        continue;
      if (run->item->analysis.flags & PANGO_ANALYSIS_FLAG_IS_ELLIPSIS)
        g_string_append (shown, "…");
      else
        g_string_append_len (shown, text + run->item->offset, run->item->length);
    }
  while (pango_layout_iter_next_run (iter));
  pango_layout_iter_free (iter);
  return g_string_free (shown, FALSE);
}

/* "2.7 MB free of 4.2 MB": the space of @folder's filesystem now, as a
 * drive's row says it. */
char *
ferry_test_ui_space_of (const char *folder)
{
  g_autoptr (GFile) root = g_file_new_for_path (folder);
  g_autoptr (GFileInfo) info = g_file_query_filesystem_info (root, "filesystem::*", NULL, NULL);
  g_autofree char *free_str = NULL;
  g_autofree char *size_str = NULL;

  g_assert_nonnull (info);
  free_str = g_format_size (g_file_info_get_attribute_uint64 (info, "filesystem::free"));
  size_str = g_format_size (g_file_info_get_attribute_uint64 (info, "filesystem::size"));
  return g_strdup_printf ("%s free of %s", free_str, size_str);
}

/* Plugs in a made-up drive called @name over the window's drive folder. */
FerryTestMount *
ferry_test_window_plug_in (FerryTestWindow *f, const char *name)
{
  return ferry_test_ui_plug_in (f->drives, name, f->stick);
}

/* @folder (a made-up drive's, or a stick the test made) shown in @drives
 * as the drive @name, once the window has its row. */
FerryTestMount *
ferry_test_ui_plug_in (FerryDriveList *drives, const char *name, const char *folder)
{
  FerryTestMount *mount = ferry_test_mount_new (name, folder);

  ferry_drive_list_add_mount (drives, G_MOUNT (mount));
  ferry_test_ui_wait (200);
  return mount;
}

/* The files @dir/NAME for each NAME up to NULL, as a drop would carry. */
GSList *
ferry_test_ui_files_in (const char *dir, ...)
{
  GSList *files = NULL;
  va_list args;

  va_start (args, dir);
  for (const char *name = va_arg (args, const char *); name != NULL;
       name = va_arg (args, const char *))
    files = g_slist_append (files, g_file_new_build_filename (dir, name, NULL));
  va_end (args);
  return files;
}

static gboolean
label_shown (gpointer data)
{
  const void **args = data;
  return ferry_test_ui_find_label ((GtkWidget *) args[0], args[1]) != NULL;
}

/* Fails the test unless a label under @root shows @text within 20 s. */
void
ferry_test_ui_assert_label_soon (GtkWidget *root, const char *text)
{
  const void *args[] = { root, text };

  if (!ferry_test_ui_wait_until (label_shown, args, 20000))
    g_error ("the window never showed “%s”", text);
}

static void
collect (GtkWidget *widget, GType type, const char *name, GList **found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type)
      && (name == NULL || g_strcmp0 (gtk_widget_get_name (widget), name) == 0))
    *found = g_list_append (*found, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, type, name, found);
}

GList *
ferry_test_ui_find_all (GtkWidget *root, GType type)
{
  GList *found = NULL;

  collect (root, type, NULL, &found);
  return found;
}

/* The first widget of @type (and @name, when given) below @root. */
GtkWidget *
ferry_test_ui_find (GtkWidget *root, GType type, const char *name)
{
  GList *found = NULL;
  GtkWidget *first;

  collect (root, type, name, &found);
  first = found ? found->data : NULL;
  g_list_free (found);
  return first;
}

/* The first mapped label below @root whose text contains @contains. */
GtkWidget *
ferry_test_ui_find_label (GtkWidget *root, const char *contains)
{
  g_autoptr (GList) labels = ferry_test_ui_find_all (root, GTK_TYPE_LABEL);

  for (GList *l = labels; l != NULL; l = l->next)
    if (gtk_widget_get_mapped (l->data) && strstr (gtk_label_get_label (l->data), contains) != NULL)
      return l->data;
  return NULL;
}

/* A dialog shown over @parent, if any. */
GtkWindow *
ferry_test_ui_find_dialog (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  /* GTK keeps its toplevels alive: the reference returned is borrowed. */
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      GtkWindow *window = g_list_model_get_item (toplevels, i);
      gboolean ours = gtk_window_get_transient_for (window) == parent
                      && gtk_widget_get_visible (GTK_WIDGET (window));

      g_object_unref (window);
      if (ours)
        return window;
    }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* A made-up drive: a GMount over a folder, that can be ejected, or
 * refuse to be (the drive is busy).                                   */

struct _FerryTestMount
{
  GObject parent_instance;
  char *name;
  GFile *root;
  GError *eject_error;
  guint n_ejects;
};

static void mount_iface_init (GMountIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FerryTestMount,
                               ferry_test_mount,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_MOUNT, mount_iface_init))

static GFile *
mount_get_root (GMount *mount)
{
  return g_object_ref (FERRY_TEST_MOUNT (mount)->root);
}

static char *
mount_get_name (GMount *mount)
{
  return g_strdup (FERRY_TEST_MOUNT (mount)->name);
}

static GIcon *
mount_get_icon (GMount *mount)
{
  return g_themed_icon_new ("drive-removable-media");
}

static GIcon *
mount_get_symbolic_icon (GMount *mount)
{
  return g_themed_icon_new ("drive-removable-media-symbolic");
}

static char *
mount_get_uuid (GMount *mount)
{
  return NULL;
}

static GVolume *
mount_get_volume (GMount *mount)
{
  return NULL;
}

static GDrive *
mount_get_drive (GMount *mount)
{
  return NULL;
}

static gboolean
mount_can_unmount (GMount *mount)
{
  return TRUE;
}

static gboolean
mount_can_eject (GMount *mount)
{
  return TRUE;
}

static void
mount_eject_with_operation (GMount *mount,
                            GMountUnmountFlags flags,
                            GMountOperation *operation,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data)
{
  FerryTestMount *self = FERRY_TEST_MOUNT (mount);
  g_autoptr (GTask) task = g_task_new (mount, cancellable, callback, user_data);

  self->n_ejects++;
  if (self->eject_error != NULL)
    g_task_return_error (task, g_error_copy (self->eject_error));
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
mount_eject_with_operation_finish (GMount *mount, GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
mount_iface_init (GMountIface *iface)
{
  iface->get_root = mount_get_root;
  iface->get_name = mount_get_name;
  iface->get_icon = mount_get_icon;
  iface->get_symbolic_icon = mount_get_symbolic_icon;
  iface->get_uuid = mount_get_uuid;
  iface->get_volume = mount_get_volume;
  iface->get_drive = mount_get_drive;
  iface->can_unmount = mount_can_unmount;
  iface->can_eject = mount_can_eject;
  iface->eject_with_operation = mount_eject_with_operation;
  iface->eject_with_operation_finish = mount_eject_with_operation_finish;
}

static void
ferry_test_mount_finalize (GObject *object)
{
  FerryTestMount *self = FERRY_TEST_MOUNT (object);

  g_free (self->name);
  g_clear_object (&self->root);
  g_clear_error (&self->eject_error);
  G_OBJECT_CLASS (ferry_test_mount_parent_class)->finalize (object);
}

static void
ferry_test_mount_class_init (FerryTestMountClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_test_mount_finalize;
}

static void
ferry_test_mount_init (FerryTestMount *self)
{
}

FerryTestMount *
ferry_test_mount_new (const char *name, const char *root_path)
{
  FerryTestMount *self = g_object_new (FERRY_TYPE_TEST_MOUNT, NULL);

  self->name = g_strdup (name);
  self->root = g_file_new_for_path (root_path);
  return self;
}

void
ferry_test_mount_set_eject_error (FerryTestMount *self, const GError *error)
{
  g_clear_error (&self->eject_error);
  if (error != NULL)
    self->eject_error = g_error_copy (error);
}

guint
ferry_test_mount_get_n_ejects (FerryTestMount *self)
{
  return self->n_ejects;
}

/* ------------------------------------------------------------------ */
/* The X server, as a person (or a file manager) would use it          */

static void
on_process_ended (GObject *process, GAsyncResult *result, gpointer user_data)
{
  gboolean *ended = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (process), result, NULL);
  *ended = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

/* Runs xdotool with @args while the window keeps answering events. */
void
ferry_test_ui_xdotool (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  gboolean ended = FALSE;

  g_ptr_array_add (argv, (gpointer) "xdotool");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const char *const *) argv->pdata, G_SUBPROCESS_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_subprocess_wait_async (process, NULL, on_process_ended, &ended);
  g_assert_true (ferry_test_ui_wait_until (flag_set, &ended, 20000));
  g_assert_true (g_subprocess_get_successful (process));
}

/* Whether keys can be pressed for real: an X server and xdotool. */
gboolean
ferry_test_ui_can_press_keys (void)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");

  return xdotool != NULL && GDK_IS_X11_DISPLAY (gdk_display_get_default ());
}

/* Presses @keys ("ctrl+o", "Down") on the keyboard, with @window given
 * the X input focus first, as a window manager gives it to the window
 * clicked. */
void
ferry_test_ui_press_keys (GtkWindow *window, const char *keys)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  g_autofree char *xid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));

  ferry_test_ui_xdotool ((const char *[]){ "windowfocus", "--sync", xid, NULL });
  ferry_test_ui_wait (100);
  ferry_test_ui_xdotool ((const char *[]){ "key", "--clearmodifiers", keys, NULL });
  ferry_test_ui_wait (200);
}

/* Starts @argv, a helper playing another program (a file manager), and
 * returns it once it printed its first line, which @line gets. */
GSubprocess *
ferry_test_ui_spawn (const char *const *argv, char **line)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  GSubprocess *process;

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  *line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (*line);
  return process;
}

/* Waits for a dialog over @parent and returns it once laid out. */
GtkWindow *
ferry_test_ui_wait_for_dialog (GtkWindow *parent)
{
  for (guint i = 0; i < 500; i++)
    {
      GtkWindow *dialog = ferry_test_ui_find_dialog (parent);
      if (dialog != NULL)
        {
          ferry_test_ui_wait (300); /* shown, laid out, mapped */
          return dialog;
        }
      ferry_test_ui_wait (20);
    }
  g_error ("no dialog was shown");
}

/* Clicks the dialog's button labelled @label, as a person would: the
 * dialog answers and closes. */
void
ferry_test_ui_click_response (GtkWindow *dialog, const char *label)
{
  g_autoptr (GList) buttons = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_BUTTON);

  for (GList *l = buttons; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_button_get_label (l->data), label) == 0)
      {
        /* The dialog is destroyed once it answered. */
        g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
        gtk_widget_activate (l->data);
        for (guint i = 0; i < 50 && dialog != NULL && gtk_widget_get_visible (GTK_WIDGET (dialog));
             i++)
          ferry_test_ui_wait (20);
        g_assert_true (dialog == NULL || !gtk_widget_get_visible (GTK_WIDGET (dialog)));
        if (dialog != NULL)
          g_object_remove_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
        return;
      }
  g_error ("no button “%s” in the dialog", label);
}

/* Renders @widget as it is on screen. While a copy runs the window
 * relayouts ten times a second, and a widget waiting for its allocation
 * draws nothing: such frames are waited out. */
GdkTexture *
ferry_test_ui_render (GtkWidget *widget)
{
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr (GskRenderNode) node = NULL;

  g_assert_cmpint (width, >, 0);
  for (guint i = 0; i < 100 && node == NULL; i++)
    {
      g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
      g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();

      gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
      node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
      if (node == NULL)
        ferry_test_ui_wait (10);
    }
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

/* The window's own style.css, which AdwApplication loads from Ferry's
 * resources: without it the tests would draw and measure another bar. */
void
ferry_test_ui_load_app_style (void)
{
  g_autoptr (GtkCssProvider) provider = gtk_css_provider_new ();

  gtk_css_provider_load_from_resource (provider, "/io/github/ferrycopy/Ferry/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

/* @dialog over @window, dimmed as GNOME Shell dims a window under its
 * modal dialog: one picture at the window's size, as a PNG file. */
void
ferry_test_ui_screenshot_dialog (GtkWidget *window, GtkWidget *dialog, const char *path)
{
  int width = gtk_widget_get_width (window), height = gtk_widget_get_height (window);
  int dialog_width = gtk_widget_get_width (dialog);
  int dialog_height = gtk_widget_get_height (dialog);
  g_autoptr (GdkPaintable) under = gtk_widget_paintable_new (window);
  g_autoptr (GdkPaintable) over = gtk_widget_paintable_new (dialog);
  g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;

  gdk_paintable_snapshot (under, GDK_SNAPSHOT (snapshot), width, height);
  gtk_snapshot_append_color (snapshot, &(GdkRGBA){ 0, 0, 0, 0.3 },
                             &GRAPHENE_RECT_INIT (0, 0, width, height));
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((width - dialog_width) / 2,
                                                          (height - dialog_height) / 2));
  gdk_paintable_snapshot (over, GDK_SNAPSHOT (snapshot), dialog_width, dialog_height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

/* Saves @widget's window as @name in $FERRY_SCREENSHOT_DIR, if set: the
 * window tests' screenshots, for a person to look at. */
void
ferry_test_ui_save_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("FERRY_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL || *dir == '\0')
    return;
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  path = g_build_filename (dir, name, NULL);
  ferry_test_ui_screenshot (widget, path);
  g_test_message ("screenshot: %s", path);
}
