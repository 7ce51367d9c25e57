/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Words people can read, under Xvfb: what the window says of a transfer
 * that failed or was cancelled, of its bar, and of a file already there.
 * Colours are read back from the rendered window, in the light and the
 * dark style, and held to WCAG's contrast ratios. */
#include "config.h"

#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "ferry-time-left.h"
#include "ferry-test-stick.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-transfer-row.h"

typedef FerryTestWindow Fixture;

/* The drive's folder is called SANDISK, the drive "SanDisk Cruzer", as a
 * desktop names /media/user/SANDISK after its label and model. */
#define DRIVE_NAME "SanDisk Cruzer"

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  AdwColorScheme scheme = GPOINTER_TO_INT (data) ? ADW_COLOR_SCHEME_FORCE_DARK
                                                 : ADW_COLOR_SCHEME_FORCE_LIGHT;

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), scheme);
  ferry_test_window_set_up (f, "ui-words", "SANDISK", 660, 660);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_test_window_tear_down (f);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
}

/* Where a screenshot named for @name and the style goes: NULL unless
 * $FERRY_SCREENSHOT_DIR is set. */
static char *
screenshot_path (const char *name, gconstpointer style)
{
  const char *dir = g_getenv ("FERRY_SCREENSHOT_DIR");
  g_autofree char *file = NULL;

  if (dir == NULL || *dir == '\0')
    return NULL;
  file = g_strdup_printf ("%s-%s.png", name, GPOINTER_TO_INT (style) ? "dark" : "light");
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return g_build_filename (dir, file, NULL);
}

static void
save_screenshot (GtkWidget *widget, const char *name, gconstpointer style)
{
  g_autofree char *path = screenshot_path (name, style);

  if (path != NULL)
    ferry_test_ui_screenshot (widget, path);
}

/* A dialog over its window, dimmed as GNOME Shell shows it. */
static void
save_dialog_screenshot (Fixture *f,
                        AdwMessageDialog *dialog,
                        const char *name,
                        gconstpointer style)
{
  g_autofree char *path = screenshot_path (name, style);

  if (path != NULL)
    ferry_test_ui_screenshot_dialog (GTK_WIDGET (f->window), GTK_WIDGET (dialog), path);
}

/* ------------------------------------------------------------------ */
/* Colours as they reach the screen                                    */

typedef struct
{
  guint8 r, g, b;
} Pixel;

/* WCAG 2.1 relative luminance. */
static double
luminance (Pixel p)
{
  const guint8 channels[] = { p.r, p.g, p.b };
  const double weights[] = { 0.2126, 0.7152, 0.0722 };
  double l = 0;

  for (guint i = 0; i < 3; i++)
    {
      double c = channels[i] / 255.0;
      l += weights[i] * (c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4));
    }
  return l;
}

static double
contrast (Pixel a, Pixel b)
{
  double la = luminance (a), lb = luminance (b);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

/* The window as drawn, in 8-bit RGB rows (the window is opaque). */
typedef struct
{
  int width, height;
  guchar *data; /* CAIRO_FORMAT_ARGB32, native endian */
  gsize stride;
} Frame;

static void
frame_grab (Frame *frame, GtkWidget *window)
{
  g_autoptr (GdkTexture) texture = ferry_test_ui_render (window);

  frame->width = gdk_texture_get_width (texture);
  frame->height = gdk_texture_get_height (texture);
  frame->stride = (gsize) frame->width * 4;
  frame->data = g_malloc (frame->stride * frame->height);
  gdk_texture_download (texture, frame->data, frame->stride);
}

static void
frame_clear (Frame *frame)
{
  g_clear_pointer (&frame->data, g_free);
}

static Pixel
frame_pixel (const Frame *frame, int x, int y)
{
  guint32 argb;

  memcpy (&argb, frame->data + (gsize) y * frame->stride + (gsize) x * 4, 4);
  return (Pixel){ (argb >> 16) & 0xff, (argb >> 8) & 0xff, argb & 0xff };
}

/* Where @widget is drawn in its window, in whole pixels. */
static cairo_rectangle_int_t
bounds_in_window (GtkWidget *widget)
{
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (widget));
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (widget, window, &bounds));
  return (cairo_rectangle_int_t){ (int) bounds.origin.x, (int) bounds.origin.y,
                                  (int) bounds.size.width, (int) bounds.size.height };
}

static guint32
pack (Pixel p)
{
  return (guint32) p.r << 16 | (guint32) p.g << 8 | p.b;
}

/* The colour most of @area has: what text is drawn on. */
static Pixel
background_of (const Frame *frame, cairo_rectangle_int_t area)
{
  g_autoptr (GHashTable) counts = g_hash_table_new (NULL, NULL);
  guint best_count = 0;
  Pixel best = { 0 };

  for (int y = area.y; y < area.y + area.height; y++)
    for (int x = area.x; x < area.x + area.width; x++)
      {
        Pixel p = frame_pixel (frame, x, y);
        gpointer key = GUINT_TO_POINTER (pack (p) + 1);
        guint count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1;

        g_hash_table_insert (counts, key, GUINT_TO_POINTER (count));
        if (count > best_count)
          {
            best_count = count;
            best = p;
          }
      }
  return best;
}

/* A label as a person sees it: the colour of its text (the pixel that
 * stands out most: the inside of a stroke, not its antialiased edge),
 * what it is drawn on, and the contrast of the two. */
typedef struct
{
  Pixel text;
  Pixel background;
  double contrast;
} Ink;

static Ink
ink_of (GtkWidget *label)
{
  cairo_rectangle_int_t area = bounds_in_window (label);
  Frame frame = { 0 };
  Ink ink = { 0 };

  frame_grab (&frame, GTK_WIDGET (gtk_widget_get_root (label)));
  ink.background = background_of (&frame, area);
  for (int y = area.y; y < area.y + area.height; y++)
    for (int x = area.x; x < area.x + area.width; x++)
      {
        Pixel p = frame_pixel (&frame, x, y);
        double c = contrast (p, ink.background);

        if (c > ink.contrast)
          {
            ink.contrast = c;
            ink.text = p;
          }
      }
  frame_clear (&frame);
  return ink;
}

