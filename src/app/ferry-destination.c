/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gi18n.h>
#include <string.h>
#include <unistd.h>

#include "ferry-destination.h"
#include "ferry-device.h"

/**
 * FerryDestination:
 * Somewhere files can be dropped: a mounted drive (a GMount, real or, in
 * tests, made up) or a folder. It knows its name, icon, free space and
 * whether it is read-only, and if so whether the drive itself is
 * write-protected (read again with ferry_destination_refresh_space()),
 * whether it is still plugged in, and how to eject itself safely.
 */
struct _FerryDestination
{
  GObject parent_instance;

  FerryDestinationKind kind;
  GMount *mount;
  GFile *root;
  char *name;
  GIcon *icon;
  guint64 free;
  guint64 size;
  gboolean read_only;
  gboolean write_protected; /* only while read_only */
  gboolean plugged;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (FerryDestination, ferry_destination, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_SPACE,
  PROP_PLUGGED,
  PROP_READ_ONLY,
  PROP_WRITE_PROTECTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_write_protected (FerryDestination *self, gboolean write_protected)
{
  if (self->write_protected == write_protected)
    return;
  self->write_protected = write_protected;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WRITE_PROTECTED]);
}

/* Runs in a worker thread: the mount table and sysfs are read, and the
 * root's status comes from a drive that may be slow to answer. */
static void
look_for_write_protection (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  const char *path = data;
  int fd = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  gboolean write_protected;

  if (fd < 0)
    {
      g_task_return_boolean (task, FALSE);
      return;
    }
  write_protected = ferry_device_is_write_protected_for_fd (fd);
  close (fd);
  g_task_return_boolean (task, write_protected);
}

static void
on_write_protection_known (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FerryDestination *self = FERRY_DESTINATION (source);
  gboolean write_protected = g_task_propagate_boolean (G_TASK (result), NULL);

  if (self->read_only)
    set_write_protected (self, write_protected);
}

/* A drive read-only by its own switch is told apart from a filesystem
 * mounted read-only: the person has a switch to slide. */
static void
update_write_protection (FerryDestination *self)
{
  g_autoptr (GTask) task = NULL;
  char *path;

  if (!self->read_only || (path = g_file_get_path (self->root)) == NULL)
    {
      set_write_protected (self, FALSE);
      return;
    }
  task = g_task_new (self, self->cancellable, on_write_protection_known, NULL);
  g_task_set_task_data (task, path, g_free);
  g_task_run_in_thread (task, look_for_write_protection);
}

static void
on_space_known (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryDestination) self = user_data;
  g_autoptr (GFileInfo) info = g_file_query_filesystem_info_finish (G_FILE (source), result, NULL);

  if (info == NULL)
    return;
  self->free = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE);
  self->size = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_SIZE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SPACE]);
  if (self->read_only
      != g_file_info_get_attribute_boolean (info, G_FILE_ATTRIBUTE_FILESYSTEM_READONLY))
    {
      self->read_only = !self->read_only;
      update_write_protection (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READ_ONLY]);
    }
}

/* Free space and whether it can be written, read again: after a copy to
 * it, or when its mount changed. Looked up off the main thread: a slow
 * or stalled drive must not freeze the window. */
void
ferry_destination_refresh_space (FerryDestination *self)
{
  g_return_if_fail (FERRY_IS_DESTINATION (self));
  g_file_query_filesystem_info_async (self->root,
                                      G_FILE_ATTRIBUTE_FILESYSTEM_FREE
                                      "," G_FILE_ATTRIBUTE_FILESYSTEM_SIZE
                                      "," G_FILE_ATTRIBUTE_FILESYSTEM_READONLY,
                                      G_PRIORITY_DEFAULT, self->cancellable, on_space_known,
                                      g_object_ref (self));
}

/**
 * ferry_destination_check_folder:
 * Whether @folder is an existing folder that files can be copied into.
 * A name that is free would become a file of that name, and a file
 * would be replaced: both are refused, with @error saying which.
 */
