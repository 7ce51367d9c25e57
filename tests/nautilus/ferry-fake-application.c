/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-fake-application.h"

/**
 * FerryFakeApplication:
 * Stands in for Ferry on a test bus: owns Ferry's name and exports
 * org.freedesktop.Application at Ferry's path, recording each call.
 *
 * It runs on a thread of its own, as Ferry runs in a process of its own:
 * a caller that blocked on the call would get its call recorded but then
 * wait for the reply, which the test can hold back.
 */
struct _FerryFakeApplication
{
  GObject parent_instance;

  char *address;
  GThread *thread;
  GMainContext *context; /* the service thread's */
  GMainLoop *loop;
  GPtrArray *held; /* GDBusMethodInvocation; service thread only */

  GMutex lock; /* guards the fields below */
  GCond cond;
  gboolean ready;
  gboolean hold;
  gboolean releasing;
  GPtrArray *calls; /* GVariant (s@*): method and parameters */
  guint n_replied;
};

G_DEFINE_FINAL_TYPE (FerryFakeApplication, ferry_fake_application, G_TYPE_OBJECT)

#define FERRY_OBJECT_PATH "/io/github/ferrycopy/Ferry"

static const char introspection_xml[]
    = "<node>"
      "  <interface name='org.freedesktop.Application'>"
      "    <method name='Activate'>"
      "      <arg type='a{sv}' name='platform_data' direction='in'/>"
      "    </method>"
      "    <method name='Open'>"
      "      <arg type='as' name='uris' direction='in'/>"
      "      <arg type='a{sv}' name='platform_data' direction='in'/>"
      "    </method>"
      "    <method name='ActivateAction'>"
      "      <arg type='s' name='action_name' direction='in'/>"
      "      <arg type='av' name='parameter' direction='in'/>"
      "      <arg type='a{sv}' name='platform_data' direction='in'/>"
      "    </method>"
      "  </interface>"
      "</node>";

static void
reply (FerryFakeApplication *self, GDBusMethodInvocation *invocation)
{
  g_dbus_method_invocation_return_value (invocation, NULL);
  g_mutex_lock (&self->lock);
  self->n_replied++;
  g_mutex_unlock (&self->lock);
}

static void
on_method_call (GDBusConnection *connection,
                const char *sender,
                const char *object_path,
                const char *interface_name,
                const char *method_name,
                GVariant *parameters,
                GDBusMethodInvocation *invocation,
                gpointer user_data)
{
  FerryFakeApplication *self = user_data;
  gboolean hold;

  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->calls,
                   g_variant_ref_sink (g_variant_new ("(s@*)", method_name, parameters)));
  hold = self->hold;
  g_mutex_unlock (&self->lock);

  if (hold)
    g_ptr_array_add (self->held, invocation);
  else
    reply (self, invocation);
}

static void
reply_to_held (FerryFakeApplication *self)
{
  for (guint i = 0; i < self->held->len; i++)
    reply (self, g_ptr_array_index (self->held, i));
  g_ptr_array_set_size (self->held, 0);
}

static void
own_name (GDBusConnection *connection)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) result = NULL;
  guint32 answer = 0;

  /* 4: DBUS_NAME_FLAG_DO_NOT_QUEUE */
  result = g_dbus_connection_call_sync (
      connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
      "RequestName", g_variant_new ("(su)", APPLICATION_ID, 4), G_VARIANT_TYPE ("(u)"),
      G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (result, "(u)", &answer);
  g_assert_cmpuint (answer, ==, 1); /* DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER */
}

static GDBusConnection *
connect_and_export (FerryFakeApplication *self, guint *registration)
{
  static const GDBusInterfaceVTable vtable = { on_method_call, NULL, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusNodeInfo) node = NULL;
  GDBusConnection *connection;

  connection = g_dbus_connection_new_for_address_sync (
      self->address,
      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
          | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
      NULL, NULL, &error);
  g_assert_no_error (error);
  node = g_dbus_node_info_new_for_xml (introspection_xml, &error);
  g_assert_no_error (error);
  *registration = g_dbus_connection_register_object (
      connection, FERRY_OBJECT_PATH, node->interfaces[0], &vtable, self, NULL, &error);
  g_assert_no_error (error);
  own_name (connection);
  return connection;
}

