/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gmodule.h>

#include "ferry-test-type-module.h"

/**
 * FerryTestTypeModule:
 * Loads a Nautilus extension the way Nautilus does: the module is opened
 * and nautilus_module_initialize() called when the GTypeModule is first
 * used, and the module's types are then asked for.
 */
struct _FerryTestTypeModule
{
  GTypeModule parent_instance;

  char *path;
  GModule *library;
  void (*initialize) (GTypeModule *module);
  void (*shutdown) (void);
  void (*list_types) (const GType **types, int *n_types);
};

G_DEFINE_FINAL_TYPE (FerryTestTypeModule, ferry_test_type_module, G_TYPE_TYPE_MODULE)

static gboolean
find_symbol (FerryTestTypeModule *self, const char *name, gpointer *symbol)
{
  if (g_module_symbol (self->library, name, symbol))
    return TRUE;
  g_test_message ("%s has no %s", self->path, name);
  return FALSE;
}

static gboolean
ferry_test_type_module_load (GTypeModule *module)
{
  FerryTestTypeModule *self = FERRY_TEST_TYPE_MODULE (module);

  /* As Nautilus opens its extensions. */
  self->library = g_module_open (self->path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (self->library == NULL)
    {
      g_test_message ("%s", g_module_error ());
      return FALSE;
    }
  if (!find_symbol (self, "nautilus_module_initialize", (gpointer *) &self->initialize)
      || !find_symbol (self, "nautilus_module_shutdown", (gpointer *) &self->shutdown)
      || !find_symbol (self, "nautilus_module_list_types", (gpointer *) &self->list_types))
    return FALSE;
  self->initialize (module);
  return TRUE;
}

static void
ferry_test_type_module_unload (GTypeModule *module)
{
  FerryTestTypeModule *self = FERRY_TEST_TYPE_MODULE (module);

  self->shutdown ();
  g_clear_pointer (&self->library, g_module_close);
}

static void
ferry_test_type_module_finalize (GObject *object)
{
  g_free (FERRY_TEST_TYPE_MODULE (object)->path);
  G_OBJECT_CLASS (ferry_test_type_module_parent_class)->finalize (object);
}

static void
ferry_test_type_module_class_init (FerryTestTypeModuleClass *klass)
{
  GTypeModuleClass *module_class = G_TYPE_MODULE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ferry_test_type_module_finalize;
  module_class->load = ferry_test_type_module_load;
  module_class->unload = ferry_test_type_module_unload;
}

static void
ferry_test_type_module_init (FerryTestTypeModule *self)
{
}

FerryTestTypeModule *
ferry_test_type_module_new (const char *path)
{
  FerryTestTypeModule *self = g_object_new (FERRY_TYPE_TEST_TYPE_MODULE, NULL);

  self->path = g_strdup (path);
  g_type_module_set_name (G_TYPE_MODULE (self), path);
  return self;
}

/* Loads Ferry's extension as built, which FERRY_NAUTILUS_MODULE names,
 * and keeps it in use: Nautilus never unloads its extensions. Returns the
 * module; @first_type: the first type it lists, 0 for none. */
FerryTestTypeModule *
ferry_test_type_module_load_ferry (GType *first_type)
{
  const char *path = g_getenv ("FERRY_NAUTILUS_MODULE");
  FerryTestTypeModule *self;
  const GType *types = NULL;
  int n_types = 0;

  if (path == NULL)
    g_error ("FERRY_NAUTILUS_MODULE names no module to test");
  self = ferry_test_type_module_new (path);
  if (!g_type_module_use (G_TYPE_MODULE (self)))
    g_error ("Could not load %s", path);
  ferry_test_type_module_list_types (self, &types, &n_types);
  *first_type = n_types > 0 ? types[0] : 0;
  return self;
}

/* Only while the module is in use (g_type_module_use()). */
void
ferry_test_type_module_list_types (FerryTestTypeModule *self, const GType **types, int *n_types)
{
  g_return_if_fail (self->list_types != NULL);
  self->list_types (types, n_types);
}