gboolean
ferry_destination_check_folder (GFile *folder, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GFileInfo) info = g_file_query_info (folder, G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                                  G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  g_autofree char *name = g_file_get_parse_name (folder);

  if (info != NULL && g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    return TRUE;
  if (info != NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                 _ ("“%s” is not a folder; choose a folder to copy into"), name);
  else if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
           || g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _ ("The destination folder “%s” does not exist"), name);
  else
    g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

FerryDestination *
ferry_destination_new_for_mount (GMount *mount)
{
  FerryDestination *self = g_object_new (FERRY_TYPE_DESTINATION, NULL);

  self->kind = FERRY_DESTINATION_DRIVE;
  self->mount = g_object_ref (mount);
  self->root = g_mount_get_root (mount);
  self->name = g_mount_get_name (mount);
  self->icon = g_mount_get_symbolic_icon (mount);
  if (self->icon == NULL)
    self->icon = g_themed_icon_new ("drive-removable-media-symbolic");
  ferry_destination_refresh_space (self);
  return self;
}

FerryDestination *
ferry_destination_new_for_folder (GFile *folder)
{
  FerryDestination *self = g_object_new (FERRY_TYPE_DESTINATION, NULL);

  self->kind = FERRY_DESTINATION_FOLDER;
  self->root = g_object_ref (folder);
  self->name = g_file_get_basename (folder);
  self->icon = g_themed_icon_new ("folder-symbolic");
  ferry_destination_refresh_space (self);
  return self;
}

FerryDestinationKind
ferry_destination_get_kind (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), FERRY_DESTINATION_FOLDER);
  return self->kind;
}

GMount *
ferry_destination_get_mount (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  return self->mount;
}

GFile *
ferry_destination_get_root (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  return self->root;
}

const char *
ferry_destination_get_name (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  return self->name;
}

GIcon *
ferry_destination_get_icon (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  return self->icon;
}

/* "14.2 GB free of 16.0 GB", or NULL until known. */
char *
ferry_destination_dup_space (FerryDestination *self)
{
  g_autofree char *free_str = NULL;
  g_autofree char *size_str = NULL;

  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  if (self->size == 0)
    return NULL;
  free_str = g_format_size (self->free);
  size_str = g_format_size (self->size);
  /* TRANSLATORS: free space of a drive, like "14.2 GB free of 16.0 GB" */
  return g_strdup_printf (_ ("%s free of %s"), free_str, size_str);
}

/* Free bytes when last read, 0 until known. */
guint64
ferry_destination_get_free (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), 0);
  return self->free;
}

/* Mounted read-only (a drive the kernel remounted after an error, or a
 * locked SD card), as last read. */
gboolean
ferry_destination_get_read_only (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), FALSE);
  return self->read_only;
}

/* Whether the drive, read-only, refuses writes itself (its lock switch). */
gboolean
ferry_destination_get_write_protected (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), FALSE);
  return self->write_protected;
}

/* Whether @c, after a drive's path in a message, ends the path there
 * (a closing quote, a colon) rather than going on ("/media/STICK2"). */
static gboolean
ends_path (const char *c)
{
  gunichar ch = g_utf8_get_char_validated (c, -1);

  return *c == '\0' || (g_unichar_ispunct (ch) && strchr ("-_.()[]{}'", *c) == NULL);
}

/**
 * ferry_destination_name_paths:
 * @text: a message, such as an error's, that may name paths on the drive
 *
 * Returns: @text with each path on the drive given from the drive's name,
 * as the drive list shows it: "Could not write “STICK › photos/a.jpg”"
 * rather than "“/media/user/STICK/photos/a.jpg”". A folder's paths are
 * left as they are.
 */
