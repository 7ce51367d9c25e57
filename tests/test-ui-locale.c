/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Ferry window in Spanish, under Xvfb: the es translation is what a
 * person sees, and it fits the window.
 *
 * The language comes from LANGUAGE=es over the C.UTF-8 locale, which
 * glibc (2.35 and later) always has: it ignores LANGUAGE only for the
 * plain "C" locale, so no Spanish locale has to be generated. The catalog
 * is the one built in the build tree (po/es/LC_MESSAGES/ferry.mo), found
 * through FERRY_LOCALEDIR. Screenshots go to the scratch folder, and to
 * $FERRY_SCREENSHOT_DIR when it is set. */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "ferry-destination-row.h"
#include "ferry-drive-list.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-transfer-row.h"
#include "ferry-window.h"

#define DRIVE_NAME "SANDISK"

typedef FerryTestWindow Fixture;

static const char *es (const char *msgid) G_GNUC_FORMAT (1);
static const char *es_plural (const char *msgid, const char *msgid_plural, gulong n)
    G_GNUC_FORMAT (2);

/* The Spanish of @msgid, which must have one. */
static const char *
es (const char *msgid)
{
  const char *text = g_dgettext (GETTEXT_PACKAGE, msgid);

  if (text == msgid || g_strcmp0 (text, msgid) == 0)
    g_error ("“%s” has no Spanish translation in %s/es/LC_MESSAGES/%s.mo", msgid,
             ferry_engine_get_locale_dir (), GETTEXT_PACKAGE);
  return text;
}

static const char *
es_plural (const char *msgid, const char *msgid_plural, gulong n)
{
  const char *text = g_dngettext (GETTEXT_PACKAGE, msgid, msgid_plural, n);

  if (g_strcmp0 (text, msgid) == 0 || g_strcmp0 (text, msgid_plural) == 0)
    g_error ("“%s” has no Spanish translation", msgid_plural);
  return text;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (f, "ui-locale", DRIVE_NAME, 560, 640);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_test_window_tear_down (f);
}

/* Saves @widget's native (the window, a dialog, a popover) as @name in
 * the scratch folder, which the test leaves in place, and in
 * $FERRY_SCREENSHOT_DIR when set. */
static void
save_screenshot (GtkWidget *widget, const char *name)
{
  const char *scratch = g_getenv ("FERRY_TEST_TMPDIR");
  const char *extra = g_getenv ("FERRY_SCREENSHOT_DIR");
  g_autofree char *dir
      = g_build_filename (scratch != NULL ? scratch : g_get_tmp_dir (), "screenshots-es", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  ferry_test_ui_screenshot (widget, path);
  g_test_message ("screenshot: %s", path);
  if (extra != NULL && *extra != '\0')
    {
      g_autofree char *extra_path = g_build_filename (extra, name, NULL);
      g_assert_cmpint (g_mkdir_with_parents (extra, 0755), ==, 0);
      ferry_test_ui_screenshot (widget, extra_path);
    }
}

/* No label is so long in Spanish that it pushed the window wider than it
 * was asked to be (GTK grows a window to its content's minimum width). */
static void
assert_window_not_widened (Fixture *f)
{
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window)), <=, 560);
}

static void
assert_label (GtkWidget *root, const char *text)
{
  GtkWidget *label = ferry_test_ui_find_label (root, text);

  if (label == NULL)
    g_error ("no label shows “%s”", text);
}

static FerryDestinationRow *
drive_row (Fixture *f)
{
  FerryDestinationRow *row = FERRY_DESTINATION_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_DESTINATION_ROW, NULL));

  g_assert_nonnull (row);
  g_assert_cmpstr (ferry_destination_get_name (ferry_destination_row_get_destination (row)), ==,
                   DRIVE_NAME);
  return row;
}

/* The catalog is there and is Spanish: a few messages checked word for
 * word, so that an English or empty catalog cannot pass. */
