/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "ferry-nautilus-launcher.h"
#include "ferry-nautilus-provider.h"
#include "ferry-removable-drive.h"

/**
 * FerryNautilusProvider:
 * Adds to the context menu of selected files a "Send To" submenu with the
 * removable drives that are plugged in, and "Copy with Ferry…". Items hand
 * the files to Ferry over D-Bus; nothing here waits on a copy.
 *
 * The menu is built on Nautilus's main thread and must not block it, so
 * the free space shown next to each drive comes from a cache that is
 * refreshed in the background; "items-updated" tells Nautilus when a new
 * figure would change the menu.
 */
struct _FerryNautilusProvider
{
  GObject parent_instance;

  GVolumeMonitor *volume_monitor;
  GHashTable *free_space; /* mount root URI → "14.2 GB" */
  GHashTable *querying;   /* mount root URIs whose free space is being asked for */
  GHashTable *read_only;  /* mount root URIs of drives mounted read-only */
};

enum
{
  PROP_0,
  PROP_VOLUME_MONITOR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void menu_provider_iface_init (NautilusMenuProviderInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (FerryNautilusProvider,
                                ferry_nautilus_provider,
                                G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (NAUTILUS_TYPE_MENU_PROVIDER,
                                                               menu_provider_iface_init))

static void
items_updated (FerryNautilusProvider *self)
{
  nautilus_menu_provider_emit_items_updated_signal (NAUTILUS_MENU_PROVIDER (self));
}

static char *
dup_root_uri (GMount *mount)
{
  g_autoptr (GFile) root = g_mount_get_root (mount);

  return g_file_get_uri (root);
}

/* Whether a source is @mount's top folder, or directly in it: copied
 * there, it would be copied onto itself (or into itself), which Ferry
 * refuses after the person chose it. A file in a folder of the drive may
 * well go to its top. */
static gboolean
holds_a_source (GMount *mount, const char *const *sources)
{
  g_autoptr (GFile) root = g_mount_get_root (mount);

  for (guint i = 0; sources[i] != NULL; i++)
    {
      g_autoptr (GFile) source = g_file_new_for_uri (sources[i]);
      g_autoptr (GFile) parent = g_file_get_parent (source);

      if (g_file_equal (source, root) || (parent != NULL && g_file_equal (parent, root)))
        return TRUE;
    }
  return FALSE;
}

/* Returns: (transfer full): the removable drives' mounts, in the order
 * the window lists them: by name, and drives of one name in the
 * monitor's order; with @sources, not those that hold one at their top. */
static GList *
list_drives (FerryNautilusProvider *self, const char *const *sources)
{
  GList *mounts = g_volume_monitor_get_mounts (self->volume_monitor);
  GList *drives = NULL;

  for (GList *l = mounts; l != NULL; l = l->next)
    if (ferry_mount_is_removable_drive (l->data)
        && (sources == NULL || !holds_a_source (l->data, sources)))
      drives = g_list_prepend (drives, g_object_ref (l->data));
  g_list_free_full (mounts, g_object_unref);
  /* g_list_sort is stable: alike names keep the monitor's order. */
  return g_list_sort (g_list_reverse (drives), ferry_mount_compare_for_listing);
}

/* Only a change that shows is passed on: the exact byte count moves all
 * the time on a drive being written to, and every "items-updated" makes
 * Nautilus build the menu again, which asks again. */
static void
store_free_space (FerryNautilusProvider *self, const char *uri, guint64 free_bytes)
{
  g_autofree char *size = g_format_size (free_bytes);

  if (g_strcmp0 (g_hash_table_lookup (self->free_space, uri), size) == 0)
    return;
  g_hash_table_insert (self->free_space, g_strdup (uri), g_steal_pointer (&size));
  items_updated (self);
}

/* A drive mounted read-only (a card's lock switch, a stick the kernel
 * found damaged) is shown so and cannot be chosen: Ferry would only have
 * refused the copy once chosen. */
static void
note_read_only (FerryNautilusProvider *self, const char *uri, gboolean read_only)
{
  gboolean changed = read_only ? g_hash_table_add (self->read_only, g_strdup (uri))
                               : g_hash_table_remove (self->read_only, uri);

  if (changed)
    items_updated (self);
}

static void
on_free_space (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryNautilusProvider) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GFileInfo) info
      = g_file_query_filesystem_info_finish (G_FILE (source), result, &error);
  g_autofree char *uri = g_file_get_uri (G_FILE (source));