char *
ferry_destination_name_paths (FerryDestination *self, const char *text)
{
  const char *root = g_file_peek_path (self->root);
  g_autoptr (GString) out = g_string_new (NULL);
  const char *p = text;
  const char *hit;
  gsize len;

  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  if (self->kind != FERRY_DESTINATION_DRIVE || root == NULL || strcmp (root, "/") == 0)
    return g_strdup (text);
  len = strlen (root);
  while ((hit = strstr (p, root)) != NULL)
    {
      const char *after = hit + len;

      g_string_append_len (out, p, hit - p);
      if (*after == '/')
        {
          /* The arrow is a mark, not a word: it stays as it is in every
           * language, as in a file manager's path bar. */
          g_string_append_printf (out, "%s › ", self->name);
          after++;
        }
      else if (ends_path (after))
        g_string_append (out, self->name);
      else
        g_string_append_len (out, hit, len);
      p = after;
    }
  g_string_append (out, p);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The errno values a drive's reads and writes fail with once it is gone,
 * as GIO maps them: EIO (and whatever GIO has no name for), ENODEV, ENXIO,
 * ENOTCONN from a FUSE daemon (exFAT, NTFS) that went with it, and EROFS
 * from ext4, which turns read-only when its device fails under it. A
 * drive remounted read-only that is still there is said to be so
 * instead (ferry_destination_failed_unplugged() asks that it be gone). */
static gboolean
is_gone_drive_error (const GError *error)
{
  static const int codes[] = {
    G_IO_ERROR_FAILED,
    G_IO_ERROR_NO_SUCH_DEVICE,
    G_IO_ERROR_NOT_REGULAR_FILE,
    G_IO_ERROR_NOT_CONNECTED,
    G_IO_ERROR_READ_ONLY,
  };

  for (guint i = 0; i < G_N_ELEMENTS (codes); i++)
    if (g_error_matches (error, G_IO_ERROR, codes[i]))
      return TRUE;
  return FALSE;
}

/* Whether @error is how this drive failed once it was pulled out: it
 * failed as a device that went away fails, and it is gone now. */
gboolean
ferry_destination_failed_unplugged (FerryDestination *self, const GError *error)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), FALSE);
  return self->kind == FERRY_DESTINATION_DRIVE && !self->plugged && is_gone_drive_error (error);
}

/**
 * ferry_destination_describe_error:
 * @error: why a copy to this destination failed
 *
 * Returns: what to tell a person: "STICK was unplugged" for a drive that
 * failed as an unplugged drive fails and is gone now, else @error's
 * message with the paths on the drive named from the drive.
 */
char *
ferry_destination_describe_error (FerryDestination *self, const GError *error)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), NULL);
  if (ferry_destination_failed_unplugged (self, error))
    /* TRANSLATORS: why a copy failed, like "SanDisk Cruzer was unplugged" */
    return g_strdup_printf (_ ("%s was unplugged"), self->name);
  /* Filled up while copying (another program wrote, or more than the
   * check counted on): the file it happened at is listed below. */
  if (self->kind == FERRY_DESTINATION_DRIVE && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
    /* TRANSLATORS: why a copy stopped, like "SanDisk Cruzer is full" */
    return g_strdup_printf (_ ("%s is full"), self->name);
  return ferry_destination_name_paths (self, error->message);
}

gboolean
ferry_destination_get_plugged (FerryDestination *self)
{
  g_return_val_if_fail (FERRY_IS_DESTINATION (self), FALSE);
  return self->plugged;
}

/* A drive that went away keeps its object (rows and transfers may hold
 * it) but is no longer a place to drop files. */
void
ferry_destination_set_plugged (FerryDestination *self, gboolean plugged)
{
  g_return_if_fail (FERRY_IS_DESTINATION (self));
  if (self->plugged == plugged)
    return;
  self->plugged = plugged;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLUGGED]);
}

gboolean
ferry_destination_can_eject (FerryDestination *self)
{
  g_autoptr (GDrive) drive = NULL;

  g_return_val_if_fail (FERRY_IS_DESTINATION (self), FALSE);
  if (self->mount == NULL || !self->plugged)
    return FALSE;
  drive = g_mount_get_drive (self->mount);
  return (drive != NULL && (g_drive_can_stop (drive) || g_drive_can_eject (drive)))
         || g_mount_can_eject (self->mount) || g_mount_can_unmount (self->mount);
}

