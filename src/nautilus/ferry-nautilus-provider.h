/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <nautilus-extension.h>

G_BEGIN_DECLS

#define FERRY_TYPE_NAUTILUS_PROVIDER (ferry_nautilus_provider_get_type ())

G_DECLARE_FINAL_TYPE (FerryNautilusProvider,
                      ferry_nautilus_provider,
                      FERRY,
                      NAUTILUS_PROVIDER,
                      GObject)

void ferry_nautilus_provider_register (GTypeModule *module);

G_END_DECLS