/* Red as libadwaita's error colour is red, in either style. */
static gboolean
is_red (Pixel p)
{
  return p.r > p.g + 60 && p.r > p.b + 60;
}

/* ------------------------------------------------------------------ */
/* Transfers                                                           */

static FerryTransferRow *
only_row (Fixture *f)
{
  GtkWidget *row = ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL);

  g_assert_nonnull (row);
  return FERRY_TRANSFER_ROW (row);
}

static gboolean
job_ended (gpointer data)
{
  return ferry_job_get_phase (data) >= FERRY_PHASE_DONE;
}

/* The row's label showing its status. */
static GtkWidget *
status_label (FerryTransferRow *row)
{
  const char *status = ferry_transfer_row_get_status (row);
  GtkWidget *label = ferry_test_ui_find_label (GTK_WIDGET (row), status);

  g_assert_nonnull (label);
  return label;
}

/* Two sources called a.txt would land on one name on the drive: the
 * copy fails before it has counted anything. */
static FerryTransferRow *
fail_before_counting (Fixture *f)
{
  GSList *files;

  ferry_test_write_text (ferry_test_path (f->src, "a.txt", NULL), "one\n");
  ferry_test_make_dirs (ferry_test_path (f->src, "sub", NULL));
  ferry_test_write_text (ferry_test_path (f->src, "sub", "a.txt", NULL), "two\n");
  files = ferry_test_ui_files_in (f->src, "a.txt", "sub/a.txt", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, DRIVE_NAME), files));
  g_slist_free_full (files, g_object_unref);
  g_assert_true (ferry_test_ui_wait_until (job_ended, ferry_transfer_row_get_job (only_row (f)),
                                           10000));
  ferry_test_ui_wait (300); /* laid out and drawn */
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (only_row (f))), ==,
                   FERRY_PHASE_FAILED);
  return only_row (f);
}

/* Item 9: an error is red at full contrast (WCAG AA for normal text,
 * 4.5:1), not red dimmed to about 2.5:1, in the light and dark style. */
static void
test_error_full_contrast (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  FerryTransferRow *row = fail_before_counting (f);
  Ink ink = ink_of (status_label (row));

  save_screenshot (GTK_WIDGET (f->window), "error", style);
  g_test_message ("error text #%06x on #%06x: %.2f:1", pack (ink.text), pack (ink.background),
                  ink.contrast);
  g_assert_true (is_red (ink.text));
  g_assert_cmpfloat (ink.contrast, >=, 4.5);
}

/* Item 10: a path on the drive is named as the drive list names the
 * drive, not by where it is mounted; a count that means nothing ("0 of 0
 * items", the copy failed before counting) is not shown. */
static void
test_paths_name_the_drive (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  FerryTransferRow *row = fail_before_counting (f);

  g_assert_cmpstr (ferry_transfer_row_get_status (row), ==,
                   "Two of the sources are named alike: both would be copied to "
                   "“" DRIVE_NAME " › a.txt”");
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (f->window), f->stick));
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (row), "0 of 0"));
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (row), " of 0 item"));
  save_screenshot (GTK_WIDGET (f->window), "drive-paths", style);
}

static gboolean
job_copying (gpointer data)
{
  return ferry_job_get_phase (data) == FERRY_PHASE_COPYING;
}

/* Item 10: cancelling is something the person did, not a failure: the
 * row says "Cancelled" in the row's ordinary grey, never in red. */
static void
test_cancelled_is_neutral (Fixture *f, gconstpointer style)
{
  g_autoptr (GFile) source = g_file_new_build_filename (f->src, "film.mkv", NULL);
  g_autoptr (GFile) destination = g_file_new_for_path (f->stick);
  g_autoptr (FerryJob) job = ferry_job_new (&source, 1, destination);
  FerryTransferRow *row;
  Ink ink;

  ferry_test_write_random (ferry_test_path (f->src, "film.mkv", NULL), 8 * 1024 * 1024, 41);
  /* Held at its first chunk until cancelled. */
  ferry_job_pause (job);
  ferry_queue_add (f->queue, job);
  g_assert_true (ferry_test_ui_wait_until (job_copying, job, 10000));
  row = only_row (f);
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.cancel", NULL);
  g_assert_true (ferry_test_ui_wait_until (job_ended, job, 10000));
  ferry_test_ui_wait (300);

  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_CANCELLED);
  g_assert_cmpstr (ferry_transfer_row_get_status (row), ==, "Cancelled");
  ink = ink_of (status_label (row));
  g_test_message ("“Cancelled” #%06x on #%06x", pack (ink.text), pack (ink.background));
  g_assert_false (is_red (ink.text));
  save_screenshot (GTK_WIDGET (f->window), "cancelled", style);
}

/* An emulated USB stick at 6 MB/s (FUSE throttle, loop device, ext4)
 * mounted in the scratch folder, or NULL after g_test_skip(). */
static FerryTestStick *
new_stick_or_skip (Fixture *f)
{
  g_autofree char *workdir = g_build_filename (f->scratch, "stick-work", NULL);
  g_autofree char *mountpoint = g_build_filename (f->scratch, "CRUZER", NULL);

  return ferry_test_stick_new_or_skip (workdir, mountpoint, "CRUZER", 96 * 1024 * 1024,
                                       6 * 1024 * 1024);
}

static gboolean
shows_failure (gpointer data)
{
  return ferry_test_ui_find (data, ADW_TYPE_ACTION_ROW, NULL) != NULL
         && gtk_widget_get_mapped (ferry_test_ui_find (data, ADW_TYPE_ACTION_ROW, NULL));
}

