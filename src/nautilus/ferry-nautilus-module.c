/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <gmodule.h>
#include <nautilus-extension.h>

#include "ferry-nautilus-provider.h"

/* What Nautilus looks up in each module of its extensions folder. */

static GType types[1];

G_MODULE_EXPORT void
nautilus_module_initialize (GTypeModule *module)
{
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  ferry_nautilus_provider_register (module);
  types[0] = FERRY_TYPE_NAUTILUS_PROVIDER;
}

G_MODULE_EXPORT void
nautilus_module_shutdown (void)
{
}

G_MODULE_EXPORT void
nautilus_module_list_types (const GType **list, int *n_types)
{
  *list = types;
  *n_types = G_N_ELEMENTS (types);
}