static gpointer
service_thread (gpointer data)
{
  FerryFakeApplication *self = data;
  g_autoptr (GDBusConnection) connection = NULL;
  guint registration;

  g_main_context_push_thread_default (self->context);
  connection = connect_and_export (self, &registration);

  g_mutex_lock (&self->lock);
  self->ready = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  g_main_loop_run (self->loop);

  reply_to_held (self);
  g_dbus_connection_unregister_object (connection, registration);
  g_dbus_connection_close_sync (connection, NULL, NULL);
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

/* Connects to the bus at @bus_address and returns once Ferry's name is
 * owned there. */
FerryFakeApplication *
ferry_fake_application_new (const char *bus_address)
{
  FerryFakeApplication *self = g_object_new (FERRY_TYPE_FAKE_APPLICATION, NULL);

  self->address = g_strdup (bus_address);
  self->thread = g_thread_new ("fake-ferry", service_thread, self);
  g_mutex_lock (&self->lock);
  while (!self->ready)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  return self;
}

/* Calls from now on wait for their reply until released. */
void
ferry_fake_application_hold_replies (FerryFakeApplication *self)
{
  g_mutex_lock (&self->lock);
  self->hold = TRUE;
  g_mutex_unlock (&self->lock);
}

static gboolean
release_in_thread (gpointer data)
{
  FerryFakeApplication *self = data;

  reply_to_held (self);
  g_mutex_lock (&self->lock);
  self->hold = FALSE;
  self->releasing = FALSE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return G_SOURCE_REMOVE;
}

/* Answers the held calls; returns once the replies are sent. */
void
ferry_fake_application_release_replies (FerryFakeApplication *self)
{
  g_mutex_lock (&self->lock);
  self->releasing = TRUE;
  g_mutex_unlock (&self->lock);
  g_main_context_invoke (self->context, release_in_thread, self);
  g_mutex_lock (&self->lock);
  while (self->releasing)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

guint
ferry_fake_application_get_n_calls (FerryFakeApplication *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->calls->len;
  g_mutex_unlock (&self->lock);
  return n;
}

guint
ferry_fake_application_get_n_replied (FerryFakeApplication *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->n_replied;
  g_mutex_unlock (&self->lock);
  return n;
}

/* Returns: the parameters of call @index, its name in @method. */
GVariant *
ferry_fake_application_dup_call (FerryFakeApplication *self, guint index, char **method)
{
  GVariant *parameters = NULL;

  g_mutex_lock (&self->lock);
  g_assert_cmpuint (index, <, self->calls->len);
  g_variant_get (g_ptr_array_index (self->calls, index), "(s@*)", method, &parameters);
  g_mutex_unlock (&self->lock);
  return parameters;
}

static void
ferry_fake_application_dispose (GObject *object)
{
  FerryFakeApplication *self = FERRY_FAKE_APPLICATION (object);

  if (self->thread != NULL)
    {
      g_main_loop_quit (self->loop);
      g_clear_pointer (&self->thread, g_thread_join);
    }
  G_OBJECT_CLASS (ferry_fake_application_parent_class)->dispose (object);
}

static void
ferry_fake_application_finalize (GObject *object)
{
  FerryFakeApplication *self = FERRY_FAKE_APPLICATION (object);

  g_free (self->address);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_ptr_array_unref (self->held);
  g_ptr_array_unref (self->calls);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (ferry_fake_application_parent_class)->finalize (object);
}

static void
ferry_fake_application_class_init (FerryFakeApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ferry_fake_application_dispose;
  object_class->finalize = ferry_fake_application_finalize;
}

static void
ferry_fake_application_init (FerryFakeApplication *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->held = g_ptr_array_new ();
  self->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
}