  /* Not asked for any more: the drive was pulled out meanwhile. */
  if (!g_hash_table_remove (self->querying, uri))
    return;
  if (info == NULL)
    {
      g_debug ("No free space known for %s: %s", uri, error->message);
      return;
    }
  if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE))
    store_free_space (self, uri,
                      g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE));
  note_read_only (self, uri,
                  g_file_info_get_attribute_boolean (info, G_FILE_ATTRIBUTE_FILESYSTEM_READONLY));
}

/* A slow or stalled drive must not freeze Nautilus: asked off its thread,
 * one question per drive at a time. */
static void
refresh_free_space (FerryNautilusProvider *self, GMount *mount)
{
  g_autoptr (GFile) root = g_mount_get_root (mount);
  g_autofree char *uri = g_file_get_uri (root);

  if (!g_hash_table_add (self->querying, g_steal_pointer (&uri)))
    return;
  g_file_query_filesystem_info_async (
      root, G_FILE_ATTRIBUTE_FILESYSTEM_FREE "," G_FILE_ATTRIBUTE_FILESYSTEM_READONLY,
      G_PRIORITY_DEFAULT, NULL, on_free_space, g_object_ref (self));
}

static void
refresh_all_free_space (FerryNautilusProvider *self, GList *drives)
{
  for (GList *l = drives; l != NULL; l = l->next)
    refresh_free_space (self, l->data);
}

/* "SanDisk Cruzer — 14.2 GB free", or the name alone until the free space
 * is known. */
static char *
dup_drive_label (FerryNautilusProvider *self, GMount *mount)
{
  g_autofree char *name = g_mount_get_name (mount);
  g_autofree char *uri = dup_root_uri (mount);
  const char *size = g_hash_table_lookup (self->free_space, uri);

  if (g_hash_table_contains (self->read_only, uri))
    /* Translators: a drive in the Send To menu that cannot be written
     * to, as in "SanDisk Cruzer — read-only". */
    return g_strdup_printf (_ ("%s — read-only"), name);
  if (size == NULL)
    return g_steal_pointer (&name);
  /* Translators: a drive in the Send To menu and the space left on it,
   * as in "SanDisk Cruzer — 14.2 GB free". */
  return g_strdup_printf (_ ("%s — %s free"), name, size);
}

/* The selection as URIs Ferry can copy, or NULL when a file in it is not
 * local. Activation URIs are what opening the files would open: the real
 * files behind Recent and search results. */
static GStrv
dup_source_uris (GList *files)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  for (GList *l = files; l != NULL; l = l->next)
    {
      g_autofree char *uri = nautilus_file_info_get_activation_uri (l->data);
      g_autoptr (GFile) file = NULL;

      if (uri == NULL)
        return NULL;
      file = g_file_new_for_uri (uri);
      if (!g_file_is_native (file))
        return NULL;
      g_strv_builder_add (builder, uri);
    }
  return g_strv_builder_end (builder);
}

static void
on_send_to_activate (NautilusMenuItem *item, gpointer user_data)
{
  const char *destination = g_object_get_data (G_OBJECT (item), "ferry-destination");
  const char *const *sources = g_object_get_data (G_OBJECT (item), "ferry-sources");

  ferry_nautilus_launch_copy_to (destination, sources);
}

static void
on_copy_with_ferry_activate (NautilusMenuItem *item, gpointer user_data)
{
  ferry_nautilus_launch_open (g_object_get_data (G_OBJECT (item), "ferry-sources"));
}