/* Item 10: a stick pulled out while it is written to. Its writes fail
 * (EIO) and the copy stops; once the desktop says the drive is gone, the
 * row says so in words instead of "Input/output error". */
static void
test_unplugged (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip (f);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;
  FerryTransferRow *row;
  GSList *files;

  if (stick == NULL)
    return;
  mount = ferry_test_ui_plug_in (f->drives, DRIVE_NAME, ferry_test_stick_get_mountpoint (stick));
  ferry_test_make_dirs (ferry_test_path (f->src, "Photos", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "Photos", "big.jpg", NULL), 30 * 1024 * 1024,
                           7);
  files = ferry_test_ui_files_in (f->src, "Photos", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, DRIVE_NAME), files));
  g_slist_free_full (files, g_object_unref);
  row = only_row (f);
  g_assert_true (ferry_test_ui_wait_until (job_copying, ferry_transfer_row_get_job (row), 20000));
  ferry_test_ui_wait (500);

  g_assert_true (ferry_test_stick_set_fail_writes (stick, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (ferry_test_ui_wait_until (job_ended, ferry_transfer_row_get_job (row), 60000));
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_FAILED);
  ferry_test_ui_wait_until (shows_failure, row, 5000);
  g_test_message ("while plugged: %s", ferry_transfer_row_get_status (row));
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (row), "was unplugged"));

  /* What GIO's volume monitor does once the stick is gone. */
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
  ferry_test_ui_wait (300);
  g_assert_cmpstr (ferry_transfer_row_get_status (row), ==, DRIVE_NAME " was unplugged");
  /* Nor for the files that failed as the stick went (ext4 gives up on
   * its journal then, and the next writes fail as read-only). */
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (row), "Input/output error"));
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (row), "Read-only file system"));
  g_assert_null (
      ferry_test_ui_find_label (GTK_WIDGET (row), ferry_test_stick_get_mountpoint (stick)));
  g_assert_true (is_red (ink_of (status_label (row)).text));
  save_screenshot (GTK_WIDGET (f->window), "unplugged", style);
  g_assert_true (ferry_test_stick_set_fail_writes (stick, FALSE, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------------ */
/* The bar's two tones                                                 */

static GtkProgressBar *
bar_of (FerryTransferRow *row, const char *css_class)
{
  g_autoptr (GList) bars = ferry_test_ui_find_all (GTK_WIDGET (row), GTK_TYPE_PROGRESS_BAR);

  for (GList *l = bars; l != NULL; l = l->next)
    if (gtk_widget_has_css_class (l->data, css_class))
      return l->data;
  g_error ("the transfer row has no bar of class %s", css_class);
}

/* The colour of the bar at @fraction of its width, in its middle. */
static Pixel
bar_colour_at (const Frame *frame, GtkProgressBar *bar, double fraction)
{
  cairo_rectangle_int_t area = bounds_in_window (GTK_WIDGET (bar));

  return frame_pixel (frame, area.x + (int) (area.width * fraction), area.y + area.height / 2);
}

/* Item 11: a row for a job that never runs, its bars set by hand to 30 %
 * on the drive and 60 % handed to the kernel, drawn as the window draws
 * it (in a boxed list): the light part stands out from the empty trough
 * and from the solid part alike, in either style. Before, in the dark
 * style, it was 1.26:1 from the trough. */
static void
test_bar_second_tone (Fixture *f, gconstpointer style)
{
  g_autoptr (GFile) source = g_file_new_build_filename (f->src, "a.bin", NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (f->stick);
  g_autoptr (FerryJob) job = ferry_job_new (&source, 1, folder);
  g_autoptr (FerryDestination) destination = ferry_destination_new_for_folder (folder);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *list = gtk_list_box_new ();
  FerryTransferRow *row = ferry_transfer_row_new (job, destination);
  Frame frame = { 0 };
  Pixel solid, light, trough;

  gtk_widget_add_css_class (list, "boxed-list");
  gtk_widget_set_margin_start (list, 12);
  gtk_widget_set_margin_end (list, 12);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (row));
  gtk_window_set_child (GTK_WINDOW (window), list);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 200);
  gtk_progress_bar_set_fraction (bar_of (row, "durable"), 0.3);
  gtk_progress_bar_set_fraction (bar_of (row, "written"), 0.6);
  gtk_window_present (GTK_WINDOW (window));
  ferry_test_ui_wait (300);

  frame_grab (&frame, window);
  solid = bar_colour_at (&frame, bar_of (row, "durable"), 0.15);
  light = bar_colour_at (&frame, bar_of (row, "durable"), 0.45);
  trough = bar_colour_at (&frame, bar_of (row, "durable"), 0.8);
  frame_clear (&frame);
  save_screenshot (window, "bar", style);
  gtk_window_destroy (GTK_WINDOW (window));
  g_test_message ("solid #%06x, light #%06x (%.2f:1), trough #%06x (%.2f:1)", pack (solid),
                  pack (light), contrast (solid, light), pack (trough), contrast (light, trough));
  g_assert_cmpfloat (contrast (solid, light), >=, 1.5);
  g_assert_cmpfloat (contrast (light, trough), >=, 1.5);
}

/* "42.0 MB" as g_format_size() wrote it, in bytes. */
static double
parse_size (const char *text)
{
  g_autofree char *copy = g_strdup (text);
  char *unit = NULL;
  double value = g_ascii_strtod (copy, &unit);
  const char *const units[] = { "bytes", "kB", "MB", "GB" };

  g_strstrip (unit);
  g_strdelimit (unit, "\xc2\xa0", ' ');
  g_strstrip (unit);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_has_prefix (unit, units[i]) || (i == 0 && g_str_has_prefix (unit, "byte")))
      return value * pow (1000, i);
  g_error ("“%s” is not a size", text);
}

