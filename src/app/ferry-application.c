/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-application.h"
#include "ferry-drive-list.h"
#include "ferry-engine.h"
#include "ferry-window.h"

/**
 * FerryApplication:
 * One instance per session. `ferry --destination=DIR FILE…` and the
 * Nautilus extension queue transfers in it through the "copy-to" action
 * (over D-Bus, starting Ferry when it is not running); opening files
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

static FerryWindow *
get_window (FerryApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = GTK_WINDOW (ferry_window_new (GTK_APPLICATION (self), self->queue, self->drives));
  return FERRY_WINDOW (window);
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
    {
      GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (window),
                                                  _ ("Could Not Start the Copy"), error->message);
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _ ("_Close"));
      gtk_window_present (GTK_WINDOW (dialog));
    }
  g_list_free_full (sources, g_object_unref);
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

  adw_show_about_window (
      gtk_application_get_active_window (GTK_APPLICATION (user_data)), "application-name",
      _ ("Ferry"), "application-icon", APPLICATION_ID, "developer-name", _ ("Ferry developers"),
      "version", PACKAGE_VERSION, "comments", _ ("Copy files to drives, safely and fast"),
      "license-type", GTK_LICENSE_GPL_3_0, "developers", developers, "translator-credits",
      g_strcmp0 (translators, "translator-credits") != 0 ? translators : NULL, NULL);
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

static void
ferry_application_startup (GApplication *app)
{
  FerryApplication *self = FERRY_APPLICATION (app);
  const GActionEntry actions[] = {
    { "copy-to", copy_to_activated, "(sas)" },
    { "about", about_activated },
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
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "window.close",
                                         (const char *[]){ "<Control>w", NULL });
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

/* `ferry --destination=DIR FILE…`: hand the transfer to the running
 * Ferry (or one started now) and return. */
static int
ferry_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  g_autofree char *destination = NULL;
  g_autofree char **files = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) dest = NULL;
  g_autoptr (GStrvBuilder) uris = g_strv_builder_new ();
  g_auto (GStrv) uri_list = NULL;
  g_autofree char *dest_uri = NULL;

  if (!g_variant_dict_lookup (options, "destination", "^ay", &destination))
    return -1;
  g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &files);
  if (files == NULL || files[0] == NULL)
    {
      g_printerr ("ferry: %s\n", _ ("--destination needs the files to copy after it"));
      return 2;
    }
  if (!g_application_register (app, NULL, &error))
    {
      g_printerr ("ferry: %s\n", error->message);
      return 1;
    }

  dest = g_file_new_for_commandline_arg (destination);
  dest_uri = g_file_get_uri (dest);
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr (GFile) file = g_file_new_for_commandline_arg (files[i]);
      g_autofree char *uri = g_file_get_uri (file);
      g_strv_builder_add (uris, uri);
    }
  uri_list = g_strv_builder_end (uris);
  g_action_group_activate_action (G_ACTION_GROUP (app), "copy-to",
                                  g_variant_new ("(s^as)", dest_uri, uri_list));
  if (g_application_get_is_remote (app))
    return 0;

  /* This is the first Ferry: it has started the copy and must stay to
   * finish it. The files are already queued, so they are not opened. */
  g_variant_dict_remove (options, G_OPTION_REMAINING);
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
}

static void
ferry_application_init (FerryApplication *self)
{
  const GOptionEntry entries[]
      = { { "destination", 'd', 0, G_OPTION_ARG_FILENAME, NULL,
            N_ ("Copy the files given into this folder"), N_ ("FOLDER") },
          { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, N_ ("[FILE…]") },
          { NULL } };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}

FerryApplication *
ferry_application_new (void)
{
  return g_object_new (FERRY_TYPE_APPLICATION, "application-id", APPLICATION_ID, "flags",
                       G_APPLICATION_HANDLES_OPEN, "resource-base-path",
                       "/io/github/ferrycopy/Ferry", NULL);
}
