/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <nautilus-extension.h>

G_BEGIN_DECLS

char *ferry_test_dup_item_string (NautilusMenuItem *item, const char *property);
GList *ferry_test_dup_submenu_items (NautilusMenuItem *item);
void ferry_test_free_items (GList *items);
char *ferry_test_describe_menu (NautilusMenuProvider *provider, GList *files);

G_END_DECLS