static void
test_catalog (Fixture *f, gconstpointer data)
{
  g_autofree char *mo = g_build_filename (ferry_engine_get_locale_dir (), "es", "LC_MESSAGES",
                                          GETTEXT_PACKAGE ".mo", NULL);

  if (!g_file_test (mo, G_FILE_TEST_IS_REGULAR))
    g_error ("%s is missing: build the po/ targets (FERRY_LOCALEDIR=%s)", mo,
             ferry_engine_get_locale_dir ());
  g_assert_cmpstr (es ("Drives"), ==, "Unidades");
  g_assert_cmpstr (es ("Eject"), ==, "Expulsar");
  g_assert_cmpstr (es ("Plug In a Drive"), ==, "Conecte una unidad");
  /* The engine's own messages, through its gi18n-lib _(). */
  g_assert_cmpstr (es ("“%s” does not exist"), ==, "«%s» no existe");
}

/* No drive yet: the empty state speaks Spanish. */
static void
test_empty (Fixture *f, gconstpointer data)
{
  GtkWidget *status = ferry_test_ui_find (GTK_WIDGET (f->window), ADW_TYPE_STATUS_PAGE, NULL);
  GtkWidget *button;

  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_mapped (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "Conecte una unidad");
  g_assert_cmpstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), ==,
                   es ("Drives appear here as soon as they are plugged in. Drop files on a drive "
                       "to copy them; Ferry says when the data is really on it."));
  button = ferry_test_ui_find (status, GTK_TYPE_BUTTON, NULL);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, es ("_Copy to a Folder…"));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==, "Ferry");
  assert_window_not_widened (f);
  save_screenshot (GTK_WIDGET (f->window), "empty-es.png");
}

/* A drive plugged in and files waiting for a destination: headings, rows,
 * the plural of the waiting files and the Eject tooltip. */
static void
test_drive_and_staged (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  g_autofree char *staged = NULL;
  GList *files = NULL;
  GtkWidget *eject;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("foto-%u.jpg", i);
      files = g_list_append (files, g_file_new_build_filename (f->src, name, NULL));
    }
  ferry_window_stage (f->window, files);
  g_list_free_full (files, g_object_unref);
  ferry_test_ui_wait (500); /* the revealer's animation */

  staged = g_strdup_printf (es_plural ("%s item is ready to copy: choose a drive or a folder",
                                       "%s items are ready to copy: choose a drive or a folder", 3),
                            "3");
  g_assert_cmpstr (staged, ==,
                   "3 elementos están listos para copiarse: elija una unidad o una carpeta");
  assert_label (GTK_WIDGET (f->window), staged);
  assert_label (GTK_WIDGET (f->window), es ("Drives"));
  assert_label (GTK_WIDGET (f->window), es ("Folders"));
  assert_label (GTK_WIDGET (f->window), es ("Choose Folder…"));
  assert_label (GTK_WIDGET (f->window), es ("_Cancel"));

  eject = ferry_test_ui_find (GTK_WIDGET (drive_row (f)), GTK_TYPE_BUTTON, NULL);
  g_assert_nonnull (eject);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (eject), ==, es ("Eject"));
  assert_window_not_widened (f);
  save_screenshot (GTK_WIDGET (f->window), "drive-es.png");
}

/* A copy to the drive, to its end: the transfer row's status, counts and
 * eject offer, in Spanish. */
