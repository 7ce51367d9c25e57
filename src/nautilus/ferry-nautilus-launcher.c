/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gio.h>

#include "ferry-nautilus-launcher.h"

/*
 * Hands files to Ferry through org.freedesktop.Application on the session
 * bus. Everything is asynchronous: Nautilus must never wait for Ferry to
 * start, let alone for a copy. The bus starts Ferry when it is not running
 * (D-Bus activation), which is why the calls may auto-start.
 */

#define FERRY_OBJECT_PATH     "/io/github/ferrycopy/Ferry"
#define APPLICATION_INTERFACE "org.freedesktop.Application"

typedef struct
{
  char *method;
  GVariant *parameters;
} FerryLaunch;

static void
ferry_launch_free (FerryLaunch *launch)
{
  g_free (launch->method);
  g_variant_unref (launch->parameters);
  g_free (launch);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryLaunch, ferry_launch_free)

static void
on_reply (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *method = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    g_warning ("Could not hand the files to Ferry (%s): %s", method, error->message);
}

static void
on_bus (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryLaunch) launch = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_finish (result, &error);

  if (bus == NULL)
    {
      g_warning ("Could not reach the session bus to start Ferry: %s", error->message);
      return;
    }
  g_dbus_connection_call (bus, APPLICATION_ID, FERRY_OBJECT_PATH, APPLICATION_INTERFACE,
                          launch->method, launch->parameters, NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                          NULL, on_reply, g_strdup (launch->method));
}

/* Takes @parameters if floating. */
static void
launch (const char *method, GVariant *parameters)
{
  FerryLaunch *launch = g_new0 (FerryLaunch, 1);

  launch->method = g_strdup (method);
  launch->parameters = g_variant_ref_sink (parameters);
  g_bus_get (G_BUS_TYPE_SESSION, NULL, on_bus, launch);
}

/* No startup notification token: getting one takes GTK, which this
 * module does without; Ferry presents its window anyway. */
static GVariant *
new_platform_data (void)
{
  return g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0);
}

/**
 * ferry_nautilus_launch_copy_to:
 * Asks Ferry to copy @source_uris into @destination_uri, through its
 * "copy-to" action, whose parameter is (destination, sources).
 */
void
ferry_nautilus_launch_copy_to (const char *destination_uri, const char *const *source_uris)
{
  GVariantBuilder targets;

  g_return_if_fail (destination_uri != NULL && source_uris != NULL);
  g_variant_builder_init (&targets, G_VARIANT_TYPE ("av"));
  g_variant_builder_add (&targets, "v", g_variant_new ("(s^as)", destination_uri, source_uris));
  launch ("ActivateAction", g_variant_new ("(s@av@a{sv})", "copy-to",
                                           g_variant_builder_end (&targets), new_platform_data ()));
}

/**
 * ferry_nautilus_launch_open:
 * Opens @source_uris in Ferry, which asks where to copy them.
 */
void
ferry_nautilus_launch_open (const char *const *source_uris)
{
  g_return_if_fail (source_uris != NULL);
  launch ("Open", g_variant_new ("(^as@a{sv})", source_uris, new_platform_data ()));
}