typedef struct
{
  FerryTransferRow *row;
  GtkProgressBar *durable;
  GtkProgressBar *written;
} Bars;

/* Far enough in for both tones to show. */
static gboolean
two_tones_shown (gpointer data)
{
  Bars *bars = data;
  double durable = gtk_progress_bar_get_fraction (bars->durable);
  double written = gtk_progress_bar_get_fraction (bars->written);

  return durable > 0.1 && written - durable > 0.05;
}

static void
run_xdotool (const char *command)
{
  g_autofree char *line = g_strconcat ("xdotool ", command, NULL);
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_command_line_sync (line, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static gboolean
can_point (GtkWidget *window)
{
  return g_find_program_in_path ("xdotool") != NULL
         && GDK_IS_X11_SURFACE (gtk_native_get_surface (GTK_NATIVE (window)));
}

/* The window's tooltip, once it is on screen. */
static gboolean
tooltip_shown (gpointer data)
{
  GtkWidget *tooltip = ferry_test_ui_find (data, g_type_from_name ("GtkTooltipWindow"), NULL);

  return tooltip != NULL && gtk_widget_get_mapped (tooltip);
}

/* The pointer comes from the screen's corner and rests on @widget, as a
 * person's would, until GTK shows its tooltip (within 5 s, ten times its
 * wait): the tooltip's window. The window is put at the screen's corner
 * first (there is no window manager to place it), and where @widget is
 * is read just before: rows above it may have moved it. */
static GtkWidget *
hover (GtkWidget *widget)
{
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (widget));
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  g_autofree char *place = g_strdup_printf ("windowmove --sync %lu 0 0",
                                            gdk_x11_surface_get_xid (surface));
  g_autofree char *point = NULL;
  graphene_rect_t bounds;
  double dx, dy;

  run_xdotool (place);
  run_xdotool ("mousemove --sync 1 1");
  ferry_test_ui_wait (100);
  g_assert_true (gtk_widget_compute_bounds (widget, window, &bounds));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &dx, &dy);
  point = g_strdup_printf ("mousemove --sync %d %d", (int) (dx + bounds.origin.x + 40),
                           (int) (dy + bounds.origin.y + bounds.size.height / 2));
  run_xdotool (point);
  if (!ferry_test_ui_wait_until (tooltip_shown, window, 5000))
    g_error ("no tooltip with the pointer at %s (the widget at %.0f,%.0f, %.0f×%.0f)", point,
             bounds.origin.x, bounds.origin.y, bounds.size.width, bounds.size.height);
  return ferry_test_ui_find (window, g_type_from_name ("GtkTooltipWindow"), NULL);
}

/* The window with @tooltip where it appeared, into $FERRY_SCREENSHOT_DIR. */
static void
save_tooltip_screenshot (GtkWidget *tooltip, const char *name)
{
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (tooltip));
  GdkPopup *popup = GDK_POPUP (gtk_native_get_surface (GTK_NATIVE (tooltip)));
  g_autofree char *path = screenshot_path (name, GINT_TO_POINTER (FALSE));
  g_autoptr (GdkPaintable) under = gtk_widget_paintable_new (window);
  g_autoptr (GdkPaintable) over = gtk_widget_paintable_new (tooltip);
  g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (window), height = gtk_widget_get_height (window);

  if (path == NULL)
    return;
  gdk_paintable_snapshot (under, GDK_SNAPSHOT (snapshot), width, height);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (gdk_popup_get_position_x (popup),
                                                          gdk_popup_get_position_y (popup)));
  gdk_paintable_snapshot (over, GDK_SNAPSHOT (snapshot), gtk_widget_get_width (tooltip),
                          gtk_widget_get_height (tooltip));
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

/* The legend says what the tones show: "9.4 MB safe on SanDisk Cruzer
 * · 2.1 MB still in memory", to the precision of "9.4 MB". */
