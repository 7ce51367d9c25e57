/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-application.h"
#include "ferry-destination.h"
#include "ferry-drive-list.h"
#include "ferry-engine.h"
#include "ferry-window.h"

/**
 * FerryApplication:
 * One instance per session. The Nautilus extension queues transfers in
 * it through the "copy-to" action (over D-Bus, starting Ferry when it is
 * not running); `ferry --destination=DIR FILE…` hands its command line
 * to it, and gets back whether the transfer was queued. Opening files
 * without a destination shows them waiting for one.
 */
struct _FerryApplication
{
  AdwApplication parent_instance;

  FerryQueue *queue;
  FerryDriveList *drives;
  GSettings *settings;
  gboolean held;
};

G_DEFINE_FINAL_TYPE (FerryApplication, ferry_application, ADW_TYPE_APPLICATION)

/* Whether @window can take a request: a Ferry window not going away. One
 * hidden after "Stop and Close" lingers until its copies have cleaned up
 * after themselves; a `ferry` call meanwhile went to it, and its copy ran
 * with no window to ask before closing, or its files were dropped. */
static gboolean
takes_requests (GtkWindow *window)
{
  return FERRY_IS_WINDOW (window) && !ferry_window_get_closing (FERRY_WINDOW (window));
}

static FerryWindow *
get_window (FerryApplication *self)
{
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (active != NULL && takes_requests (active))
    return FERRY_WINDOW (active);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (takes_requests (l->data))
      return l->data;
  return ferry_window_new (GTK_APPLICATION (self), self->queue, self->drives);
}

static void
ferry_application_activate (GApplication *app)
{
  gtk_window_present (GTK_WINDOW (get_window (FERRY_APPLICATION (app))));
}

static void
ferry_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  FerryWindow *window = get_window (FERRY_APPLICATION (app));
  g_autoptr (GList) list = NULL;

  for (int i = n_files - 1; i >= 0; i--)
    list = g_list_prepend (list, files[i]);
  ferry_window_stage (window, list);
  gtk_window_present (GTK_WINDOW (window));
}

static void
show_refusal (GtkWindow *window, const GError *error)
{
  GtkWidget *dialog
      = adw_message_dialog_new (window, _ ("Could Not Start the Copy"), error->message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _ ("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* app.copy-to (destination URI, source URIs). */
static void
copy_to_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FerryApplication *self = user_data;
  FerryWindow *window = get_window (self);
  g_autofree char *destination_uri = NULL;
  g_autofree const char **uris = NULL;
  g_autoptr (GFile) destination = NULL;
  g_autoptr (GError) error = NULL;
  GList *sources = NULL;

  g_variant_get (parameter, "(s^a&s)", &destination_uri, &uris);
  destination = g_file_new_for_uri (destination_uri);
  for (guint i = 0; uris[i] != NULL; i++)
    sources = g_list_append (sources, g_file_new_for_uri (uris[i]));

  gtk_window_present (GTK_WINDOW (window));
  if (!ferry_window_copy (window, sources, destination, &error))
    show_refusal (GTK_WINDOW (window), error);
  g_list_free_full (sources, g_object_unref);
}

/* ------------------------------------------------------------------ */
/* The command line                                                     */

/* The files named on a command line, as its caller meant them: relative
 * to the caller's own folder. */
static GPtrArray *
files_of_command_line (GApplicationCommandLine *cmdline)
{
  GVariantDict *options = g_application_command_line_get_options_dict (cmdline);
  GPtrArray *files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree const char **args = NULL;

  if (g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &args))
    for (guint i = 0; args[i] != NULL; i++)
      g_ptr_array_add (files, g_application_command_line_create_file_for_arg (cmdline, args[i]));
  return files;
}

/* A file to copy that is not there would fail the whole transfer: it is
 * refused before anything is queued. */
static gboolean
check_sources (GPtrArray *files, GError **error)
{
  for (guint i = 0; i < files->len; i++)
    {
      GFile *file = g_ptr_array_index (files, i);
      g_autoptr (GFileInfo) info = g_file_query_info (
          file, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);

      if (info == NULL)
        {
          g_autofree char *name = g_file_get_parse_name (file);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("“%s” does not exist"), name);
          return FALSE;
        }
    }
  return TRUE;
}

