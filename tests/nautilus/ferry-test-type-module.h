/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define FERRY_TYPE_TEST_TYPE_MODULE (ferry_test_type_module_get_type ())

G_DECLARE_FINAL_TYPE (FerryTestTypeModule,
                      ferry_test_type_module,
                      FERRY,
                      TEST_TYPE_MODULE,
                      GTypeModule)

FerryTestTypeModule *ferry_test_type_module_new (const char *path);
FerryTestTypeModule *ferry_test_type_module_load_ferry (GType *first_type);
void ferry_test_type_module_list_types (FerryTestTypeModule *self,
                                        const GType **types,
                                        int *n_types);

G_END_DECLS