static void
set_sources (NautilusMenuItem *item, GStrv sources)
{
  g_object_set_data_full (G_OBJECT (item), "ferry-sources", g_strdupv (sources),
                          (GDestroyNotify) g_strfreev);
}

static NautilusMenuItem *
new_drive_item (FerryNautilusProvider *self, GMount *mount, guint index, GStrv sources)
{
  g_autofree char *item_name = g_strdup_printf ("FerryNautilus::SendToDrive%u", index);
  g_autofree char *label = dup_drive_label (self, mount);
  g_autofree char *mount_name = g_mount_get_name (mount);
  g_autofree char *uri = dup_root_uri (mount);
  g_autofree char *tip = NULL;
  NautilusMenuItem *item;

  /* Translators: the tooltip of a drive in the Send To menu. */
  tip = g_strdup_printf (_ ("Copy the selected items to %s with Ferry"), mount_name);
  item = nautilus_menu_item_new (item_name, label, tip, NULL);

  g_object_set (item, "sensitive", !g_hash_table_contains (self->read_only, uri), NULL);
  g_object_set_data_full (G_OBJECT (item), "ferry-destination", g_steal_pointer (&uri), g_free);
  set_sources (item, sources);
  g_signal_connect (item, "activate", G_CALLBACK (on_send_to_activate), NULL);
  return item;
}

static NautilusMenuItem *
new_send_to_item (FerryNautilusProvider *self, GList *drives, GStrv sources)
{
  g_autoptr (NautilusMenu) submenu = nautilus_menu_new ();
  NautilusMenuItem *item = nautilus_menu_item_new (
      "FerryNautilus::SendTo", _ ("Send To"),
      _ ("Copy the selected items to a removable drive with Ferry"), NULL);
  guint index = 0;

  for (GList *l = drives; l != NULL; l = l->next)
    {
      g_autoptr (NautilusMenuItem) drive_item = new_drive_item (self, l->data, index++, sources);

      nautilus_menu_append_item (submenu, drive_item);
    }
  nautilus_menu_item_set_submenu (item, submenu);
  return item;
}

static NautilusMenuItem *
new_copy_with_ferry_item (GStrv sources)
{
  NautilusMenuItem *item = nautilus_menu_item_new (
      "FerryNautilus::CopyWithFerry", _ ("Copy with Ferry…"),
      _ ("Open the selected items in Ferry to choose where to copy them"), NULL);

  set_sources (item, sources);
  g_signal_connect (item, "activate", G_CALLBACK (on_copy_with_ferry_activate), NULL);
  return item;
}

static GList *
get_file_items (NautilusMenuProvider *provider, GList *files)
{
  FerryNautilusProvider *self = FERRY_NAUTILUS_PROVIDER (provider);
  g_auto (GStrv) sources = dup_source_uris (files);
  g_autolist (GMount) drives = NULL;
  GList *items = NULL;

  if (sources == NULL || sources[0] == NULL)
    return NULL;
  drives = list_drives (self, (const char *const *) sources);
  /* The figures shown may be old: ask again, the menu follows if they
   * changed. */
  refresh_all_free_space (self, drives);
  /* No empty submenu when no drive is plugged in. */
  if (drives != NULL)
    items = g_list_append (items, new_send_to_item (self, drives, sources));
  return g_list_append (items, new_copy_with_ferry_item (sources));
}

static void
menu_provider_iface_init (NautilusMenuProviderInterface *iface)
{
  iface->get_file_items = get_file_items;
}

/* Added, changed (remounted, shadowed or not any more): the drive may
 * come or go from the menu and its free space may have changed. */
static void
on_mount_added_or_changed (GVolumeMonitor *monitor, GMount *mount, FerryNautilusProvider *self)
{
  if (ferry_mount_is_removable_drive (mount))
    refresh_free_space (self, mount);
  items_updated (self);
}

