/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-fake-file-info.h"

/**
 * FerryFakeFileInfo:
 * What Nautilus hands a menu provider for each selected file, over a
 * GFile: Nautilus's own NautilusFile lives in Nautilus, not in the
 * extension library. The activation location differs from the location
 * for files shown through Recent (recent:// opening file://).
 */
struct _FerryFakeFileInfo
{
  GObject parent_instance;

  GFile *location;
  GFile *activation;
  GFileType type;
};

static void file_info_iface_init (NautilusFileInfoInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FerryFakeFileInfo,
                               ferry_fake_file_info,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NAUTILUS_TYPE_FILE_INFO,
                                                      file_info_iface_init))

#define SELF(info) FERRY_FAKE_FILE_INFO (info)

static gboolean
is_gone (NautilusFileInfo *info)
{
  return FALSE;
}

static char *
get_name (NautilusFileInfo *info)
{
  return g_file_get_basename (SELF (info)->location);
}

static char *
get_uri (NautilusFileInfo *info)
{
  return g_file_get_uri (SELF (info)->location);
}

static char *
get_activation_uri (NautilusFileInfo *info)
{
  return g_file_get_uri (SELF (info)->activation);
}

static GFile *
get_parent_location (NautilusFileInfo *info)
{
  return g_file_get_parent (SELF (info)->location);
}

static char *
get_parent_uri (NautilusFileInfo *info)
{
  g_autoptr (GFile) parent = get_parent_location (info);

  return parent != NULL ? g_file_get_uri (parent) : g_strdup ("");
}

static char *
get_uri_scheme (NautilusFileInfo *info)
{
  return g_file_get_uri_scheme (SELF (info)->location);
}

static gboolean
is_directory (NautilusFileInfo *info)
{
  return SELF (info)->type == G_FILE_TYPE_DIRECTORY;
}

static char *
get_mime_type (NautilusFileInfo *info)
{
  return g_strdup (is_directory (info) ? "inode/directory" : "text/plain");
}

static gboolean
is_mime_type (NautilusFileInfo *info, const char *mime_type)
{
  g_autofree char *own = get_mime_type (info);

  return g_content_type_is_a (own, mime_type);
}

static GFileType
get_file_type (NautilusFileInfo *info)
{
  return SELF (info)->type;
}

static GFile *
get_location (NautilusFileInfo *info)
{
  return g_object_ref (SELF (info)->location);
}

static GMount *
get_mount (NautilusFileInfo *info)
{
  return NULL;
}

static gboolean
can_write (NautilusFileInfo *info)
{
  return TRUE;
}

static void
file_info_iface_init (NautilusFileInfoInterface *iface)
{
  iface->is_gone = is_gone;
  iface->get_name = get_name;
  iface->get_uri = get_uri;
  iface->get_parent_uri = get_parent_uri;
  iface->get_uri_scheme = get_uri_scheme;
  iface->get_mime_type = get_mime_type;
  iface->is_mime_type = is_mime_type;
  iface->is_directory = is_directory;
  iface->get_activation_uri = get_activation_uri;
  iface->get_file_type = get_file_type;
  iface->get_location = get_location;
  iface->get_parent_location = get_parent_location;
  iface->get_mount = get_mount;
  iface->can_write = can_write;
}

static void
ferry_fake_file_info_finalize (GObject *object)
{
  FerryFakeFileInfo *self = SELF (object);

  g_object_unref (self->location);
  g_object_unref (self->activation);
  G_OBJECT_CLASS (ferry_fake_file_info_parent_class)->finalize (object);
}

static void
ferry_fake_file_info_class_init (FerryFakeFileInfoClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_fake_file_info_finalize;
}

static void
ferry_fake_file_info_init (FerryFakeFileInfo *self)
{
}

/* @activation: where opening the file leads; its type is the file's. */
NautilusFileInfo *
ferry_fake_file_info_new_with_target (GFile *location, GFile *activation)
{
  FerryFakeFileInfo *self = g_object_new (FERRY_TYPE_FAKE_FILE_INFO, NULL);

  self->location = g_object_ref (location);
  self->activation = g_object_ref (activation);
  self->type = g_file_query_file_type (activation, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL);
  return NAUTILUS_FILE_INFO (self);
}

NautilusFileInfo *
ferry_fake_file_info_new (GFile *location)
{
  return ferry_fake_file_info_new_with_target (location, location);
}