static void
assert_legend_matches_bars (const char *text, Bars *bars)
{
  g_autoptr (GRegex) legend
      = g_regex_new ("^(.+) safe on " DRIVE_NAME " · (.+) still in memory$", 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  g_autofree char *safe = NULL, *in_memory = NULL;
  g_auto (FerryProgress) p = { 0 };
  double durable = gtk_progress_bar_get_fraction (bars->durable);
  double written = gtk_progress_bar_get_fraction (bars->written);

  g_test_message ("legend: %s", text);
  g_assert_true (g_regex_match (legend, text, 0, &match));
  safe = g_match_info_fetch (match, 1);
  in_memory = g_match_info_fetch (match, 2);
  ferry_job_get_progress (ferry_transfer_row_get_job (bars->row), &p);
  g_assert_cmpfloat_with_epsilon (parse_size (safe), durable * p.bytes_total,
                                  p.bytes_total / 100.0);
  g_assert_cmpfloat_with_epsilon (parse_size (in_memory), (written - durable) * p.bytes_total,
                                  p.bytes_total / 100.0);
}

/* GTK asking a widget for its tooltip: each time it does while no
 * tooltip shows, it starts its half-second wait for one again. */
static gboolean
count_tooltip_query (GSignalInvocationHint *hint, guint n_values, const GValue *values,
                     gpointer data)
{
  guint *queries = data;

  (*queries)++;
  return TRUE;
}

static void
count_legend_change (guint *changes)
{
  (*changes)++;
}

static gboolean
legend_changed_thrice (gpointer data)
{
  return *(guint *) data >= 3;
}

/* While the pointer rests on the bar and the copy goes on (its legend
 * changes three times), nothing in the window makes GTK ask for a
 * tooltip again. Each time it would start GTK's wait anew: a tooltip
 * text set at each progress change (the legend's, and even the pause
 * button's, to the same text) kept the legend from showing unless the
 * copy held still for half a second. */
static void
assert_tooltips_left_alone (GtkWidget *legend_label, FerryJob *job)
{
  guint signal_id = g_signal_lookup ("query-tooltip", GTK_TYPE_WIDGET);
  guint queries = 0, changes = 0;
  gulong hook = g_signal_add_emission_hook (signal_id, 0, count_tooltip_query, &queries, NULL);
  gulong handler = g_signal_connect_swapped (legend_label, "notify::label",
                                             G_CALLBACK (count_legend_change), &changes);

  g_assert_true (ferry_test_ui_wait_until (legend_changed_thrice, &changes, 30000));
  g_signal_remove_emission_hook (signal_id, hook);
  g_signal_handler_disconnect (legend_label, handler);
  g_test_message ("the legend changed %u times; GTK asked for a tooltip %u times", changes,
                  queries);
  g_assert_cmpuint (queries, ==, 0);
  /* Counted while copying: a copy that ends offers to eject, and may. */
  g_assert_cmpint (ferry_job_get_phase (job), <, FERRY_PHASE_DONE);
}

/* Item 11: while a slow stick is written to, the bar has a legend: the
 * tooltip a person sees on pointing at it, and its description for
 * screen readers, say how much is safe on the drive and how much is
 * still in memory, as the two tones show. */
static void
test_bar_legend (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestStick) stick = NULL;
  g_autoptr (FerryTestMount) mount = NULL;
  GtkWidget *tooltip;
  GtkWidget *legend_label;
  const char *legend;
  g_autoptr (FerryJob) job = NULL;
  GSList *files;
  Bars bars;

  if (!can_point (GTK_WIDGET (f->window)))
    {
      g_test_skip ("pointing at the bar needs X11 and xdotool");
      return;
    }
  if ((stick = new_stick_or_skip (f)) == NULL)
    return;
  mount = ferry_test_ui_plug_in (f->drives, DRIVE_NAME, ferry_test_stick_get_mountpoint (stick));
  /* Big enough that the copy still writes for seconds after the pointer
   * found the bar (the stick takes 6 MiB a second). */
  ferry_test_write_random (ferry_test_path (f->src, "film.mkv", NULL), 72 * 1024 * 1024, 9);
  files = ferry_test_ui_files_in (f->src, "film.mkv", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, DRIVE_NAME), files));
  g_slist_free_full (files, g_object_unref);
  bars.row = only_row (f);
  bars.durable = bar_of (bars.row, "durable");
  bars.written = bar_of (bars.row, "written");
  /* Its own reference: cancelled with its journal kept, the row gives
   * way to an "Interrupted" one and lets the job go. */
  job = g_object_ref (ferry_transfer_row_get_job (bars.row));
  g_assert_true (ferry_test_ui_wait_until (two_tones_shown, &bars, 60000));

  tooltip = hover (gtk_widget_get_parent (GTK_WIDGET (bars.durable)));
  /* The tooltip shows the row's own legend, changed in place: a tooltip
   * text set anew at each change (every 0.1-0.2 s while the stick takes
   * data) made GTK wait its half second again, and the tooltip showed
   * only when the copy held still that long. */
  legend_label = ferry_test_ui_find (tooltip, GTK_TYPE_LABEL, "legend");
  g_assert_nonnull (legend_label);
  assert_tooltips_left_alone (legend_label, job);
  /* While the pointer rests there, the tooltip follows the copy. Read
   * with the bars, with no turn of the main loop between. */
  g_assert_true (ferry_test_ui_wait_until (two_tones_shown, &bars, 60000));
  legend = gtk_label_get_label (GTK_LABEL (legend_label));
  assert_legend_matches_bars (legend, &bars);
  for (guint i = 0; i < 2; i++)
    {
      GtkAccessible *bar = GTK_ACCESSIBLE (i == 0 ? bars.durable : bars.written);
      g_autofree char *problem
          = gtk_test_accessible_check_property (bar, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, legend);

      if (problem != NULL)
        g_error ("the bar's description: %s", problem);
    }
  save_tooltip_screenshot (tooltip, "legend-tooltip");
  ferry_job_cancel (job);
  g_assert_true (ferry_test_ui_wait_until (job_ended, job, 60000));
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
}

/* ------------------------------------------------------------------ */
/* The conflict dialog                                                 */

static gboolean
dialog_shown (gpointer data)
{
  return ferry_test_ui_find_dialog (data) != NULL;
}

/* The question asked next, once it is on screen. */
static AdwMessageDialog *
next_dialog (Fixture *f)
{
  g_assert_true (ferry_test_ui_wait_until (dialog_shown, f->window, 10000));
  ferry_test_ui_wait (300); /* laid out and drawn */
  return ADW_MESSAGE_DIALOG (ferry_test_ui_find_dialog (GTK_WINDOW (f->window)));
}

/* Drops @names (in src/) on the drive, where files of the same names
 * are: the dialog asking about the first. */
static AdwMessageDialog *
drop_conflicting (Fixture *f, const char *const *names)
{
  GSList *files = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    files = g_slist_append (files, g_file_new_build_filename (f->src, names[i], NULL));
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, DRIVE_NAME), files));
  g_slist_free_full (files, g_object_unref);
  return next_dialog (f);
}

/* The response buttons of @dialog. libadwaita lays them out twice: in a
 * row, in the order they were added, and stacked, the other way up. */
static GList *
response_buttons (AdwMessageDialog *dialog)
{
  g_autoptr (GList) buttons = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_BUTTON);
  GList *responses = NULL;

  for (GList *l = buttons; l != NULL; l = l->next)
    if (gtk_button_get_use_underline (l->data) && gtk_button_get_label (l->data) != NULL)
      responses = g_list_append (responses, l->data);
  return responses;
}

/* The answer in the foremost place: the last in the row (on the right),
 * the first in the stack (on top). */
