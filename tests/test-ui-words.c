/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Words people can read, under Xvfb: what the window says of a transfer
 * that failed or was cancelled, of its bar, and of a file already there.
 * Colours are read back from the rendered window, in the light and the
 * dark style, and held to WCAG's contrast ratios. */
#include "config.h"

#include <math.h>
#include <string.h>

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

/* Into $FERRY_SCREENSHOT_DIR, when set; named for the style. */
static void
save_screenshot (GtkWidget *widget, const char *name, gconstpointer style)
{
  const char *dir = g_getenv ("FERRY_SCREENSHOT_DIR");
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL || *dir == '\0')
    return;
  file = g_strdup_printf ("%s-%s.png", name, GPOINTER_TO_INT (style) ? "dark" : "light");
  path = g_build_filename (dir, file, NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  ferry_test_ui_screenshot (widget, path);
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
  mount = ferry_test_mount_new (DRIVE_NAME, ferry_test_stick_get_mountpoint (stick));
  ferry_drive_list_add_mount (f->drives, G_MOUNT (mount));
  ferry_test_ui_wait (100);
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

int
main (int argc, char **argv)
{
  ferry_test_ui_init (&argc, &argv);
  ferry_engine_init ();

#define ADD(path, func, style)                                                                     \
  g_test_add (path, Fixture, GINT_TO_POINTER (style), fixture_set_up, func, fixture_tear_down)
  ADD ("/ui-words/error-full-contrast/light", test_error_full_contrast, FALSE);
  ADD ("/ui-words/error-full-contrast/dark", test_error_full_contrast, TRUE);
  ADD ("/ui-words/paths-name-the-drive", test_paths_name_the_drive, FALSE);
  ADD ("/ui-words/cancelled-is-neutral/light", test_cancelled_is_neutral, FALSE);
  ADD ("/ui-words/cancelled-is-neutral/dark", test_cancelled_is_neutral, TRUE);
  ADD ("/ui-words/unplugged", test_unplugged, FALSE);
#undef ADD
  return g_test_run ();
}