static void
test_transfer_done (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  g_autofree char *all_there = NULL;
  g_autofree char *counts = NULL;
  g_autofree char *title = NULL;
  FerryTransferRow *row;
  GSList *files;

  ferry_test_write_random (ferry_test_path (f->src, "vacaciones.mp4", NULL), 2 * 1024 * 1024, 1);
  ferry_test_write_random (ferry_test_path (f->src, "notas.txt", NULL), 1000, 2);
  files = ferry_test_ui_files_in (f->src, "vacaciones.mp4", "notas.txt", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f), files));
  g_slist_free_full (files, g_object_unref);

  all_there = g_strdup_printf (es ("All data is on %s."), DRIVE_NAME);
  g_assert_cmpstr (all_there, ==, "Todos los datos están en " DRIVE_NAME ".");
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), all_there);
  ferry_test_ui_wait (500); /* the revealer's animation */

  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_nonnull (row);
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_DONE);
  g_assert_true (g_str_has_prefix (ferry_transfer_row_get_status (row), "Terminado: "));
  title = g_strdup_printf (es_plural ("%s item to %s", "%s items to %s", 2), "2", DRIVE_NAME);
  assert_label (GTK_WIDGET (row), title);
  counts = g_strdup_printf (es_plural ("%s of %s item", "%s of %s items", 2), "2", "2");
  assert_label (GTK_WIDGET (row), counts);
  assert_label (GTK_WIDGET (row), es ("_Eject"));
  assert_label (GTK_WIDGET (f->window), es ("Transfers"));
  assert_window_not_widened (f);
  save_screenshot (GTK_WIDGET (f->window), "transfer-es.png");
}

static gboolean
row_says_paused (gpointer data)
{
  return g_str_has_prefix (ferry_transfer_row_get_status (data), "En pausa: ");
}

/* A copy paused on its way: the status and the Resume button. */
static void
test_paused (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  g_autofree char *paused = NULL;
  FerryTransferRow *row;
  GtkWidget *pause_button = NULL;
  g_autoptr (GList) buttons = NULL;
  GSList *files;

  ferry_test_write_random (ferry_test_path (f->src, "grande.bin", NULL), 64 * 1024 * 1024, 3);
  files = ferry_test_ui_files_in (f->src, "grande.bin", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f), files));
  g_slist_free_full (files, g_object_unref);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_nonnull (row);
  /* The row hears of the pause from its job: nothing tells it. */
  ferry_job_pause (ferry_transfer_row_get_job (row));
  ferry_test_ui_wait (300);

  paused = g_strdup_printf (es ("Paused: %s"), "");
  g_assert_cmpstr (paused, ==, "En pausa: ");
  g_assert_true (ferry_test_ui_wait_until (row_says_paused, row, 5000));
  buttons = ferry_test_ui_find_all (GTK_WIDGET (row), GTK_TYPE_BUTTON);
  for (GList *l = buttons; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_actionable_get_action_name (l->data), "transfer.pause") == 0)
      pause_button = l->data;
  g_assert_nonnull (pause_button);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (pause_button), ==, es ("Resume"));
  assert_window_not_widened (f);
  save_screenshot (GTK_WIDGET (f->window), "paused-es.png");
  ferry_job_resume (ferry_transfer_row_get_job (row));
}

static gboolean
dialog_shown (gpointer data)
{
  return ferry_test_ui_find_dialog (data) != NULL;
}

/* A file already on the drive: the question, its buttons and its
 * comparison rows in Spanish. Rename ends the copy. */
static void
test_conflict (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, DRIVE_NAME);
  g_autofree char *heading = NULL;
  g_autoptr (GList) buttons = NULL;
  GtkWindow *dialog;
  GSList *files;
  gboolean clicked = FALSE;

  ferry_test_write_text (ferry_test_path (f->src, "notas.txt", NULL), "nuevas\n");
  ferry_test_write_text (ferry_test_path (f->stick, "notas.txt", NULL), "viejas\n");
  files = ferry_test_ui_files_in (f->src, "notas.txt", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f), files));
  g_slist_free_full (files, g_object_unref);

  g_assert_true (ferry_test_ui_wait_until (dialog_shown, f->window, 10000));
  dialog = ferry_test_ui_find_dialog (GTK_WINDOW (f->window));
  ferry_test_ui_wait (300); /* shown, laid out, mapped */
  heading = g_strdup_printf (es ("Replace “%s”?"), "notas.txt");
  g_assert_cmpstr (heading, ==, "¿Reemplazar «notas.txt»?");
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==, heading);
  assert_label (GTK_WIDGET (dialog), es ("Already There"));
  assert_label (GTK_WIDGET (dialog), es ("Being Copied"));
  assert_label (GTK_WIDGET (dialog), es ("_Apply to All Conflicts"));
  save_screenshot (GTK_WIDGET (dialog), "conflict-es.png");

  buttons = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_BUTTON);
  for (GList *l = buttons; l != NULL && !clicked; l = l->next)
    if (g_strcmp0 (gtk_button_get_label (l->data), es ("_Rename")) == 0)
      {
        gtk_widget_activate (l->data);
        clicked = TRUE;
      }
  g_assert_true (clicked);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), es ("_Eject"));
}