static const char *
foremost_response (AdwMessageDialog *dialog)
{
  g_autoptr (GList) buttons = response_buttons (dialog);
  guint n = g_list_length (buttons) / 2;
  const char *in_row = gtk_button_get_label (g_list_nth_data (buttons, n - 1));
  const char *on_top = gtk_button_get_label (g_list_nth_data (buttons, n));

  g_assert_cmpuint (g_list_length (buttons), ==, 2 * n);
  g_assert_cmpstr (in_row, ==, on_top);
  return in_row;
}

/* Clicks @label as a person would; the dialog answers and goes. */
static void
click (Fixture *f, AdwMessageDialog *dialog, const char *label)
{
  g_autoptr (GList) buttons = response_buttons (dialog);

  for (GList *l = buttons; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_button_get_label (l->data), label) == 0)
      {
        g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
        gtk_widget_activate (l->data);
        ferry_test_ui_wait (300);
        g_assert_null (dialog);
        return;
      }
  g_error ("no button “%s” in the dialog", label);
}

static void
write_dated (const char *path, const char *text, GDateTime *when)
{
  ferry_test_write_text (path, text);
  ferry_test_set_times (path, g_date_time_to_unix (when), 0);
}

static GDateTime *
local_day_at (GDateTime *day, int hour, int minute)
{
  return g_date_time_new_local (g_date_time_get_year (day), g_date_time_get_month (day),
                                g_date_time_get_day_of_month (day), hour, minute, 0);
}

/* Item 12: when the files were changed, as a person says it: "Today
 * 09:15", "Yesterday 23:02", or the full date with the month's name,
 * never "11/23/23 10:01:00". */
static void
test_conflict_dates (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autoptr (GDateTime) a_day_ago = g_date_time_add_days (now, -1);
  g_autoptr (GDateTime) today = local_day_at (now, 9, 15);
  g_autoptr (GDateTime) yesterday = local_day_at (a_day_ago, 23, 2);
  g_autoptr (GDateTime) long_ago = g_date_time_new_local (2023, 11, 23, 10, 1, 0);
  const char *names[] = { "f0.txt", "f1.txt", NULL };
  g_autoptr (GString) seen = g_string_new (NULL);
  AdwMessageDialog *dialog;

  write_dated (ferry_test_path (f->stick, "f0.txt", NULL), "old f0\n", today);
  write_dated (ferry_test_path (f->src, "f0.txt", NULL), "new f0\n", yesterday);
  write_dated (ferry_test_path (f->stick, "f1.txt", NULL), "old f1\n", long_ago);
  write_dated (ferry_test_path (f->src, "f1.txt", NULL), "new f1\n", today);

  /* The two are asked about in whichever order the copy meets them. */
  dialog = drop_conflicting (f, names);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GList) labels = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_LABEL);

      for (GList *l = labels; l != NULL; l = l->next)
        g_string_append_printf (seen, "%s\n", gtk_label_get_label (l->data));
      save_dialog_screenshot (f, dialog, i == 0 ? "conflict-dates-1" : "conflict-dates-2", style);
      click (f, dialog, "_Skip");
      if (i == 0)
        dialog = next_dialog (f);
    }
  g_test_message ("%s", seen->str);
  g_assert_nonnull (strstr (seen->str, "7 bytes, modified Today 09:15\n"));
  g_assert_nonnull (strstr (seen->str, "7 bytes, modified Yesterday 23:02\n"));
  g_assert_nonnull (strstr (seen->str, "7 bytes, modified 23 November 2023, 10:01\n"));
}

/* A thumbnail, as the desktop's thumbnailers leave one: a PNG named for
 * the MD5 of the file's URI under the cache's thumbnails/normal. */
static char *
make_thumbnail (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *md5 = g_compute_checksum_for_string (G_CHECKSUM_MD5, uri, -1);
  g_autofree char *name = g_strconcat (md5, ".png", NULL);
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "thumbnails", "normal", NULL);
  char *thumbnail = g_build_filename (dir, name, NULL);
  g_autoptr (GBytes) pixels = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  guchar *data = g_malloc (128 * 96 * 3);

  /* A sunset: orange above, dark below. */
  for (guint i = 0; i < 128 * 96; i++)
    {
      data[3 * i] = 0xe0;
      data[3 * i + 1] = i < 128 * 60 ? 0x80 : 0x30;
      data[3 * i + 2] = i < 128 * 60 ? 0x20 : 0x40;
    }
  pixels = g_bytes_new_take (data, 128 * 96 * 3);
  texture = gdk_memory_texture_new (128, 96, GDK_MEMORY_R8G8B8, pixels, 128 * 3);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (gdk_texture_save_to_png (texture, thumbnail));
  return thumbnail;
}

static GIcon *
row_picture (AdwMessageDialog *dialog, const char *title)
{
  g_autoptr (GList) rows = ferry_test_ui_find_all (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW);

  for (GList *l = rows; l != NULL; l = l->next)
    if (g_strcmp0 (adw_preferences_row_get_title (l->data), title) == 0)
      {
        GtkWidget *image = ferry_test_ui_find (l->data, GTK_TYPE_IMAGE, NULL);
        g_assert_nonnull (image);
        return gtk_image_get_gicon (GTK_IMAGE (image));
      }
  g_error ("no row “%s” in the dialog", title);
}

/* Item 12: each file is shown by its thumbnail where the desktop made
 * one, else by the icon of its type. */