static void
on_ejected (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  gboolean ok;

  if (G_IS_DRIVE (source))
    ok = g_drive_stop_finish (G_DRIVE (source), result, &error);
  else if (g_task_get_task_data (task) != NULL)
    ok = g_mount_eject_with_operation_finish (G_MOUNT (source), result, &error);
  else
    ok = g_mount_unmount_with_operation_finish (G_MOUNT (source), result, &error);

  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * ferry_destination_eject_async:
 * Makes the drive safe to unplug the way the desktop's "Safely Remove"
 * does: stops (powers off) the drive where it can be stopped, else ejects
 * the mount, else unmounts it. @operation shows "device is busy" and
 * unmount progress to the person.
 */
void
ferry_destination_eject_async (FerryDestination *self,
                               GMountOperation *operation,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr (GDrive) drive = NULL;

  g_return_if_fail (FERRY_IS_DESTINATION (self));
  if (self->mount == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _ ("“%s” is a folder, not a drive"), self->name);
      return;
    }

  drive = g_mount_get_drive (self->mount);
  if (drive != NULL && g_drive_can_stop (drive))
    g_drive_stop (drive, G_MOUNT_UNMOUNT_NONE, operation, cancellable, on_ejected,
                  g_steal_pointer (&task));
  else if (g_mount_can_eject (self->mount))
    {
      g_task_set_task_data (task, GINT_TO_POINTER (1), NULL);
      g_mount_eject_with_operation (self->mount, G_MOUNT_UNMOUNT_NONE, operation, cancellable,
                                    on_ejected, g_steal_pointer (&task));
    }
  else
    g_mount_unmount_with_operation (self->mount, G_MOUNT_UNMOUNT_NONE, operation, cancellable,
                                    on_ejected, g_steal_pointer (&task));
}

gboolean
ferry_destination_eject_finish (FerryDestination *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
ferry_destination_dispose (GObject *object)
{
  FerryDestination *self = FERRY_DESTINATION (object);

  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (ferry_destination_parent_class)->dispose (object);
}

static void
ferry_destination_finalize (GObject *object)
{
  FerryDestination *self = FERRY_DESTINATION (object);

  g_clear_object (&self->mount);
  g_clear_object (&self->root);
  g_clear_object (&self->icon);
  g_clear_object (&self->cancellable);
  g_free (self->name);
  G_OBJECT_CLASS (ferry_destination_parent_class)->finalize (object);
}

static void
ferry_destination_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FerryDestination *self = FERRY_DESTINATION (object);

  switch (prop_id)
    {
      case PROP_NAME:
        g_value_set_string (value, self->name);
        break;
      case PROP_SPACE:
        g_value_take_string (value, ferry_destination_dup_space (self));
        break;
      case PROP_PLUGGED:
        g_value_set_boolean (value, self->plugged);
        break;
      case PROP_READ_ONLY:
        g_value_set_boolean (value, self->read_only);
        break;
      case PROP_WRITE_PROTECTED:
        g_value_set_boolean (value, self->write_protected);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_destination_class_init (FerryDestinationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = ferry_destination_dispose;
  object_class->finalize = ferry_destination_finalize;
  object_class->get_property = ferry_destination_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_SPACE] = g_param_spec_string ("space", NULL, NULL, NULL, flags);
  properties[PROP_PLUGGED] = g_param_spec_boolean ("plugged", NULL, NULL, TRUE, flags);
  properties[PROP_READ_ONLY] = g_param_spec_boolean ("read-only", NULL, NULL, FALSE, flags);
  properties[PROP_WRITE_PROTECTED]
      = g_param_spec_boolean ("write-protected", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ferry_destination_init (FerryDestination *self)
{
  self->plugged = TRUE;
  self->cancellable = g_cancellable_new ();
}