static void
no_op (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
}

/* The main menu, opened: its items in Spanish. The window has no
 * application here, so stand-ins for the app's actions, and for the
 * shortcuts window an application window gets from its application, make
 * the items look as they do in Ferry rather than greyed out. */
static void
test_menu (Fixture *f, gconstpointer data)
{
  const GActionEntry app_actions[] = {
    { "verify", NULL, NULL, "false", NULL },
    { "device-mode", no_op, "s", "'auto'", NULL },
    { "about", no_op },
  };
  const char *const menu_items[] = { "_Verify Copies", "_Drive Speed", "_About Ferry",
                                     "_Keyboard Shortcuts", NULL };
  const GActionEntry win_actions[] = {
    { "show-help-overlay", no_op },
  };
  g_autoptr (GSimpleActionGroup) group = g_simple_action_group_new ();
  GtkWidget *button = ferry_test_ui_find (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON, NULL);
  GtkPopover *popover;

  g_action_map_add_action_entries (G_ACTION_MAP (group), app_actions, G_N_ELEMENTS (app_actions),
                                   NULL);
  gtk_widget_insert_action_group (GTK_WIDGET (f->window), "app", G_ACTION_GROUP (group));
  g_action_map_add_action_entries (G_ACTION_MAP (f->window), win_actions, G_N_ELEMENTS (win_actions),
                                   NULL);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, es ("Main Menu"));
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  ferry_test_ui_wait (500);
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (popover)));
  assert_label (GTK_WIDGET (popover), es ("_Verify Copies"));
  assert_label (GTK_WIDGET (popover), es ("_Drive Speed"));
  assert_label (GTK_WIDGET (popover), es ("_About Ferry"));
  /* Every item can be chosen, as in Ferry: none greyed out. */
  assert_label (GTK_WIDGET (popover), es ("_Keyboard Shortcuts"));
  for (const char *const *item = menu_items; *item != NULL; item++)
    g_assert_true (gtk_widget_is_sensitive (ferry_test_ui_find_label (GTK_WIDGET (popover), es (*item))));
  save_screenshot (GTK_WIDGET (popover), "menu-es.png");
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
}

int
main (int argc, char **argv)
{
  /* Spanish whatever the environment says, before GTK reads the locale.
   * C.UTF-8 rather than plain C, for which glibc ignores LANGUAGE. */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "es", TRUE);
  /* The build tree's catalogs, when the test runner did not say. */
  g_setenv ("FERRY_LOCALEDIR", FERRY_TEST_LOCALEDIR, FALSE);

  ferry_test_ui_init (&argc, &argv);
  /* gtk_test_init() sets en_US.UTF-8 (or stays in C where that is
   * missing): back to the environment's locale, as gtk_init() does. */
  if (setlocale (LC_ALL, "") == NULL)
    g_error ("the C.UTF-8 locale is missing");
  /* As the app's main(): the domain bound (by the engine), and the
   * default one for the window's _(). */
  ferry_engine_init ();
  textdomain (GETTEXT_PACKAGE);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/ui-locale/es/catalog", test_catalog);
  ADD ("/ui-locale/es/empty", test_empty);
  ADD ("/ui-locale/es/drive-and-staged", test_drive_and_staged);
  ADD ("/ui-locale/es/transfer-done", test_transfer_done);
  ADD ("/ui-locale/es/paused", test_paused);
  ADD ("/ui-locale/es/conflict", test_conflict);
  ADD ("/ui-locale/es/menu", test_menu);
#undef ADD
  return g_test_run ();
}