static void
test_conflict_thumbnail (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  const char *names[] = { "sunset.png", NULL };
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autoptr (GDateTime) a_day_ago = g_date_time_add_days (now, -1);
  g_autoptr (GDateTime) today = local_day_at (now, 14, 2);
  g_autoptr (GDateTime) yesterday = local_day_at (a_day_ago, 21, 40);
  const char *existing = ferry_test_path (f->stick, "sunset.png", NULL);
  g_autofree char *thumbnail = NULL;
  AdwMessageDialog *dialog;
  GIcon *picture;

  write_dated (existing, "old pixels\n", yesterday);
  write_dated (ferry_test_path (f->src, "sunset.png", NULL), "new pixels, more\n", today);
  thumbnail = make_thumbnail (existing);

  dialog = drop_conflicting (f, names);
  picture = row_picture (dialog, "Already There");
  g_assert_true (G_IS_FILE_ICON (picture));
  g_assert_cmpstr (g_file_peek_path (g_file_icon_get_file (G_FILE_ICON (picture))), ==, thumbnail);
  picture = row_picture (dialog, "Being Copied");
  g_assert_true (G_IS_THEMED_ICON (picture));
  g_assert_true (g_strv_contains (g_themed_icon_get_names (G_THEMED_ICON (picture)), "image-png")
                 || g_strv_contains (g_themed_icon_get_names (G_THEMED_ICON (picture)),
                                     "image-x-generic"));
  save_dialog_screenshot (f, dialog, "conflict-thumbnail", style);
  click (f, dialog, "_Skip");
  g_assert_cmpint (g_unlink (thumbnail), ==, 0);
}

static gboolean
job_of_only_row_ended (gpointer data)
{
  return job_ended (ferry_transfer_row_get_job (only_row (data)));
}

/* The dialogs shown over the window now. */
static guint
count_dialogs (Fixture *f)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWindow) window = g_list_model_get_item (toplevels, i);

      n += gtk_window_get_transient_for (window) == GTK_WINDOW (f->window)
           && gtk_widget_get_visible (GTK_WIDGET (window));
    }
  return n;
}

/* Enter in the new name renames and closes the question, as the Rename
 * button does; the next question then comes alone. (The question stayed
 * on screen, answered, its buttons dead, under the next one.) */
static void
test_conflict_rename_by_enter (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  const char *names[] = { "notes.txt", "todo.txt", NULL };
  AdwMessageDialog *dialog, *next;
  GtkWidget *entry;

  for (guint i = 0; names[i] != NULL; i++)
    {
      ferry_test_write_text (ferry_test_path (f->src, names[i], NULL), "new\n");
      ferry_test_write_text (ferry_test_path (f->stick, names[i], NULL), "old\n");
    }
  dialog = drop_conflicting (f, names);
  entry = ferry_test_ui_find (GTK_WIDGET (dialog), ADW_TYPE_ENTRY_ROW, NULL);
  g_assert_nonnull (entry);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_signal_emit_by_name (entry, "entry-activated");
  ferry_test_ui_wait (300);
  g_assert_null (dialog);

  next = next_dialog (f);
  g_assert_cmpuint (count_dialogs (f), ==, 1);
  click (f, next, "_Skip");
  g_assert_true (ferry_test_ui_wait_until (job_of_only_row_ended, f, 10000));
  g_assert_cmpuint (count_dialogs (f), ==, 0);
  g_assert_cmpuint (ferry_test_count_entries (f->stick), ==, 3);
}

/* Item 12: Rename copies under the name typed, what is there stays; it
 * offers the name Keep Both would give, and a name that is none (with
 * a "/") cannot be chosen. */
static void
test_conflict_rename (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  const char *names[] = { "notes.txt", NULL };
  g_autofree char *old = NULL;
  AdwMessageDialog *dialog;
  GtkWidget *entry;

  ferry_test_write_text (ferry_test_path (f->src, "notes.txt", NULL), "new notes\n");
  ferry_test_write_text (ferry_test_path (f->stick, "notes.txt", NULL), "old notes\n");
  dialog = drop_conflicting (f, names);
  entry = ferry_test_ui_find (GTK_WIDGET (dialog), ADW_TYPE_ENTRY_ROW, NULL);
  g_assert_nonnull (entry);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "notes (2).txt");
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "rename"));
  gtk_editable_set_text (GTK_EDITABLE (entry), "monday/notes.txt");
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "rename"));
  gtk_editable_set_text (GTK_EDITABLE (entry), "notes from monday.txt");
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "rename"));
  save_dialog_screenshot (f, dialog, "conflict-rename", style);
  click (f, dialog, "_Rename");

  g_assert_true (ferry_test_ui_wait_until (job_of_only_row_ended, f, 10000));
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (only_row (f))), ==,
                   FERRY_PHASE_DONE);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "notes.txt", NULL),
                                 ferry_test_path (f->stick, "notes from monday.txt", NULL));
  g_assert_true (
      g_file_get_contents (ferry_test_path (f->stick, "notes.txt", NULL), &old, NULL, NULL));
  g_assert_cmpstr (old, ==, "old notes\n");
  g_assert_cmpuint (ferry_test_count_entries (f->stick), ==, 2);
}

/* The question about a file that is the same on both sides (@name); of
 * "dated.txt", the same bytes changed at another time. */
static void
assert_offers_skip_first (AdwMessageDialog *dialog, const char *name)
{
  g_autofree char *heading = g_strdup_printf ("“%s” Is Already There", name);

  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
  if (g_str_equal (name, "dated.txt"))
    g_assert_cmpstr (adw_message_dialog_get_body (dialog), ==,
                     "Both files have the same content but different dates: skipping this one "
                     "keeps the one there with its own date.");
  else
    g_assert_true (g_str_has_prefix (adw_message_dialog_get_body (dialog),
                                     "Both files are the same"));
  g_assert_cmpstr (foremost_response (dialog), ==, "_Skip");
  g_assert_cmpint (adw_message_dialog_get_response_appearance (dialog, "skip"), ==,
                   ADW_RESPONSE_SUGGESTED);
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "skip");
}