/* What `ferry --destination=FOLDER FILE…` is refused for, with nothing
 * written: a destination that is no folder, a file that is not there. */
static gboolean
check_request (GFile *destination, GPtrArray *files, GError **error)
{
  return ferry_destination_check_folder (destination, error) && check_sources (files, error);
}

/* The window (made now if there is none) queues the transfer and shows
 * it. A window made for a transfer it refused goes again. */
static gboolean
queue_copy (FerryApplication *self, GPtrArray *files, GFile *destination, GError **error)
{
  FerryWindow *window = get_window (self);
  g_autoptr (GList) sources = NULL;

  for (guint i = files->len; i > 0; i--)
    sources = g_list_prepend (sources, g_ptr_array_index (files, i - 1));
  if (!ferry_window_copy (window, sources, destination, error))
    {
      if (!gtk_widget_get_visible (GTK_WIDGET (window)))
        gtk_window_destroy (GTK_WINDOW (window));
      return FALSE;
    }
  gtk_window_present (GTK_WINDOW (window));
  return TRUE;
}

/* `ferry --destination=FOLDER FILE…`, in the Ferry that runs (this one,
 * or the one already running that the caller handed its command line
 * to): the transfer is queued, or refused with nothing written, the
 * reason on the caller's standard error and, when the window is shown,
 * in it too. Returns the caller's exit status. */
static int
copy_from_command_line (FerryApplication *self,
                        GApplicationCommandLine *cmdline,
                        const char *destination_arg,
                        GPtrArray *files)
{
  g_autoptr (GFile) destination
      = g_application_command_line_create_file_for_arg (cmdline, destination_arg);
  GtkWindow *shown = gtk_application_get_active_window (GTK_APPLICATION (self));
  g_autoptr (GError) error = NULL;

  if (check_request (destination, files, &error) && queue_copy (self, files, destination, &error))
    return FERRY_APPLICATION_EXIT_OK;
  g_application_command_line_printerr (cmdline, "ferry: %s\n", error->message);
  if (shown != NULL && gtk_widget_get_visible (GTK_WIDGET (shown)))
    show_refusal (shown, error);
  return FERRY_APPLICATION_EXIT_REFUSED;
}

/* In the Ferry that runs, for every `ferry …` started meanwhile: files
 * with a destination are copied there, files without one wait for one,
 * and no files show the window. */
static int
ferry_application_command_line (GApplication *app, GApplicationCommandLine *cmdline)
{
  GVariantDict *options = g_application_command_line_get_options_dict (cmdline);
  g_autoptr (GPtrArray) files = files_of_command_line (cmdline);
  g_autofree char *destination = NULL;

  if (g_variant_dict_lookup (options, "destination", "^ay", &destination))
    return copy_from_command_line (FERRY_APPLICATION (app), cmdline, destination, files);
  if (files->len > 0)
    g_application_open (app, (GFile **) files->pdata, (int) files->len, "");
  else
    g_application_activate (app);
  return FERRY_APPLICATION_EXIT_OK;
}

/* app.eject-drive (the drive's root URI), the Eject button of the
 * notification a finished copy sends. */
static void
eject_drive_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  g_autoptr (GFile) root = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  ferry_window_eject_drive (get_window (user_data), root);
}

static void
about_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  const char *developers[] = { _ ("Ferry developers"), NULL };
  /* Translators: your names, one per line, shown in the About window */
  const char *translators = _ ("translator-credits");
  AdwAboutWindow *about = ADW_ABOUT_WINDOW (adw_about_window_new ());

  g_object_set (about, "application-name", _ ("Ferry"), "application-icon", APPLICATION_ID,
                "developer-name", _ ("Ferry developers"), "version", PACKAGE_VERSION, "comments",
                _ ("Copy files to drives, safely and fast"), "license-type", GTK_LICENSE_GPL_3_0,
                "developers", developers, "website", FERRY_WEBSITE, "issue-url",
                FERRY_WEBSITE "/issues", NULL);
  /* Untranslated, the msgid itself comes back: no credits then (the
   * property takes no NULL). */
  if (g_strcmp0 (translators, "translator-credits") != 0)
    adw_about_window_set_translator_credits (about, translators);
  gtk_window_set_transient_for (GTK_WINDOW (about),
                                gtk_application_get_active_window (GTK_APPLICATION (user_data)));
  gtk_window_present (GTK_WINDOW (about));
}