static void
on_mount_removed (GVolumeMonitor *monitor, GMount *mount, FerryNautilusProvider *self)
{
  g_autofree char *uri = dup_root_uri (mount);

  g_hash_table_remove (self->free_space, uri);
  g_hash_table_remove (self->querying, uri);
  g_hash_table_remove (self->read_only, uri);
  items_updated (self);
}

static void
ferry_nautilus_provider_constructed (GObject *object)
{
  FerryNautilusProvider *self = FERRY_NAUTILUS_PROVIDER (object);
  g_autolist (GMount) drives = NULL;

  G_OBJECT_CLASS (ferry_nautilus_provider_parent_class)->constructed (object);

  if (self->volume_monitor == NULL)
    self->volume_monitor = g_volume_monitor_get ();
  g_signal_connect (self->volume_monitor, "mount-added", G_CALLBACK (on_mount_added_or_changed),
                    self);
  g_signal_connect (self->volume_monitor, "mount-changed", G_CALLBACK (on_mount_added_or_changed),
                    self);
  g_signal_connect (self->volume_monitor, "mount-removed", G_CALLBACK (on_mount_removed), self);

  /* So the first menu already has the figures. */
  drives = list_drives (self, NULL);
  refresh_all_free_space (self, drives);
}

static void
ferry_nautilus_provider_set_property (GObject *object,
                                      guint prop_id,
                                      const GValue *value,
                                      GParamSpec *pspec)
{
  FerryNautilusProvider *self = FERRY_NAUTILUS_PROVIDER (object);

  switch (prop_id)
    {
      case PROP_VOLUME_MONITOR:
        self->volume_monitor = g_value_dup_object (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_nautilus_provider_get_property (GObject *object,
                                      guint prop_id,
                                      GValue *value,
                                      GParamSpec *pspec)
{
  FerryNautilusProvider *self = FERRY_NAUTILUS_PROVIDER (object);

  switch (prop_id)
    {
      case PROP_VOLUME_MONITOR:
        g_value_set_object (value, self->volume_monitor);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_nautilus_provider_dispose (GObject *object)
{
  FerryNautilusProvider *self = FERRY_NAUTILUS_PROVIDER (object);

  if (self->volume_monitor != NULL)
    g_signal_handlers_disconnect_by_data (self->volume_monitor, self);
  g_clear_object (&self->volume_monitor);
  G_OBJECT_CLASS (ferry_nautilus_provider_parent_class)->dispose (object);
}

static void
ferry_nautilus_provider_finalize (GObject *object)
{
  FerryNautilusProvider *self = FERRY_NAUTILUS_PROVIDER (object);

  g_hash_table_unref (self->free_space);
  g_hash_table_unref (self->querying);
  g_hash_table_unref (self->read_only);
  G_OBJECT_CLASS (ferry_nautilus_provider_parent_class)->finalize (object);
}

static void
ferry_nautilus_provider_class_init (FerryNautilusProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ferry_nautilus_provider_constructed;
  object_class->set_property = ferry_nautilus_provider_set_property;
  object_class->get_property = ferry_nautilus_provider_get_property;
  object_class->dispose = ferry_nautilus_provider_dispose;
  object_class->finalize = ferry_nautilus_provider_finalize;

  /* Where drives come from; the system's when not given (tests give
   * their own). */
  properties[PROP_VOLUME_MONITOR]
      = g_param_spec_object ("volume-monitor", NULL, NULL, G_TYPE_VOLUME_MONITOR,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ferry_nautilus_provider_class_finalize (FerryNautilusProviderClass *klass)
{
}

static void
ferry_nautilus_provider_init (FerryNautilusProvider *self)
{
  self->free_space = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->querying = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->read_only = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* Registers the type with the module Nautilus loaded this code from. */
void
ferry_nautilus_provider_register (GTypeModule *module)
{
  ferry_nautilus_provider_register_type (module);
}