/* The question about files of one size but other bytes: as ever. */
static void
assert_asks_as_ever (AdwMessageDialog *dialog)
{
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Replace “other.txt”?");
  g_assert_null (strstr (adw_message_dialog_get_body (dialog), "the same"));
  g_assert_cmpstr (foremost_response (dialog), ==, "_Replace");
  g_assert_cmpint (adw_message_dialog_get_response_appearance (dialog, "skip"), ==,
                   ADW_RESPONSE_DEFAULT);
}

/* Item 12: two files of one size and the same bytes: the dialog says
 * they are the same and offers Skip first (saying so of their dates when
 * those differ); of one size but other bytes, it asks as ever. */
static void
test_conflict_same_content (Fixture *f, gconstpointer style)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  const char *names[] = { "same.txt", "other.txt", "dated.txt", NULL };
  AdwMessageDialog *dialog;
  guint n_same = 0;

  ferry_test_write_random (ferry_test_path (f->src, "same.txt", NULL), 300000, 5);
  ferry_test_write_random (ferry_test_path (f->stick, "same.txt", NULL), 300000, 5);
  ferry_test_write_random (ferry_test_path (f->src, "other.txt", NULL), 300000, 6);
  ferry_test_write_random (ferry_test_path (f->stick, "other.txt", NULL), 300000, 7);
  ferry_test_write_random (ferry_test_path (f->src, "dated.txt", NULL), 300000, 8);
  ferry_test_write_random (ferry_test_path (f->stick, "dated.txt", NULL), 300000, 8);
  ferry_test_set_times (ferry_test_path (f->stick, "dated.txt", NULL), 1672567200, 0);

  /* They are asked about in whichever order the copy meets them. */
  dialog = drop_conflicting (f, names);
  for (guint i = 0; i < 3; i++)
    {
      const char *heading = adw_message_dialog_get_heading (dialog);

      if (strstr (heading, "other.txt") == NULL)
        {
          assert_offers_skip_first (dialog, strstr (heading, "same.txt") ? "same.txt"
                                                                        : "dated.txt");
          if (strstr (heading, "same.txt") != NULL)
            save_dialog_screenshot (f, dialog, "conflict-same", style);
          n_same++;
        }
      else
        assert_asks_as_ever (dialog);
      click (f, dialog, "_Skip");
      if (i < 2)
        dialog = next_dialog (f);
    }
  g_assert_cmpuint (n_same, ==, 2);
  /* All skipped: nothing was copied, and the row says so. */
  g_assert_true (ferry_test_ui_wait_until (job_of_only_row_ended, f, 10000));
  ferry_test_ui_wait (100);
  g_assert_cmpstr (ferry_transfer_row_get_status (only_row (f)), ==,
                   "Nothing copied: 3 items skipped");
}

/* The time left, in words, from seconds to hours: a 64 GB copy to a
 * 10 MB/s stick said "107 minutes left". */
static void
test_time_left (void)
{
  const struct
  {
    double seconds;
    const char *expected;
  } cases[] = {
    { 0, "1 second left" },
    { 11.2, "12 seconds left" },
    { 59, "59 seconds left" },
    /* rounded up, not past the next unit: neither "60 seconds" nor "2 minutes" */
    { 59.5, "1 minute left" },
    { 60, "1 minute left" },
    { 61, "2 minutes left" },
    { 150, "3 minutes left" },
    { 3540, "59 minutes left" },
    { 3541, "1 hour left" },
    { 3600, "1 hour left" },
    { 6400, "1 hour 47 minutes left" },
    { 6420, "1 hour 47 minutes left" },
    { 7200, "2 hours left" },
    { 7201, "2 hours 1 minute left" },
    { 17940, "4 hours 59 minutes left" },
    { 17941, "about 5 hours left" },
    { 23000, "about 6 hours left" },
    { 90000, "about 25 hours left" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = ferry_time_left_text (cases[i].seconds);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *cache = NULL;
  int status;

  /* The thumbnails the tests make go to a cache of this run's own,
   * chosen before GLib first reads where the cache is. */
  cache = ferry_test_scratch_new ("ui-words-cache");
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  ferry_test_ui_init (&argc, &argv);
  /* What the bar tells screen readers is read back from GTK's test
   * accessibility backend, chosen before the first widget is made. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  ferry_engine_init ();

#define ADD(path, func, style)                                                                     \
  g_test_add (path, Fixture, GINT_TO_POINTER (style), fixture_set_up, func, fixture_tear_down)
  ADD ("/ui-words/error-full-contrast/light", test_error_full_contrast, FALSE);
  ADD ("/ui-words/error-full-contrast/dark", test_error_full_contrast, TRUE);
  ADD ("/ui-words/paths-name-the-drive", test_paths_name_the_drive, FALSE);
  ADD ("/ui-words/cancelled-is-neutral/light", test_cancelled_is_neutral, FALSE);
  ADD ("/ui-words/cancelled-is-neutral/dark", test_cancelled_is_neutral, TRUE);
  ADD ("/ui-words/unplugged", test_unplugged, FALSE);
  ADD ("/ui-words/bar-second-tone/light", test_bar_second_tone, FALSE);
  ADD ("/ui-words/bar-second-tone/dark", test_bar_second_tone, TRUE);
  ADD ("/ui-words/bar-legend", test_bar_legend, FALSE);
  ADD ("/ui-words/conflict/dates", test_conflict_dates, FALSE);
  ADD ("/ui-words/conflict/thumbnail/light", test_conflict_thumbnail, FALSE);
  ADD ("/ui-words/conflict/thumbnail/dark", test_conflict_thumbnail, TRUE);
  ADD ("/ui-words/conflict/rename", test_conflict_rename, FALSE);
  ADD ("/ui-words/conflict/rename-by-enter", test_conflict_rename_by_enter, FALSE);
  ADD ("/ui-words/conflict/same-content", test_conflict_same_content, FALSE);
#undef ADD
  g_test_add_func ("/ui-words/time-left", test_time_left);
  status = g_test_run ();
  ferry_test_remove_tree (cache);
  return status;
}