/* app.quit (Ctrl+Q): every window closes as its close button closes it,
 * asking first while a copy runs; what is not copied yet would be
 * missing. Copies running with no window get one to ask in. */
static void
quit_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FerryApplication *self = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));
  g_autolist (GtkWindow) ferry_windows = NULL;

  for (GList *l = windows; l != NULL; l = l->next)
    if (FERRY_IS_WINDOW (l->data))
      ferry_windows = g_list_prepend (ferry_windows, g_object_ref (l->data));
  if (ferry_windows == NULL && ferry_queue_get_busy (self->queue))
    ferry_windows = g_list_prepend (NULL, g_object_ref (get_window (self)));
  if (ferry_windows == NULL)
    g_application_quit (G_APPLICATION (self));
  for (GList *l = ferry_windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

/* While transfers run, the process stays even without a window. */
static void
on_queue_busy (FerryQueue *queue, GParamSpec *pspec, FerryApplication *self)
{
  gboolean busy = ferry_queue_get_busy (queue);

  if (busy && !self->held)
    g_application_hold (G_APPLICATION (self));
  else if (!busy && self->held)
    g_application_release (G_APPLICATION (self));
  self->held = busy;
}

/* The keyboard shortcuts, which the shortcuts window (gtk/help-overlay.ui,
 * found by GtkApplication under the resource base path) shows. */
static void
set_shortcuts (GtkApplication *app)
{
  const struct
  {
    const char *action;
    const char *accels[3];
  } shortcuts[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "window.close", { "<Control>w", NULL } },
    /* F1, help: the shortcuts window, which says what each way in is. */
    { "win.show-help-overlay", { "<Control>question", "F1", NULL } },
    { "win.add-files", { "<Control>o", NULL } },
    { "win.add-folders", { "<Shift><Control>o", NULL } },
    { "win.paste", { "<Control>v", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    gtk_application_set_accels_for_action (app, shortcuts[i].action, shortcuts[i].accels);
}

static void
ferry_application_startup (GApplication *app)
{
  FerryApplication *self = FERRY_APPLICATION (app);
  const GActionEntry actions[] = {
    { "copy-to", copy_to_activated, "(sas)" },
    { "about", about_activated },
    { "quit", quit_activated },
    { "eject-drive", eject_drive_activated, "s" },
  };
  g_autoptr (GAction) verify = NULL;
  g_autoptr (GAction) device_mode = NULL;

  G_APPLICATION_CLASS (ferry_application_parent_class)->startup (app);

  self->settings = g_settings_new (APPLICATION_ID);
  self->queue = ferry_queue_new ();
  self->drives = ferry_drive_list_new (g_volume_monitor_get ());
  g_signal_connect_object (self->queue, "notify::busy", G_CALLBACK (on_queue_busy), self, 0);

  g_action_map_add_action_entries (G_ACTION_MAP (app), actions, G_N_ELEMENTS (actions), app);
  verify = g_settings_create_action (self->settings, "verify");
  device_mode = g_settings_create_action (self->settings, "device-mode");
  g_action_map_add_action (G_ACTION_MAP (app), verify);
  g_action_map_add_action (G_ACTION_MAP (app), device_mode);
  set_shortcuts (GTK_APPLICATION (app));
}

static void
ferry_application_shutdown (GApplication *app)
{
  FerryApplication *self = FERRY_APPLICATION (app);

  g_clear_object (&self->queue);
  g_clear_object (&self->drives);
  g_clear_object (&self->settings);
  G_APPLICATION_CLASS (ferry_application_parent_class)->shutdown (app);
}

/* What the Ferry that runs would refuse of `ferry --destination=FOLDER
 * FILE…` is refused here first, so that no Ferry is started for it. */
static gboolean
check_locally (const char *destination_arg, const char *const *file_args, GError **error)
{
  g_autoptr (GFile) destination = g_file_new_for_commandline_arg (destination_arg);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; file_args[i] != NULL; i++)
    g_ptr_array_add (files, g_file_new_for_commandline_arg (file_args[i]));
  return check_request (destination, files, error);
}

/* A call to the bus's own interface; NULL when it failed. */
static GVariant *
call_bus (GDBusConnection *bus, const char *method, GVariant *parameters, const char *reply_type)
{
  return g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus", method, parameters,
                                      G_VARIANT_TYPE (reply_type), G_DBUS_CALL_FLAGS_NONE, 25000,
                                      NULL, NULL);
}

/* `ferry --destination` returns once its transfer is queued, as a script
 * wants: with no Ferry running, what it would refuse is refused here
 * (no Ferry is started for it), and the bus starts Ferry (as Nautilus'
 * call does), which this call then hands its command line to. It had
 * become Ferry itself, returning only when a person closed the window.
 * Where no service file is installed (a build tree), it still does. */
static gboolean
start_ferry_for (const char *destination, const char *const *files, GError **error)
{
  g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr (GVariant) owned = NULL;
  g_autoptr (GVariant) started = NULL;
  gboolean running = FALSE;

  if (bus == NULL)
    return TRUE;
  owned = call_bus (bus, "NameHasOwner", g_variant_new ("(s)", APPLICATION_ID), "(b)");
  if (owned != NULL)
    g_variant_get (owned, "(b)", &running);
  if (running)
    return TRUE;
  if (!check_locally (destination, files, error))
    return FALSE;
  /* Its answer does not matter: with no Ferry started, this call
   * becomes Ferry when it registers. */
  started = call_bus (bus, "StartServiceByName", g_variant_new ("(su)", APPLICATION_ID, 0), "(u)");
  return TRUE;
}

/* Bad usage is told before any Ferry is started or reached; the rest of
 * the command line goes to the Ferry that runs (see above). */
static int
ferry_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  g_autofree const char **files = NULL;
  g_autofree char *destination = NULL;
  g_autoptr (GError) error = NULL;

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("ferry %s\n", PACKAGE_VERSION);
      return FERRY_APPLICATION_EXIT_OK;
    }
  if (!g_variant_dict_lookup (options, "destination", "^ay", &destination))
    return -1;
  /* "--destination=" (a variable not set) would be the current folder. */
  if (*destination == '\0')
    {
      g_printerr ("ferry: %s\n", _ ("--destination needs the folder to copy into"));
      return FERRY_APPLICATION_EXIT_USAGE;
    }
  g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &files);
  if (files == NULL || files[0] == NULL)
    {
      g_printerr ("ferry: %s\n", _ ("--destination needs the files to copy after it"));
      return FERRY_APPLICATION_EXIT_USAGE;
    }
  if (!start_ferry_for (destination, files, &error))
    {
      g_printerr ("ferry: %s\n", error->message);
      return FERRY_APPLICATION_EXIT_REFUSED;
    }
  return -1;
}

static void
ferry_application_class_init (FerryApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = ferry_application_activate;
  app_class->open = ferry_application_open;
  app_class->startup = ferry_application_startup;
  app_class->shutdown = ferry_application_shutdown;
  app_class->handle_local_options = ferry_application_handle_local_options;
  app_class->command_line = ferry_application_command_line;
}

static void
ferry_application_init (FerryApplication *self)
{
  const GOptionEntry entries[]
      = { { "destination", 'd', 0, G_OPTION_ARG_FILENAME, NULL,
            N_ ("Copy the files given into this folder"), N_ ("FOLDER") },
          { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_ ("Show the version"), NULL },
          { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, N_ ("[FILE…]") },
          { NULL } };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}

FerryApplication *
ferry_application_new (void)
{
  return g_object_new (FERRY_TYPE_APPLICATION, "application-id", APPLICATION_ID, "flags",
                       G_APPLICATION_HANDLES_OPEN | G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path",
                       "/io/github/ferrycopy/Ferry", NULL);
}
